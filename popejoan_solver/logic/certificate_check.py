"""``popejoan certificate check DIR``: a certificate folder re-checked, each file bound to its
claim.

What is checked: the SHA-256 of every file against the manifest (and no file unlisted); for
``prove``, each query's opening comment names the theorem, player count and query the
manifest lists it under, its three ``:named`` parts are there in order, its companion is the
same text without the negated claim, the query is unsat for z3 (in this process) and cvc5 (if
installed), the companion is sat and its model decodes to a deal the rules model deals and
plays out, and every replayed deal and line replays; for ``find``, each CNF names every
variable, its lemmas are the ones its lemma file lists, and its DRUP proof checks (dratify, if
installed). See ``docs/proofs.md``, "Certificates".
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import z3

from ..model.cards import format_cards, parse_card
from ..model.deal import Deal
from ..model.errors import PopeJoanError, clip
from ..model.notation import deal_from_json
from ..model.play import Position
from ..model.rules import Ruleset, get_ruleset
from .certificates import (
    COMPANION,
    MANIFEST,
    PARTS,
    CertificateError,
    Cvc5Process,
    Memo,
    check_drat,
    cnf_deal,
    installed,
    named_parts,
    numbered_name,
    play_out,
    query_comment,
    scope_name,
    sha256_of,
    smtlib_named,
)
from .encoding import SymbolicDeal
from .prover import (
    PLAYER_COUNTS,
    Counterexample,
    ProofError,
    SharedKey,
    Workspace,
    check_sat,
)
from .semantics import PlaySemantics

Z3_SECONDS: Final = 300.0
"""z3's time per query or companion (the rewritten queries are slower for z3 than as
encoded: docs/proofs.md, "Measured")."""
CVC5_SECONDS: Final = 120.0
KINDS: Final = ("popejoan prove", "popejoan find")


@dataclass(frozen=True)
class Finding:
    """One check of one file: whether it holds, and what was checked or what failed."""

    file: str
    ok: bool
    what: str
    skipped: bool = False
    """Not checked (a checker not installed): neither holds nor fails."""

    def to_json(self) -> dict[str, Any]:
        status = "skipped" if self.skipped else "ok" if self.ok else "failed"
        return {"file": self.file, "status": status, "what": self.what}


@dataclass
class CheckReport:
    """Every finding of a folder's check."""

    folder: str
    kind: str
    ruleset: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def holds(self) -> bool:
        return all(f.ok or f.skipped for f in self.findings)

    def add(self, file: str, ok: bool, what: str, skipped: bool = False) -> None:
        self.findings.append(Finding(file, ok, what, skipped))


def load_manifest(folder: Path) -> dict[str, Any]:
    """The manifest of a certificate folder; a :class:`CertificateError` (bad input) when the
    folder is not one."""
    if not folder.is_dir():
        raise CertificateError(f"{clip(str(folder), 300)!r} is not a folder")
    path = folder / MANIFEST
    if not path.is_file():
        raise CertificateError(f"{clip(str(folder), 300)!r} has no {MANIFEST}: not a "
                               "certificate")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CertificateError(f"{MANIFEST} is not JSON: {clip(str(exc), 120)}") from None
    if not isinstance(data, dict) or data.get("certificate") not in KINDS:
        raise CertificateError(f"{MANIFEST} is not a popejoan certificate's manifest")
    return data


def check_certificate(directory: str, use_cvc5: bool = True,
                      regenerate: bool = True) -> CheckReport:
    """Re-check the certificate in ``directory`` (see the module's docstring); with
    ``regenerate``, a ``prove`` certificate's queries are asked again by the tool
    (:func:`_regenerate`)."""
    folder = Path(directory)
    manifest = load_manifest(folder)
    report = CheckReport(directory, manifest["certificate"], str(manifest.get("ruleset")))
    _check_hashes(folder, manifest, report)
    try:
        rules = get_ruleset(str(manifest.get("ruleset")))
    except PopeJoanError as exc:
        report.add(MANIFEST, False, f"its ruleset is none the tool knows: {exc}")
        return report
    try:
        if report.kind == "popejoan prove":
            _check_prove(folder, manifest, rules, report, use_cvc5)
            if regenerate:
                _regenerate(folder, manifest, rules, report)
        else:
            _check_find(folder, manifest, rules, report)
    except MALFORMED as exc:  # a manifest or a file not as written: a failed check
        report.add(MANIFEST, False, f"the folder is not as the tool writes it: "
                   f"{type(exc).__name__}: {clip(str(exc), 160)}")
    return report


