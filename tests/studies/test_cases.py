"""``popejoan case`` and ``popejoan cases``: the published cases ship in the package (found
outside a checkout); each line printed as its case is checked, the proof cases of each ruleset
in a worker process; an internal error of a proof case is status 4; Ctrl-C leaves no worker."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.jobs import pool
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Position
from popejoan_solver.model.sources import WORKS
from popejoan_solver.studies import cases
from popejoan_solver.studies.cases import published_cases
from tests.conftest import ROOT, prove_at_three_players
from tests.contract import assert_contract, interrupt_cli, run_cli

GOLDEN = ROOT / "tests" / "golden"
REFUTED = "parlett-kings-not-stops"
"""A proof case whose theorem is refuted by a line replayed through the rules model (quick)."""

REFUSE_EVERY_LINE = '''
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Position

def _refuse(self, lead):
    raise IllegalPlayError("refused by the test")

Position.outcomes = _refuse
'''
"""A ``sitecustomize`` that plants a bug: the rules model refuses every line the prover found."""

AT_THREE_PLAYERS = '''
import functools

from popejoan_solver.logic import theorems
from popejoan_solver.logic.prover import Workspace

theorems.shared_workspace = functools.lru_cache(maxsize=4)(
    lambda semantics: Workspace(semantics, players=(3,)))
'''
"""A ``sitecustomize`` that proves at 3 players only (``prove_at_three_players`` for a
process): for tests of a proof case's error that are not about the player range."""


@pytest.fixture
def fresh_proofs() -> Iterator[None]:
    """Proofs are cached per ruleset within a process: each test proves afresh."""
    cases.forget_proofs()
    yield
    cases.forget_proofs()


@pytest.fixture
def one_proof_case(tmp_path: Path) -> Path:
    """A cases directory holding only the quick proof case."""
    folder = tmp_path / "cases"
    folder.mkdir()
    (folder / f"{REFUTED}.toml").write_bytes((published_cases() / f"{REFUTED}.toml").read_bytes())
    return folder


def _folder(tmp_path: Path, names: list[str]) -> Path:
    """A cases directory holding these published cases."""
    folder = tmp_path / "some-cases"
    folder.mkdir()
    for name in names:
        (folder / f"{name}.toml").write_bytes((published_cases() / f"{name}.toml").read_bytes())
    return folder


def _refuse_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_self: Position, _lead: int) -> list[object]:
        raise IllegalPlayError("refused by the test")
    monkeypatch.setattr(Position, "outcomes", refuse)


@pytest.mark.usefixtures("fresh_proofs")
@pytest.mark.parametrize("command", ["case", "cases"])
def test_a_proof_case_with_an_internal_error_is_status_4_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        one_proof_case: Path, command: str) -> None:
    _refuse_every_line(monkeypatch)
    prove_at_three_players(monkeypatch)  # the error comes at the first refutation
    argv = [command, *([REFUTED] if command == "case" else []), "--dir", str(one_proof_case)]
    assert main(argv) == 4
    captured = capsys.readouterr()
    assert captured.err.startswith("error: internal error: the rules model cannot replay a line")
    assert captured.err.count("\n") == 1
    assert "a bug of popejoan" in captured.err
    assert "agree" not in captured.out


def test_cases_with_an_internal_error_keeps_the_contract_in_a_process(
        tmp_path: Path, one_proof_case: Path) -> None:
    """The whole command in its own process: no traceback, one line, status 4 (proved at 3
    players, as in-process above: the error comes at the first refutation, at any player
    count)."""
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "sitecustomize.py").write_text(REFUSE_EVERY_LINE + AT_THREE_PLAYERS,
                                              encoding="utf-8")
    outcome = run_cli(["cases", "--dir", str(one_proof_case)],
                      env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(planted)})
    assert_contract(outcome, 4)
    assert outcome.stderr.startswith("error: internal error: ")


def test_the_published_cases_are_read_from_the_package() -> None:
    folder = published_cases()
    assert str(folder).endswith(os.path.join("popejoan_solver", "data", "cases"))
    assert len(cases.load_cases()) == len([f for f in folder.iterdir()
                                           if f.name.endswith(".toml")]) >= 27


