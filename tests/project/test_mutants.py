"""The fast subset of the mutation check (tools/mutants.py; the full run is in docs/proofs.md):
every mutant's patch still applies to the committed code, and a few cheap mutants, each put
into its own copy of the repository, are caught by a check that passes on the unmutated copy."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import ROOT


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("popejoan_mutants", ROOT / "tools" / "mutants.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


mutants = _load()

QUICK = {
    "pope-exemption-never-ends":
        "tests/model/test_play_and_settlement.py::test_pope_played_takes_pope_and_ends_exemption",
    "out-noticed-at-end-of-run":
        "tests/model/test_play_and_settlement.py::test_going_out_ends_the_deal_in_the_middle_of_a_run",
    "unplayed-pope-paid":
        "tests/model/test_play_and_settlement.py::test_an_unplayed_pope_exempts_its_holder",
}
"""Cheap mutants and the single test of each one's killers that runs in CI."""


def test_every_mutant_still_applies(tmp_path: Path) -> None:
    """A refactor must not silently disable a mutant: each old text is found exactly once, and
    the patched code has no undefined name (a mutant must be wrong, not broken)."""
    base = tmp_path / "base"
    mutants.export_tree(base)
    for mutant in mutants.MUTANTS:
        tree = tmp_path / mutant.name  # the files the mutant patches, not the whole tree
        for path in {hunk.path for hunk in mutant.hunks}:
            (tree / path).parent.mkdir(parents=True, exist_ok=True)
            mutants.shutil.copyfile(base / path, tree / path)
        mutants.apply(mutant, tree)
        for hunk in mutant.hunks:
            assert hunk.new in (tree / hunk.path).read_text(encoding="utf-8")
        assert mutants.lint(mutant, tree) == "", mutant.name


def test_every_killer_names_tests_that_exist() -> None:
    """A refactor must not silently disable a killer either: every test a mutant's killers
    name is collected (a renamed test or parameter fails on the unmutated copy too, and the
    mutant would only show as SURVIVED)."""
    ids = sorted({arg for m in mutants.MUTANTS for k in m.killers if k.kind is mutants.Kind.PYTEST
                  for arg in k.args} | set(QUICK.values()))
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", *ids], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]


def test_a_stale_patch_is_reported_not_skipped(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    stale = mutants.Mutant("stale", "", (mutants.Hunk("a.py", "x = 2", "x = 3"),), ())
    with pytest.raises(mutants.StaleMutantError, match="found 0 times"):
        mutants.apply(stale, tmp_path)


@pytest.mark.slow
def test_cheap_mutants_are_caught(tmp_path: Path) -> None:
    """Each cheap mutant, in its own copy, is caught by its quick killer. That the killers pass
    on the unmutated copy (else a kill does not count) is shown by one pytest run of the three
    there, not one run each: the session's verdicts on the base are that run's."""
    chosen = []
    for mutant in mutants.select(list(QUICK)):
        killer = mutants.checks(QUICK[mutant.name])
        assert any(k.kind is mutants.Kind.PYTEST and QUICK[mutant.name].startswith(k.args[0])
                   for k in mutant.killers), "the quick killer is one of the mutant's own"
        chosen.append(replace(mutant, killers=(killer,)))
    session, _ = mutants.make_session(tmp_path, "HEAD", build=False, timeout=120)
    on_base = mutants.run_killer(mutants.checks(*QUICK.values()), session.base, 120)
    assert not on_base.killed, f"a quick killer fails on the unmutated copy: {on_base.detail}"
    for mutant in chosen:
        session.baseline.update((k, replace(on_base, killer=k)) for k in mutant.killers)
    results = [session.run(mutant) for mutant in chosen]
    assert [r.status for r in results] == [mutants.Fate.KILLED] * len(chosen), \
        [mutants.line(r) for r in results]


def test_a_mutant_that_nothing_checks_survives() -> None:
    """A killer that passes on the mutant does not count: the mutant is reported SURVIVED."""
    (mutant,) = mutants.select(["out-noticed-at-end-of-run"])
    harmless = mutants.checks("tests/model/test_cards.py::test_parse_cards_accepts_commas")
    (result,) = mutants.run_mutants([replace(mutant, killers=(harmless,))], build=False,
                                    timeout=120)
    assert result.status is mutants.Fate.SURVIVED
    assert mutants.main(["no-such-mutant"]) == 2


@pytest.mark.slow
def test_a_mutant_of_the_c_core_is_rebuilt_and_caught() -> None:
    """The compiled core's facts have mutants too: the copy's core is rebuilt from the mutated
    source, and the compiled engine's differential test catches it."""
    (mutant,) = mutants.select(["c-fact3b-lead-always-charged"])
    killer = mutants.checks(
        "tests/search/test_solver.py::test_fast_engine_agrees_with_reference[hoyle-modernized]")
    (result,) = mutants.run_mutants([replace(mutant, killers=(killer,))], build=False,
                                    timeout=120)
    assert result.status is mutants.Fate.KILLED, mutants.line(result)


def test_a_c_core_mutant_that_does_not_compile_is_invalid_not_run() -> None:
    """A mutant that breaks the build must not run the true core (left over from the base)."""
    broken = mutants.Mutant(
        "c-broken", "", (mutants.Hunk(mutants.CORE_C, "    paid_for -= led_outside;",
                                      "    paid_for -= no_such_name;"),),
        (mutants.checks("tests/search/test_solver.py::test_the_compiled_core_is_built"),))
    (result,) = mutants.run_mutants([broken], build=True, timeout=120)
    assert result.status is mutants.Fate.INVALID, mutants.line(result)
    assert "did not build" in result.note
