"""Certificates of ``prove`` and ``find`` (``--certificate DIR``): standard files that other
tools re-check, and checks that fail when the files are tampered with."""

from __future__ import annotations

import functools
import json
import os
import signal
from pathlib import Path

import pytest
import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.cli import main
from popejoan_solver.logic import certificates as cert
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.logic.prover import ProofError, Status, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_from_json
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from tests.contract import (
    assert_contract,
    assert_group_gone,
    assert_interrupted,
    interrupt_cli,
    run_cli,
    run_main,
)
from tests.logic.validated_once import Validations, validate_once

HOYLE = get_ruleset("hoyle-modernized")


@pytest.fixture(scope="module")
def validations() -> Validations:
    return {}


@pytest.fixture(autouse=True)
def _validated_once(validations: Validations, monkeypatch: pytest.MonkeyPatch) -> None:
    """The encoding validated against the model once per ruleset in this module, where no
    test patches either (tests/logic/validated_once.py): the certificates are the subject."""
    validate_once(monkeypatch, validations)

# ----------------------------------------------------------------------------- SMT-LIB


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=7), st.integers(-1, 8),
       st.sampled_from(["eq", "le", "ge", "most", "least"]), st.booleans())
def test_pseudo_boolean_terms_are_rewritten_to_equivalent_standard_terms(
        weights: list[int], k: int, op: str, unit: bool) -> None:
    """z3 itself decides that the rewritten term equals the pseudo-Boolean one."""
    xs = [z3.Bool(f"x{i}") for i in range(len(weights))]
    coefficients = [1] * len(xs) if unit else weights
    pairs = list(zip(xs, coefficients, strict=True))
    term = {"eq": lambda: z3.PbEq(pairs, k), "le": lambda: z3.PbLe(pairs, k),
            "ge": lambda: z3.PbGe(pairs, k), "most": lambda: z3.AtMost(*xs, max(k, 0)),
            "least": lambda: z3.AtLeast(*xs, max(k, 0))}[op]()
    (rewritten,) = cert.standard_terms([z3.Or(term, z3.Bool("y"))])
    assert "(_ " not in rewritten.sexpr()
    solver = z3.Solver()
    solver.add(rewritten != z3.Or(term, z3.Bool("y")))
    assert solver.check() == z3.unsat


def test_an_smtlib_certificate_is_standard_and_cvc5_reads_it(tmp_path: Path) -> None:
    deal = [z3.Bool(f"d{i}") for i in range(6)]
    text = cert.smtlib([z3.PbEq([(d, 1) for d in deal], 2), z3.AtLeast(*deal, 3)], ["test"])
    assert "pbeq" not in text
    assert "at-least" not in text
    assert text.splitlines()[1:3] == ["(set-info :smt-lib-version 2.6)", "(set-logic QF_LIA)"]
    path = tmp_path / "q.smt2"
    path.write_text(text)
    assert cert.cvc5_check(path) == "unsat"
    path.write_text(cert.smtlib([z3.PbEq([(d, 1) for d in deal], 2)], ["one assertion"]))
    assert cert.cvc5_check(path) == "sat"  # the check can fail


def test_a_file_cvc5_cannot_read_is_an_internal_error(tmp_path: Path) -> None:
    path = tmp_path / "q.smt2"
    path.write_text("(set-logic QF_LIA)\n(assert ((_ pbeq 1 1 1) a b))\n(check-sat)\n")
    with pytest.raises(ProofError, match="cannot read"):
        cert.cvc5_check(path)


# ----------------------------------------------------------------------------- prove

def _prove(tmp_path: Path, rules_name: str, names: list[str], players: tuple[int, ...],
           cvc5_seconds: float = cert.CVC5_SECONDS) -> tuple[list, dict, Path]:  # type: ignore[type-arg]
    """Prove with a certificate over a few player counts (the CLI does 3-8)."""
    rules = get_ruleset(rules_name)
    folder = cert.CertificateDir.open(str(tmp_path / "cert"))
    recorder = cert.ProofRecorder(folder, cvc5_seconds)
    workspace = Workspace(PlaySemantics.of(rules), players=players, recorder=recorder)
    try:
        results = cert.prove_manifest(recorder, prove(rules, names, workspace), {"test": True})
    finally:
        recorder.close()
    folder.commit()
    manifest = json.loads((tmp_path / "cert" / "manifest.json").read_text())
    return results, manifest, tmp_path / "cert"