MALFORMED: Final = (AttributeError, KeyError, TypeError, ValueError, UnicodeDecodeError,
                    OSError)
"""What a manifest or file altered by hand raises when read (JSON of the wrong shape, text
that is not UTF-8, a name that is no file)."""


def _safe_name(name: object) -> bool:
    """A plain file name inside the folder (no path, not hidden)."""
    return isinstance(name, str) and bool(name) and "/" not in name and "\\" not in name \
        and not name.startswith(".")


def _check_hashes(folder: Path, manifest: dict[str, Any], report: CheckReport) -> None:
    listed = manifest.get("files")
    if not isinstance(listed, dict) or not listed:
        report.add(MANIFEST, False, "no SHA-256 of the files (key 'files')")
        return
    present = {p.name for p in folder.iterdir() if p.is_file() and p.name != MANIFEST}
    for name, digest in sorted(listed.items()):
        if not _safe_name(name) or name not in present:
            report.add(str(name), False, "listed in the manifest, but not in the folder")
        elif sha256_of(folder / name) != digest:
            report.add(name, False, "its SHA-256 is not the manifest's: the file was changed")
    for name in sorted(present - set(listed)):
        report.add(name, False, "not listed in the manifest's hashes")
    if all(f.ok for f in report.findings):
        report.add(MANIFEST, True, f"the SHA-256 of all {len(listed)} files match")


# ----------------------------------------------------------------------------- prove