def test_cases_runs_anywhere_without_dir(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``cases/`` in the working directory, no ``--dir``: the packaged cases."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("POPEJOAN_CASES", raising=False)
    assert main(["case", "hoyle-dead-hand"]) == 0


def test_popejoan_cases_names_a_missing_folder(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("POPEJOAN_CASES", str(tmp_path / "nowhere"))
    assert main(["cases"]) == 2
    assert capsys.readouterr().err == (f"error: POPEJOAN_CASES={tmp_path / 'nowhere'}: no such "
                                       "directory\n")


def _source_tree(into: Path) -> Path:
    """The files a wheel is built from, copied out of the checkout (no build output left in
    it)."""
    into.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, into)
    shutil.copytree(ROOT / "popejoan_solver", into / "popejoan_solver",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    return into


@pytest.mark.slow
def test_the_wheel_ships_the_cases_and_cases_runs_from_it(tmp_path: Path,
                                                          update_golden: bool) -> None:
    """Built as the README installs it, unpacked outside the checkout: ``popejoan cases``
    checks every published case from the installed package alone. Its whole output is the
    golden ``tests/golden/cases.txt`` (this is the golden check of a plain ``popejoan cases``:
    the golden invocations leave it to this test rather than prove every case twice)."""
    source = _source_tree(tmp_path / "source")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                            str(tmp_path / "wheel"), str(source)],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    published = sorted(f.name for f in published_cases().iterdir() if f.name.endswith(".toml"))
    assert {f"popejoan_solver/data/cases/{n}" for n in published} <= names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    where = subprocess.run([sys.executable, "-c", "import popejoan_solver; "
                            "print(popejoan_solver.__file__)"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, check=True)
    assert where.stdout.startswith(str(site))
    outcome = run_cli(["cases"], cwd=elsewhere, env=env, timeout=300)
    assert_contract(outcome, 0)
    if update_golden:
        (GOLDEN / "cases.txt").write_text(outcome.stdout, encoding="utf-8")
    assert outcome.stdout == (GOLDEN / "cases.txt").read_text(encoding="utf-8")
    assert outcome.stderr == ""


@pytest.mark.usefixtures("fresh_proofs")
def test_cases_prints_each_line_as_soon_as_its_case_is_checked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Before each case after the first is checked, the line of the one before is out (four
    published cases, the quick proof case among them; their lines are the golden run's). The
    proof case is proved at 3 players: its line is the same (it is refuted at 3 players too),
    and the printing, not the player range, is what is checked here."""
    prove_at_three_players(monkeypatch)
    names = ["early-hoyle-eight-of-clubs", "hoyle-dead-hand", "peel-dressing", REFUTED]
    printed: list[str] = []
    checking = cases.check_cases

    def spy(folder: list[cases.Case], workers: int) -> Iterator[cases.CaseResult]:
        for result in checking(folder, workers):
            printed.append(capsys.readouterr().out)
            yield result
    monkeypatch.setattr(cases, "check_cases", spy)
    assert main(["cases", "--workers", "1", "--dir", str(_folder(tmp_path, names))]) == 0
    last = capsys.readouterr().out
    lines = (GOLDEN / "cases.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    golden = [line for line in lines if line.split()[0] in names]
    golden.append(lines[-1].replace(f"{len(lines) - 1} of {len(lines) - 1}", "4 of 4"))
    assert len(golden) == len(names) + 1
    assert [_words(out) for out in printed] == ["", *map(_words, golden[:-2])]
    assert _words(last) == _words("".join(golden[-2:]))


def _words(text: str) -> str:
    """The lines with their padding closed up (a folder of shorter names pads less)."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def test_cases_json_is_one_document_of_every_case_in_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = ["peel-dressing", "hoyle-dead-hand", "hoyle-three-of-diamonds"]
    assert main(["cases", "--json", "--dir", str(_folder(tmp_path, names))]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["cases"]] == sorted(names)
    assert all(c["agrees"] for c in data["cases"])


def test_cases_json_shows_a_progress_bar_of_cases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """On a terminal (tty_progress gives a bar only then) the bar counts cases."""
    calls: list[tuple[str, int, int]] = []

    class Bar:
        def __init__(self, unit: str = "deal") -> None:
            self.unit = unit

        def __call__(self, done: int, total: int) -> None:
            calls.append((self.unit, done, total))

        def close(self) -> None:
            calls.append((self.unit, -1, -1))
    monkeypatch.setattr(pool, "tty_progress", Bar)
    names = ["peel-dressing", "hoyle-dead-hand"]
    assert main(["cases", "--json", "--dir", str(_folder(tmp_path, names))]) == 0
    assert calls == [("case", 0, 2), ("case", 1, 2), ("case", 2, 2), ("case", -1, -1)]
    json.loads(capsys.readouterr().out)


@pytest.mark.usefixtures("fresh_proofs")
def test_proof_cases_in_worker_processes_agree_with_one_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rulesets' proof cases, each ruleset's in a worker: the results of one process (at
    3 players: the workers are forked, so they prove at 3 players too)."""
    prove_at_three_players(monkeypatch)
    names = ["early-hoyle-eight-of-clubs", "early-hoyle-fixed-stops", "hoyle-dead-hand",
             REFUTED]
    folder = cases.load_cases(_folder(tmp_path, names))
    alone = [r.to_json() for r in cases.check_cases(folder, 1)]
    cases.forget_proofs()
    together = [r.to_json() for r in cases.check_cases(folder, 2)]
    assert [r["name"] for r in together] == sorted(names)
    assert together == alone
    assert [r["agrees"] for r in together] == [True] * 4


def test_ctrl_c_stops_cases_and_every_worker() -> None:
    """Interrupted while the proof cases are checked: status 130 within a second, one error
    line, whole lines of the cases checked so far, and no worker process left."""
    outcome = interrupt_cli(["cases"], after=2.0)
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.status == 130, outcome.stderr
    assert outcome.stderr.splitlines() == ["error: interrupted"]
    assert outcome.seconds < 1.5
    golden = (GOLDEN / "cases.txt").read_text(encoding="utf-8")
    assert golden.startswith(outcome.stdout)
    assert outcome.stdout.endswith("\n") or not outcome.stdout
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            os.killpg(outcome.pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail("a worker process of popejoan cases is left running")


def test_every_case_cites_its_work_by_author_title_year_and_section() -> None:
    """A case's ``source`` is printed by ``case`` and ``cases``: a reader finds the work from
    it (one of the works the rules cite, then its section), never from a file name of ours."""
    works = [w.citation() for w in WORKS]
    for case in cases.load_cases(published_cases()):
        assert any(case.source.startswith(f'{w}, "') for w in works), (case.name, case.source)
        assert ".txt" not in case.source, case.name