def test_prove_certificate_files_are_rechecked_from_the_files(tmp_path: Path) -> None:
    names = ["kings-are-stops", "matrimony-needs-one-hand", "played-on-top"]
    results, manifest, folder = _prove(tmp_path, "hoyle-modernized", names, (3,))
    assert [r.status for r in results] == [Status.PROVED] * 3
    assert set(manifest["solvers"]) == {"z3", "cvc5", "python-sat", "dratify"}
    for claim in manifest["claims"]:
        assert claim["status"] == "proved"
        assert claim["rests_on"], claim["theorem"]
        for query in claim["rests_on"]:
            assert (query["z3"], query["cvc5"]) == ("unsat", "unsat")
            path = folder / query["file"]
            text = path.read_text()
            assert "(_ pb" not in text
            assert "(_ at-" not in text
            # read back by both solvers, independently of the recorder
            assert cert.cvc5_check(path) == "unsat"
            solver = z3.Solver()
            solver.add(z3.parse_smt2_file(str(path)))
            assert solver.check() == z3.unsat
    induction = {q["file"] for q in manifest["claims"][2]["rests_on"]}
    assert induction == {"invariant-3p.3p.invariant-at-outset.smt2",
                         "invariant-3p.3p.invariant-kept-by-a-lead.smt2"}
    assert not list(tmp_path.glob(".cert.partial-*"))


def test_a_query_cvc5_does_not_confirm_in_time_is_not_proved(tmp_path: Path) -> None:
    results, manifest, _ = _prove(tmp_path, "hoyle-modernized", ["played-on-top"], (3,),
                                  cvc5_seconds=0.001)
    assert results[0].status is Status.UNKNOWN
    assert "cvc5 did not confirm" in results[0].method
    assert manifest["claims"][0]["status"] == "unknown"


def test_a_refutation_keeps_its_replayed_deal_and_line(tmp_path: Path) -> None:
    results, manifest, folder = _prove(tmp_path, "parlett", ["kings-are-stops"], (3,))
    assert results[0].status is Status.REFUTED
    claim = manifest["claims"][0]
    deal = deal_from_json(json.loads((folder / claim["counterexample_deal"]).read_text()))
    position = Position.from_deal(deal)
    for step in claim["counterexample_line"]:  # the line replays through the rules model
        run, position = position.play(parse_card(step["lead"]))
        assert [card_name(c) for c in run.cards] == step["run"]
    king = claim["counterexample_line"][-1]["run"][:-1]  # a King the run went on past
    assert any(card.startswith("K") for card in king)
    deals = json.loads((folder / claim["deals_and_lines"]).read_text())["deals"]
    assert deals[0]["role"] == "counterexample"


def test_disagreeing_solvers_are_an_internal_error(tmp_path: Path) -> None:
    """A query z3 called unsat that the file shows satisfiable: never PROVED, status 4."""
    folder = cert.CertificateDir.open(str(tmp_path / "cert"))
    recorder = cert.ProofRecorder(folder)
    solver = z3.Solver()
    solver.add(z3.Bool("a"))
    with pytest.raises(ProofError, match="disagree"):
        recorder.unsat("some-theorem", solver, 3, "a-satisfiable-query", 0.0)
    recorder.close()
    folder.discard()


# ----------------------------------------------------------------------------- find

def _no_deal_query() -> FindQuery:
    """matrimony-always-paid around a fixed 8-player deal with six cards free: none exists,
    after 59 candidates each refuted by a line (so the CNF holds 59 lemmas)."""
    deal = deal_random(8, 0, HOYLE)
    free = sum(1 << c for c in (8, 37, 49, 4, 16, 7))
    hold = {s + 1: deal.hands[s] & ~free for s in range(8)}
    return FindQuery(Property.MATRIMONY_ALWAYS_PAID, HOYLE, 8, 1, hold, deal.dead & ~free)


@pytest.fixture(scope="module")
def none_certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("find") / "cert"
    result = cert.find_certified(_no_deal_query(), str(target), ["popejoan", "find", "test"])
    assert result.proved_none
    return target


def test_no_such_deal_is_a_drat_proof_that_checks(none_certificate: Path) -> None:
    manifest = json.loads((none_certificate / "manifest.json").read_text())
    none = manifest["claims"]["no_such_deal"]
    assert (none["solver_says"], none["checker_says"]) == ("unsat", "verified")
    cnf, proof = none_certificate / none["cnf"], none_certificate / none["proof"]
    assert cert.check_drat(cnf, proof)[0]
    lemmas = json.loads((none_certificate / none["lemmas"]).read_text())["lemmas"]
    assert len(lemmas) == 59
    for lemma in lemmas:  # each candidate's line replays: someone goes out, Matrimony unpaid
        assert lemma["verdict"] == "lacks the property"
        deal = deal_from_json(lemma["candidate"])
        position, played = Position.from_deal(deal), set()
        for step in lemma["line"]:
            run, position = position.play(parse_card(step["lead"]))
            played |= {card_name(c) for c in run.cards}
        assert run.winner is not None
        trumps = "CDHS"[deal.trumps]
        assert not {f"K{trumps}", f"Q{trumps}"} <= played