def _records(manifest: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every query a claim rests on, once (shared work is listed under each claim)."""
    seen: set[str] = set()
    for claim in manifest.get("claims") or []:
        for record in claim.get("rests_on") or []:
            name = record.get("file")
            if isinstance(name, str) and name not in seen:
                seen.add(name)
                yield str(claim.get("theorem")), record


def _check_prove(folder: Path, manifest: dict[str, Any], rules: Ruleset, report: CheckReport,
                 use_cvc5: bool) -> None:
    semantics = PlaySemantics.of(rules)
    cvc5 = Cvc5Process() if use_cvc5 and installed("cvc5") else None
    try:
        for _theorem, record in _records(manifest):
            name = str(record.get("file"))
            if not _safe_name(name) or not (folder / name).is_file():
                report.add(name, False, "a query the manifest lists is missing")
                continue
            _check_query(folder, record, semantics, report, cvc5)
    finally:
        if cvc5 is not None:
            cvc5.close()
    for claim in manifest.get("claims") or []:
        _check_deals(folder, claim, report)


@dataclass
class _Regenerated:
    """A recorder for a ``prove`` run that compares each unsat query it is told of with the
    file of the same name: the same assertions, term for term (z3 parses both)."""

    folder: Path
    wanted: set[str]
    same: dict[str, bool] = field(default_factory=dict)
    _names: set[str] = field(default_factory=set)
    _memo: Memo = field(default_factory=dict)

    def unsat(self, scope: SharedKey | str, solver: z3.Solver, players: int, query: str,
              seconds: float, deal_frame: int = 0) -> None:
        name = numbered_name(self._names, scope_name(scope), players, query)
        if name not in self.wanted:
            return
        text = smtlib_named(named_parts(solver.assertions(), deal_frame), [], [],
                            self._memo).query
        self.same[name] = _same_terms(text, (self.folder / name).read_text(encoding="utf-8"))

    def witness(self, scope: str, example: Counterexample, role: str) -> None:
        """Deals and lines are replayed by :func:`_check_deals`."""


def _same_terms(ours: str, theirs: str) -> bool:
    try:
        mine, other = z3.parse_smt2_string(ours), z3.parse_smt2_string(theirs)
    except z3.Z3Exception:
        return False
    return len(mine) == len(other) and all(a.eq(b) for a, b in zip(mine, other, strict=True))


def _regenerate(folder: Path, manifest: dict[str, Any], rules: Ruleset,
                report: CheckReport) -> None:
    """Run the manifest's theorems again under its ruleset, for the player counts its
    queries are about, and compare every query the run asks with the file (a query whose
    claim, comment and hash were all rewritten to match is still caught here)."""
    from .theorems import prove

    records = [record for _, record in _records(manifest)]
    wanted = {str(r.get("file")) for r in records if _safe_name(r.get("file"))
              and (folder / str(r.get("file"))).is_file()}
    players = tuple(sorted({int(r.get("players", 0)) for r in records}))
    names = [str(c.get("theorem")) for c in manifest.get("claims") or []]
    if not players or not set(players) <= set(PLAYER_COUNTS):
        report.add(MANIFEST, False, f"its queries are about {players} players, not 3-8")
        return
    regenerated = _Regenerated(folder, wanted)
    try:
        workspace = Workspace(PlaySemantics.of(rules), players=players, recorder=regenerated)
        prove(rules, names, workspace)
    except (PopeJoanError, ProofError) as exc:
        report.add(MANIFEST, False, f"the proofs cannot be run again: {clip(str(exc), 160)}")
        return
    for name in sorted(wanted):
        same = regenerated.same.get(name)
        report.add(name, bool(same), "regenerated from the manifest's ruleset: the same query"
                   if same else "not the query the tool asks for this claim under the "
                   "manifest's ruleset" if same is not None else
                   "the tool, run again, asks no such query")


def _script(path: Path) -> tuple[list[str], list[str]]:
    """A script's comment lines (without '; ') and its other lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    comments = [line[2:] for line in lines if line.startswith("; ")]
    return comments, [line for line in lines if not line.startswith(";")]


_NAMED = re.compile(r"^ :named ([a-z-]+)\)\)$", re.MULTILINE)


def _check_query(folder: Path, record: dict[str, Any], semantics: PlaySemantics,
                 report: CheckReport, cvc5: Cvc5Process | None) -> None:
    """One query and its companion: bound to the claim, unsat, companion sat and replayed."""
    name = str(record["file"])
    companion = str(record.get("companion") or name.removesuffix(".smt2") + COMPANION)
    comments, body = _script(folder / name)
    expected = query_comment(str(record.get("scope")), int(record.get("players", 0)),
                             str(record.get("query")))[0]
    if not comments or comments[0] != expected:
        report.add(name, False, f"its opening comment is not the manifest's claim "
                   f"({expected!r})")
        return
    names = _NAMED.findall("\n".join(body))
    if tuple(names) != PARTS:
        report.add(name, False, f"its assertions are not the named parts {', '.join(PARTS)} "
                   f"(found: {', '.join(names) or 'none'})")
        return
    if not (folder / companion).is_file():
        report.add(name, False, f"its companion {companion} is missing")
        return
    _, companion_body = _script(folder / companion)
    if companion_body != _without_claim(body):
        report.add(companion, False, f"not the text of {name} without its negated claim")
        return
    _solve(folder, name, companion, int(record.get("players", 0)), semantics, report, cvc5)


def _without_claim(body: list[str]) -> list[str]:
    """The script's lines without the last assertion (the negated claim's)."""
    start = max(i for i, line in enumerate(body) if line.startswith("(assert"))
    end = next(i for i, line in enumerate(body) if line.startswith("(check-sat"))
    return body[:start] + body[end:]


def _z3_answer(path: Path) -> tuple[str, z3.ModelRef | None]:
    """z3's answer to a file (parsed by z3 itself), and its model when sat."""
    solver = z3.Solver()
    solver.set("timeout", round(Z3_SECONDS * 1000))
    try:
        solver.from_file(str(path))
    except z3.Z3Exception as exc:
        return f"unreadable ({clip(str(exc), 120)})", None
    result = check_sat(solver)
    return str(result), solver.model() if result == z3.sat else None


def _solve(folder: Path, name: str, companion: str, players: int, semantics: PlaySemantics,
           report: CheckReport, cvc5: Cvc5Process | None) -> None:
    answer, _ = _z3_answer(folder / name)
    report.add(name, answer == "unsat", f"z3: {answer}")
    if cvc5 is not None:
        try:
            verdict = cvc5.check((folder / name).resolve(), CVC5_SECONDS)
        except ProofError as exc:  # cvc5 cannot read it
            verdict = f"unreadable ({clip(str(exc), 120)})"
        report.add(name, verdict == "unsat", f"cvc5: {verdict}")
    else:
        report.add(name, False, "cvc5: not used (not installed, or not asked)", skipped=True)
    answer, model = _z3_answer(folder / companion)
    if model is None:
        report.add(companion, False, f"z3: {answer} (a companion must be sat: its premises "
                   "are contradictory, so the query's unsat says nothing)")
        return
    report.add(companion, *_replayed(model, semantics, players))


def _replayed(model: z3.ModelRef, semantics: PlaySemantics, players: int) -> tuple[bool, str]:
    """The companion's model decoded as a deal, which the rules model must deal and play."""
    decoded = SymbolicDeal(semantics, players).decode(model)
    try:
        deal = Deal.create(decoded.hands, decoded.dead, decoded.turnup, semantics.rules)
        position = Position.from_deal(deal)
        leads = 0
        while not position.is_over and position.legal_leads():
            _, position = position.play(position.legal_leads()[0])
            leads += 1
    except PopeJoanError as exc:
        return False, (f"z3: sat, but its model is no deal of the rules model: "
                       f"{clip(str(exc), 160)} (hands "
                       f"{' / '.join(format_cards(h) for h in decoded.hands)})")
    return True, (f"z3: sat; its model is a deal the rules model deals and plays out "
                  f"({leads} leads)")


def _check_deals(folder: Path, claim: dict[str, Any], report: CheckReport) -> None:
    """Every deal and line of a claim's ``.deals.json``, replayed through the rules model."""
    name = claim.get("deals_and_lines")
    if not name:
        return
    if not _safe_name(name) or not (folder / str(name)).is_file():
        report.add(str(name), False, "a file of deals the manifest lists is missing")
        return
    try:
        data = json.loads((folder / str(name)).read_text(encoding="utf-8"))
        for entry in data["deals"]:
            _replay_line(deal_from_json(entry["deal"]), entry["line"])
    except (PopeJoanError, KeyError, TypeError, ValueError) as exc:
        report.add(str(name), False, f"a deal and line the rules model does not replay: "
                   f"{clip(str(exc), 160)}")
        return
    report.add(str(name), True, f"{len(data['deals'])} deal(s) and line(s) replayed")


def _replay_line(deal: Deal, line: list[dict[str, Any]]) -> None:
    """Play ``line`` (each lead and the cards of its run) from ``deal``'s outset."""
    position = Position.from_deal(deal)
    for step in line:
        lead = parse_card(step["lead"])
        if lead not in position.legal_leads():
            raise ValueError(f"{step['lead']} is not a legal lead there")
        cards = [parse_card(c) for c in step.get("run", [step["lead"]])]
        runs = [r for r in position.outcomes(lead) if list(r.cards) == cards]
        if not runs:
            raise ValueError(f"the run {' '.join(step.get('run', []))} is none of the model's")
        position = position.after(runs[0])


# ----------------------------------------------------------------------------- find

def _check_find(folder: Path, manifest: dict[str, Any], rules: Ruleset,
                report: CheckReport) -> None:
    claims = manifest.get("claims") or {}
    for key in ("no_such_deal", "no_more_deals"):
        entry = claims.get(key)
        if isinstance(entry, dict):
            _check_cnf(folder, entry, report, rules, int(manifest["players"]))
    for name in claims.get("deals_found") or []:
        _check_file(folder, str(name), report, lambda text: deal_from_json(json.loads(text)),
                    "a deal file the rules model reads")


def _check_file(folder: Path, name: str, report: CheckReport, read: Callable[[str], object],
                what: str) -> None:
    try:
        read((folder / name).read_text(encoding="utf-8"))
    except (OSError, PopeJoanError, ValueError) as exc:
        report.add(name, False, f"not {what}: {clip(str(exc), 160)}")
        return
    report.add(name, True, what)


_VAR = re.compile(r"^c var (\d+) \S")
_SPLIT = re.compile(r"^c clauses 1-(\d+): the encoding; clauses (\d+)-(\d+): lemmas")


def _check_cnf(folder: Path, entry: dict[str, Any], report: CheckReport, rules: Ruleset,
               players: int) -> None:
    """A "no such deal" CNF: every variable named, its lemmas those of its lemma file, its
    companion (the deal's clauses alone) satisfiable by a deal the rules model deals and
    plays out, and its DRUP proof checked (dratify)."""
    cnf, proof, lemmas = (str(entry.get(k)) for k in ("cnf", "proof", "lemmas"))
    for name in (cnf, proof, lemmas):
        if not _safe_name(name) or not (folder / name).is_file():
            report.add(name, False, "a file the manifest lists is missing")
            return
    lines = (folder / cnf).read_text(encoding="ascii", errors="replace").splitlines()
    named = {int(m.group(1)) for line in lines if (m := _VAR.match(line))}
    clauses = [line for line in lines if line and not line.startswith(("c", "p"))]
    used = {abs(int(t)) for line in clauses for t in line.split() if t not in ("0", "")}
    if used - named:
        report.add(cnf, False, f"{len(used - named)} variable(s) without a name (c var)")
        return
    split = next((m for line in lines if (m := _SPLIT.match(line))), None)
    listed = json.loads((folder / lemmas).read_text(encoding="utf-8")).get("lemmas", [])
    encoding = int(split.group(1)) if split else -1
    if split is None or len(clauses) != encoding + len(listed) or any(
            lemma.get("clause") != encoding + 1 + i for i, lemma in enumerate(listed)):
        report.add(cnf, False, f"its clauses are not the encoding's and the {len(listed)} "
                   f"lemma(s) of {lemmas}: a clause was added or removed")
        return
    report.add(cnf, True, f"every variable named; {encoding} clauses of the encoding and "
               f"{len(listed)} lemma(s), each listed in {lemmas}")
    if entry.get("companion"):
        _check_cnf_companion(folder, str(entry["companion"]), lines, rules, players, report)
    if not installed("dratify"):
        report.add(proof, False, "dratify is not installed: the proof is not checked",
                   skipped=True)
        return
    ok, reason = check_drat(folder / cnf, folder / proof)
    report.add(proof, ok, "dratify: verified" if ok else f"dratify: {clip(reason, 160)}")


_DEAL_PART = re.compile(r"^c clauses 1-(\d+): the deal ")


def _dimacs(lines: list[str]) -> tuple[dict[int, str], list[tuple[int, ...]]]:
    """A DIMACS file's variable names (``c var``) and clauses."""
    names = {int(m.group(1)): line.split(maxsplit=3)[3]
             for line in lines if (m := _VAR.match(line))}
    clauses = [tuple(int(t) for t in line.split() if t != "0")
               for line in lines if line and not line.startswith(("c", "p"))]
    return names, clauses


def _check_cnf_companion(folder: Path, name: str, cnf_lines: list[str], rules: Ruleset,
                         players: int, report: CheckReport) -> None:
    """The companion: the CNF's first clauses (as many as its ``the deal`` line says) and
    no other, every variable named as in the CNF, satisfiable (python-sat), and its model a
    deal the rules model deals and plays out."""
    if not _safe_name(name) or not (folder / name).is_file():
        report.add(name, False, "a file the manifest lists is missing")
        return
    part = next((m for line in cnf_lines if (m := _DEAL_PART.match(line))), None)
    names, clauses = _dimacs(cnf_lines)
    own_names, own = _dimacs((folder / name).read_text(encoding="ascii",
                                                       errors="replace").splitlines())
    if part is None or own != clauses[:int(part.group(1))]:
        report.add(name, False, "its clauses are not the CNF's first clauses (the deal)")
        return
    used = {abs(lit) for clause in own for lit in clause}
    if any(own_names.get(v) != names.get(v) or v not in names for v in used):
        report.add(name, False, "its variables are not named as in the CNF")
        return
    from pysat.solvers import Solver

    with Solver(name="glucose4", bootstrap_with=own) as sat:
        model = sat.get_model() if sat.solve() else None
    if model is None:
        report.add(name, False, "python-sat: unsat, must be sat (the deal's clauses are "
                   "contradictory: the proof says nothing)")
        return
    try:
        leads = play_out(cnf_deal(names, model, rules, players))
    except PopeJoanError as exc:
        report.add(name, False, f"python-sat: sat, but its model is no deal of the rules "
                   f"model: {clip(str(exc), 160)}")
        return
    report.add(name, True, f"python-sat: sat; its model is a deal the rules model deals and "
               f"plays out ({leads} leads)")


__all__ = ["CheckReport", "Finding", "check_certificate", "load_manifest"]
