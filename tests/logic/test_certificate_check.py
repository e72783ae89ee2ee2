"""``popejoan certificate check DIR``: every file of a certificate bound to its claim. A query
emptied to ``(assert false)``, a query copied from another theorem, a hash changed and a
bogus clause added to a CNF are each caught, even when the manifest's hashes are updated to
match (a forger can do that much)."""

from __future__ import annotations

import functools
import hashlib
import json
import shutil
from pathlib import Path

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic import certificate_check
from popejoan_solver.logic import certificates as cert
from popejoan_solver.logic.certificate_check import check_certificate
from popejoan_solver.logic.find import FindQuery, Property
from popejoan_solver.logic.prover import Workspace
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset
from tests.logic.validated_once import Validations, validate_once

HOYLE = get_ruleset("hoyle-modernized")
POPE_QUERY = "pope-only-led.3p.one-lead.smt2"
KINGS_QUERY = "kings-are-stops.3p.one-lead.smt2"


@pytest.fixture(scope="module")
def validations() -> Validations:
    """The encoding validated once in this module (no test here patches the encoding or the
    model): by the certificate's prove, its report then handed to the checks' regenerating
    runs (tests/logic/validated_once.py)."""
    return {}


@pytest.fixture(scope="module")
def prove_certificate(tmp_path_factory: pytest.TempPathFactory,
                      validations: Validations) -> Path:
    """Two one-lead theorems and a settlement theorem, 3 players only (quick)."""
    target = tmp_path_factory.mktemp("prove") / "cert"
    with pytest.MonkeyPatch.context() as patch:
        validate_once(patch, validations)
        patch.setattr(cert, "Workspace", functools.partial(Workspace, players=(3,)))
        cert.prove_certified(HOYLE, ["pope-only-led", "kings-are-stops",
                                     "matrimony-needs-one-hand"], str(target),
                             ["popejoan", "prove"])
    return target