def _tampered(folder: Path, name: str, text: str) -> Path:
    path = folder / f"tampered-{name}"
    path.write_text(text)
    return path


def test_a_tampered_proof_fails_the_check(none_certificate: Path, tmp_path: Path) -> None:
    cnf = none_certificate / "matrimony-always-paid.none.cnf"
    lines = (none_certificate / "matrimony-always-paid.none.drat").read_text().splitlines()
    assert lines[-1] == "0"
    without_end = _tampered(tmp_path, "end.drat", "\n".join(lines[:-1]) + "\n")
    assert not cert.check_drat(cnf, without_end)[0]
    # an altered lemma: the first one added (not a deletion) with its first literal negated
    i = next(i for i, line in enumerate(lines) if not line.startswith("d") and line != "0")
    first, *rest = lines[i].split()
    altered = [*lines[:i], " ".join([str(-int(first)), *rest]), *lines[i + 1:]]
    assert not cert.check_drat(cnf, _tampered(tmp_path, "lemma.drat", "\n".join(altered)))[0]


def test_a_tampered_cnf_fails_the_check(none_certificate: Path, tmp_path: Path) -> None:
    """Dropping the last lemma lets a candidate deal back in: the formula is satisfiable,
    so no proof can check."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    lines = (none_certificate / "matrimony-always-paid.none.cnf").read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    _, _, top, count = lines[header].split()
    body = [*lines[:header], f"p cnf {top} {int(count) - 1}", *lines[header + 1:-1]]
    cnf = _tampered(tmp_path, "x.cnf", "\n".join(body) + "\n")
    with Solver(bootstrap_with=CNF(from_file=str(cnf)).clauses) as sat:
        assert sat.solve()
    assert not cert.check_drat(cnf, none_certificate / "matrimony-always-paid.none.drat")[0]


def test_a_found_deal_is_written_as_a_deal_file(tmp_path: Path) -> None:
    query = FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 8, 2, count=2)
    result = cert.find_certified(query, str(tmp_path / "cert"), ["popejoan", "find"])
    manifest = json.loads((tmp_path / "cert" / "manifest.json").read_text())
    assert manifest["claims"]["no_such_deal"] is None
    assert manifest["claims"]["no_more_deals"] is None  # not exhausted: no claim
    files = manifest["claims"]["deals_found"]
    assert len(files) == len(result.deals) == 2
    for name, deal in zip(files, result.deals, strict=True):
        assert deal_from_json(json.loads((tmp_path / "cert" / name).read_text())) == deal


def test_no_more_deals_is_proved_too(tmp_path: Path) -> None:
    """Every hand fixed: one deal, then "no more" (the found one blocked) with a proof."""
    hold = {1: 1 << parse_card("2H"),
            2: sum(1 << parse_card(c) for c in ("3H", "4H", "5H", "6H", "7H"))}
    (base,) = find_deals(FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 8, 2, hold)).deals
    query = FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 8, 2, dict(enumerate(base.hands, 1)),
                      count=3)
    result = cert.find_certified(query, str(tmp_path / "cert"), ["popejoan", "find"])
    assert len(result.deals) == 1
    manifest = json.loads((tmp_path / "cert" / "manifest.json").read_text())
    more = manifest["claims"]["no_more_deals"]
    assert more["checker_says"] == "verified"
    lemmas = json.loads((tmp_path / "cert" / more["lemmas"]).read_text())["lemmas"]
    assert [lemma["verdict"] for lemma in lemmas] == ["has the property"]


# ----------------------------------------------------------------------------- the command

def test_find_certificate_from_the_command_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "new" / "cert"
    (tmp_path / "new").mkdir()
    args = ["find", "first-lead-out", "--players", "8", "--seat", "2", "--hold", "1:2H",
            "--hold", "2:3H,4H,5H,6H,8H", "--dead", "7H", "--certificate", str(target)]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "no such deal exists" in out
    assert f"certificate: {target}" in out
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["command"] == ["popejoan", *args]
    assert manifest["claims"]["no_such_deal"]["checker_says"] == "verified"
    assert sorted(p.name for p in target.iterdir()) == [
        "first-lead-out.none.cnf", "first-lead-out.none.companion.cnf",
        "first-lead-out.none.drat", "first-lead-out.none.lemmas.json", "manifest.json"]
    claim = manifest["claims"]["no_such_deal"]
    assert claim["companion"] == "first-lead-out.none.companion.cnf"
    companion = deal_from_json(claim["companion_deal"])  # a deal the model reads
    assert companion.hands[0] >> parse_card("2H") & 1  # --hold 1:2H
    assert companion.dead >> parse_card("7H") & 1  # --dead 7H


def _refused(args: list[str]) -> str:
    """Run the command line in this process (the refusal is the command's, not the
    launcher's): status 2, nothing on standard output, one ``error:`` line; that line."""
    outcome = run_main(args)
    assert outcome.status == 2
    assert outcome.stdout == ""
    assert outcome.stderr.startswith("error: ")
    assert outcome.stderr.count("\n") == 1
    return outcome.stderr


@pytest.mark.parametrize("command", [["prove", "--theorem", "kings-are-stops"],
                                     ["find", "first-lead-out"]])
def test_certificate_folder_refusals(tmp_path: Path, command: list[str]) -> None:
    a_file = tmp_path / "file"
    a_file.write_text("x")
    full = tmp_path / "full"
    full.mkdir()
    (full / "keep.txt").write_text("x")
    for target, words in ((a_file, "is a file"), (full, "is not empty"),
                          (a_file / "sub", "no folder")):
        assert words in _refused([*command, "--certificate", str(target)])
    assert (full / "keep.txt").read_text() == "x"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "full"]


def test_a_folder_that_cannot_be_written_is_refused(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """(Permissions are not enforced for root, so the check itself is made to say no.)"""
    monkeypatch.setattr(os, "access", lambda _path, _mode: False)
    with pytest.raises(cert.CertificateError, match="not writable"):
        cert.CertificateDir.open(str(tmp_path / "cert"))
    assert list(tmp_path.iterdir()) == []


def test_a_refused_run_leaves_no_folder(tmp_path: Path) -> None:
    _refused(["prove", "--theorem", "nonexistent", "--certificate", str(tmp_path / "cert")])
    assert list(tmp_path.iterdir()) == []


def test_without_the_packages_certificate_is_refused(tmp_path: Path) -> None:
    """cvc5 hidden by a module that fails to import, as when it is not installed."""
    (tmp_path / "cvc5").mkdir()
    (tmp_path / "cvc5" / "__init__.py").write_text("raise ImportError('no cvc5')\n")
    outcome = run_cli(["find", "first-lead-out", "--certificate", str(tmp_path / "cert")],
                      env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert_contract(outcome, 2)
    assert "cvc5" in outcome.stderr
    assert "popejoan-solver[certificates]" in outcome.stderr
    assert not (tmp_path / "cert").exists()


def test_ctrl_c_during_the_checks_leaves_nothing(tmp_path: Path) -> None:
    """Interrupted while cvc5 checks a file: status 130 at once, no folder, no cvc5 left."""
    outcome = interrupt_cli(["prove", "--theorem", "kings-are-stops", "--certificate",
                             str(tmp_path / "cert")], after=0.2,
                            when=lambda: any(tmp_path.glob(".cert.partial-*/*.smt2")))
    assert_interrupted(outcome)
    assert list(tmp_path.iterdir()) == []
    assert_group_gone(outcome.pid, within=2)  # the cvc5 process (same group) is gone too


def test_a_disagreement_from_the_command_line_is_status_4(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """cvc5 made to answer sat (as a solver bug would): no verdict, status 4, no folder.
    (At 3 players: the first query is the one that disagrees.)"""
    monkeypatch.setattr(cert.Cvc5Process, "check", lambda _self, _path, _seconds: "sat")
    monkeypatch.setattr(cert, "Workspace", functools.partial(Workspace, players=(3,)))
    args = ["prove", "--theorem", "played-on-top", "--certificate", str(tmp_path / "cert")]
    assert main(args) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: internal error: z3 and cvc5 disagree on")
    assert len(captured.err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_a_rejected_drat_proof_from_the_command_line_is_status_4(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """dratify made to reject the proof: "no such deal" is not printed, status 4."""
    monkeypatch.setattr(cert, "check_drat", lambda _cnf, _proof: (False, "made to fail"))
    args = ["find", "first-lead-out", "--players", "8", "--seat", "2", "--hold", "1:2H",
            "--hold", "2:3H,4H,5H,6H,8H", "--dead", "7H", "--certificate", str(tmp_path / "c")]
    assert main(args) == 4
    captured = capsys.readouterr()
    assert "no such deal" not in captured.out
    assert "dratify rejects the proof" in captured.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_the_cvc5_process_starts_with_ctrl_c_blocked() -> None:
    """Ctrl-C reaches the whole process group; while the cvc5 process was still starting it
    printed a KeyboardInterrupt traceback under the parent's one line. Blocked from its start
    (multiprocessing's resource tracker, started on the way, unblocked it once)."""
    process = cert.Cvc5Process()
    try:
        status = Path(f"/proc/{process._process.pid}/status").read_text()
        blocked = int(next(line.split()[1] for line in status.splitlines()
                           if line.startswith("SigBlk:")), 16)
        assert blocked >> (signal.SIGINT - 1) & 1
    finally:
        process.close()