@pytest.fixture(scope="module")
def find_certificate(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """matrimony-always-paid around a fixed 8-player deal with six cards free: no such deal,
    with 59 lemmas in its CNF."""
    deal = deal_random(8, 0, HOYLE)
    free = sum(1 << c for c in (8, 37, 49, 4, 16, 7))
    hold = {s + 1: deal.hands[s] & ~free for s in range(8)}
    query = FindQuery(Property.MATRIMONY_ALWAYS_PAID, HOYLE, 8, 1, hold, deal.dead & ~free)
    target = tmp_path_factory.mktemp("find") / "cert"
    assert cert.find_certified(query, str(target), ["popejoan", "find"]).proved_none
    return target


Answer = tuple[str, z3.ModelRef | None]


@pytest.fixture(scope="module")
def z3_answers() -> dict[bytes, Answer]:
    return {}


@pytest.fixture(autouse=True)
def _each_text_solved_once(z3_answers: dict[bytes, Answer], validations: Validations,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    """z3's answer to a file (and its model) depends on the file's text alone: the files a
    test leaves as written (most of every tampered copy) are solved once in this module, not
    once per copy; a tampered file is a new text, solved afresh. The same for the encoding's
    validation before a regenerating run's first proof."""
    validate_once(monkeypatch, validations)
    real = certificate_check._z3_answer

    def answer(path: Path) -> Answer:
        text = path.read_bytes()
        if text not in z3_answers:
            z3_answers[text] = real(path)
        return z3_answers[text]

    monkeypatch.setattr(certificate_check, "_z3_answer", answer)


def _copy(folder: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(folder, tmp_path / "copy"))


def _rehash(folder: Path) -> None:
    """What a forger does after changing a file: the manifest's hash made to match."""
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    manifest["files"] = {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
                         for name in manifest["files"]}
    path.write_text(json.dumps(manifest))


def _failures(folder: Path, regenerate: bool = False) -> dict[str, list[str]]:
    """The failed checks by file, without cvc5 and, unless a test is about it, without
    asking the queries again (each file check is independent of both)."""
    report = check_certificate(str(folder), use_cvc5=False, regenerate=regenerate)
    failed: dict[str, list[str]] = {}
    for finding in report.findings:
        if not finding.ok and not finding.skipped:
            failed.setdefault(finding.file, []).append(finding.what)
    assert report.holds is not bool(failed)
    return failed


def test_a_certificate_as_written_holds(prove_certificate: Path, find_certificate: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((prove_certificate / "manifest.json").read_text())
    assert set(manifest["files"]) == {p.name for p in prove_certificate.iterdir()} - {
        "manifest.json"}
    text = (prove_certificate / POPE_QUERY).read_text()
    assert [line for line in text.splitlines() if line.startswith(" :named")] == [
        " :named deal-frame))", " :named rules))", " :named negated-claim))"]
    assert main(["certificate", "check", str(prove_certificate)]) == 0  # cvc5 too
    out = capsys.readouterr().out
    assert "cvc5: unsat" in out
    assert "0 failed: every claim holds" in out
    assert "a deal the rules model deals and plays out" in out
    assert main(["certificate", "check", str(find_certificate), "--json"]) == 0
    checks = json.loads(capsys.readouterr().out)["checks"]
    assert {c["what"] for c in checks} >= {"dratify: verified"}
    assert any(c["file"].endswith(".companion.cnf") and c["what"].startswith(
        "python-sat: sat; its model is a deal the rules model deals and plays out")
        for c in checks)


def _companion_lines(folder: Path) -> tuple[Path, list[str]]:
    (companion,) = folder.glob("*.companion.cnf")
    return companion, companion.read_text().splitlines()


def test_a_companion_made_contradictory_is_caught(find_certificate: Path,
                                                  tmp_path: Path) -> None:
    """The deal's clauses and the CNF's first clauses both given a contradiction (a forger
    keeping them equal, the hashes matched): the CNF still has its proof, the companion is
    unsat, so the "no such deal" says nothing."""
    folder = _copy(find_certificate, tmp_path)
    (cnf,) = folder.glob("*.none.cnf")
    companion, lines = _companion_lines(folder)
    first = next(i for i, line in enumerate(lines) if line and not line.startswith(("c", "p")))
    var = lines[first].split()[0].lstrip("-")
    for path in (cnf, companion):  # "v" and "-v" in place of the first two deal clauses
        text = path.read_text().splitlines()
        at = next(i for i, line in enumerate(text) if line and not line.startswith(("c", "p")))
        text[at], text[at + 1] = f"{var} 0", f"-{var} 0"
        path.write_text("\n".join(text) + "\n")
    _rehash(folder)
    failed = _failures(folder)
    assert any("unsat, must be sat" in what for what in failed[companion.name])


def test_a_companion_that_is_not_the_deal_part_is_caught(find_certificate: Path,
                                                         tmp_path: Path) -> None:
    """A clause dropped from the companion only (the hashes matched)."""
    folder = _copy(find_certificate, tmp_path)
    companion, lines = _companion_lines(folder)
    last = max(i for i, line in enumerate(lines) if line and not line.startswith(("c", "p")))
    companion.write_text("\n".join(lines[:last] + lines[last + 1:]) + "\n")
    _rehash(folder)
    failed = _failures(folder)
    assert "not the CNF's first clauses" in failed[companion.name][0]


def test_a_companion_whose_model_is_no_deal_is_caught(find_certificate: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoding checked: with a seat's variables read as another seat's, the model is
    no deal of the rules model (two hands of one seat merged)."""
    real = cert.cnf_deal  # the function certificate_check calls by that name

    def merged(names: dict[int, str], *args: object) -> object:
        moved = {v: n.replace(",2]", ",1]") for v, n in names.items()}
        return real(moved, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(certificate_check, "cnf_deal", merged)
    failed = _failures(_copy(find_certificate, tmp_path))
    (name,) = [n for n in failed if n.endswith(".companion.cnf")]
    assert "no deal of the rules model" in failed[name][0]


@pytest.mark.parametrize("rehash", [False, True])
def test_a_query_emptied_to_false_is_caught(prove_certificate: Path, tmp_path: Path,
                                            rehash: bool) -> None:
    folder = _copy(prove_certificate, tmp_path)
    path = folder / POPE_QUERY
    comments = [line for line in path.read_text().splitlines() if line.startswith(";")]
    path.write_text("\n".join([*comments, "(set-logic QF_LIA)", "(assert false)",
                               "(check-sat)", "(exit)"]) + "\n")
    if rehash:
        _rehash(folder)
    failed = _failures(folder)
    assert POPE_QUERY in failed
    if rehash:
        assert "not the named parts" in failed[POPE_QUERY][0]


def test_a_query_emptied_with_its_companion_is_caught(prove_certificate: Path,
                                                      tmp_path: Path) -> None:
    """Both files kept consistent (named parts, companion = query without the claim), but
    the premises made contradictory: the companion is unsat, so the proof says nothing."""
    folder = _copy(prove_certificate, tmp_path)
    companion = POPE_QUERY.replace(".smt2", ".companion.smt2")
    for name, claim in ((POPE_QUERY, True), (companion, False)):
        path = folder / name
        comments = [line for line in path.read_text().splitlines() if line.startswith(";")]
        body = ["(set-logic QF_LIA)", "(assert (! false\n :named deal-frame))",
                "(assert (! true\n :named rules))"]
        body += ["(assert (! true\n :named negated-claim))"] if claim else []
        path.write_text("\n".join([*comments, *body, "(check-sat)", "(exit)"]) + "\n")
    _rehash(folder)
    failed = _failures(folder)
    assert any("must be sat" in what for what in failed[companion])


def test_a_query_swapped_for_another_theorems_is_caught(prove_certificate: Path,
                                                        tmp_path: Path) -> None:
    folder = _copy(prove_certificate, tmp_path)
    for suffix in (".smt2", ".companion.smt2"):
        shutil.copy(folder / KINGS_QUERY.replace(".smt2", suffix),
                    folder / POPE_QUERY.replace(".smt2", suffix))
    assert POPE_QUERY in _failures(folder)  # by its hash
    _rehash(folder)
    failed = _failures(folder)
    assert list(failed) == [POPE_QUERY]
    assert "opening comment is not the manifest's claim" in failed[POPE_QUERY][0]


def _claim_block(text: str) -> tuple[int, int, list[str]]:
    lines = text.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("(assert"))
    end = next(i for i, line in enumerate(lines) if line.startswith("(check-sat"))
    return start, end, lines


def test_a_claim_rewritten_consistently_is_caught_by_regenerating(
        prove_certificate: Path, tmp_path: Path) -> None:
    """Pope's query given the Kings' negated claim, its comment, companion and hash left
    consistent: every check of the files alone passes (it is unsat, its companion sat), and
    only the tool, asking the query again under the manifest's ruleset, sees it."""
    folder = _copy(prove_certificate, tmp_path)
    _, _, kings = _claim_block((folder / KINGS_QUERY).read_text())
    k_start, k_end, _ = _claim_block((folder / KINGS_QUERY).read_text())
    start, end, lines = _claim_block((folder / POPE_QUERY).read_text())
    lines[start:end] = kings[k_start:k_end]
    (folder / POPE_QUERY).write_text("\n".join(lines) + "\n")
    _rehash(folder)
    failed = _failures(folder, regenerate=True)  # the one failure: every file check holds
    assert failed == {POPE_QUERY: ["not the query the tool asks for this claim under the "
                                   "manifest's ruleset"]}


def test_a_changed_hash_is_caught(prove_certificate: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(prove_certificate, tmp_path)
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text())
    digest = manifest["files"][KINGS_QUERY]
    manifest["files"][KINGS_QUERY] = ("0" if digest[0] != "0" else "1") + digest[1:]
    path.write_text(json.dumps(manifest))
    assert main(["certificate", "check", str(folder), "--no-cvc5", "--no-regenerate"]) == 1
    out = capsys.readouterr().out
    assert f"FAIL  {KINGS_QUERY}: its SHA-256 is not the manifest's" in out
    assert out.endswith("some claims do NOT hold\n")


@pytest.mark.parametrize("rehash", [False, True])
def test_a_bogus_clause_added_to_a_cnf_is_caught(find_certificate: Path, tmp_path: Path,
                                                 rehash: bool) -> None:
    """The added clause keeps the CNF unsatisfiable and the proof checking; the hash, and
    the lemma file (which lists no such lemma), show it."""
    folder = _copy(find_certificate, tmp_path)
    (cnf,) = folder.glob("*.none.cnf")
    lines = cnf.read_text().splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("p cnf"))
    _, _, top, count = lines[header].split()
    lines[header] = f"p cnf {top} {int(count) + 1}"
    cnf.write_text("\n".join([*lines, "1 2 0"]) + "\n")
    if rehash:
        _rehash(folder)
    failed = _failures(folder)
    assert cnf.name in failed
    if rehash:
        assert "a clause was added or removed" in failed[cnf.name][0]


@pytest.mark.parametrize("setup", ["missing", "empty", "not-json", "other-json"])
def test_a_folder_that_is_no_certificate_is_bad_input(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str) -> None:
    folder = tmp_path / "dir"
    if setup != "missing":
        folder.mkdir()
    if setup == "not-json":
        (folder / "manifest.json").write_text("{")
    if setup == "other-json":
        (folder / "manifest.json").write_text('{"certificate": "someone else"}')
    assert main(["certificate", "check", str(folder)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ")
    assert captured.err.count("\n") == 1


def test_a_file_altered_out_of_shape_is_a_failed_check(
        find_certificate: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lemma file that is no longer JSON: a failed check (status 1), never a traceback."""
    folder = _copy(find_certificate, tmp_path)
    (lemmas,) = folder.glob("*.lemmas.json")
    lemmas.write_text("{")
    _rehash(folder)
    assert main(["certificate", "check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "FAIL  manifest.json: the folder is not as the tool writes it: JSONDecodeError" in out
