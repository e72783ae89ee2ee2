"""Certificates: what a sceptic needs to re-check ``prove`` and ``find`` without this tool.

``prove``: every query z3 answers *unsat* is written as a standard SMT-LIB 2.6 file (z3's
pseudo-Boolean terms, which other solvers reject, rewritten as Boolean counters), and that file
itself is parsed and solved by cvc5; a claim is proved only when both say unsat. ``find``: a
"no such deal" claim is written as DIMACS CNF with a DRUP proof from a proof-logging SAT solver,
checked by dratify before the verdict is printed. Witnesses and counterexamples are written as
deals and lines, replayed through the rules model. See ``docs/proofs.md``, "Certificates".
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import re
import shutil
import signal
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any, Final

import z3

from ..model.cards import parse_card
from ..model.deal import Deal
from ..model.errors import DealError, PopeJoanError, clip
from ..model.notation import deal_to_json
from ..model.play import Position
from ..model.rules import Ruleset, rules_json
from .find import DESCRIPTIONS, FindFormula, FindProgress, FindQuery, FindResult, find_deals
from .prover import Counterexample, ProofError, SharedKey, Status, TheoremResult, Workspace
from .sat import solve_interruptibly

CVC5_SECONDS: Final = 120.0
"""cvc5's time per query. The longest measured on the default ruleset is 4 s (docs/proofs.md)."""
PACKAGES: Final = ("cvc5", "dratify")
INSTALL_HINT: Final = "pip install 'popejoan-solver[certificates]'"
HOW_TO_CHECK: Final = (
    "'files' gives the SHA-256 of every other file of the folder: `sha256sum FILE`.",
    "Each *.smt2 file listed as a query is one query, standard SMT-LIB 2.6 (QF_LIA), its "
    "parts named (deal-frame, rules, negated-claim); every one is unsatisfiable: `cvc5 "
    "FILE.smt2` or `z3 FILE.smt2` prints `unsat`. Its *.companion.smt2 is the same text "
    "without the negated-claim assertion (`diff` shows it) and is satisfiable: the premises "
    "are not contradictory, so the unsat answer is the claim's.",
    "`popejoan certificate check DIR` re-checks all of it, and decodes each companion's model "
    "into a deal that the rules model replays.",
    "Each *.cnf file is DIMACS CNF, unsatisfiable, with a DRUP proof beside it: "
    "`drat-trim FILE.cnf FILE.drat` prints `s VERIFIED` (or, in Python, dratify's "
    "check_proof).",
    "Each *.json deal with a line is replayed with the rules model: `popejoan stops DEAL` and "
    "`popejoan solve DEAL` read the deal; the line lists every lead and its run.",
    "What each file establishes, and what it does not, is in docs/proofs.md, 'Certificates'.",
)


class CertificateError(PopeJoanError):
    """A certificate folder that cannot be used, or the packages to check one missing."""


def installed(name: str) -> bool:
    """Whether the optional package ``name`` (a checker: cvc5, dratify) can be imported."""
    try:
        __import__(name)
    except ImportError:
        return False
    return True


def require_packages() -> None:
    """Refuse at once (bad input, status 2) when cvc5 or dratify is not installed."""
    missing = [name for name in PACKAGES if not installed(name)]
    if missing:
        raise CertificateError(f"--certificate needs the package(s) {', '.join(missing)}: "
                               f"{INSTALL_HINT}")


def solver_versions() -> dict[str, str]:
    """The versions of every solver and checker a certificate was made with."""
    import cvc5
    import dratify
    import pysat

    cvc5_version = cvc5.Solver(cvc5.TermManager()).getVersion()
    if isinstance(cvc5_version, bytes):
        cvc5_version = cvc5_version.decode()
    return {"z3": z3.get_version_string(), "cvc5": str(cvc5_version),
            "python-sat": str(pysat.__version__), "dratify": str(dratify.__version__)}


# ----------------------------------------------------------------------------- the folder

@dataclass
class CertificateDir:
    """The folder DIR, written as a hidden sibling and renamed into place when complete, so an
    interrupted or failed run leaves nothing half-written."""

    target: Path
    work: Path

    @classmethod
    def open(cls, text: str) -> CertificateDir:
        target = Path(os.path.abspath(text))
        if target.exists() and not target.is_dir():
            raise CertificateError(f"--certificate {clip(text)!r} is a file, not a folder")
        if target.is_dir() and any(target.iterdir()):
            raise CertificateError(f"--certificate {clip(text)!r} is not empty (give a new or "
                                   "empty folder)")
        parent = target.parent
        if not parent.is_dir():
            raise CertificateError(f"--certificate {clip(text)!r}: no folder {clip(str(parent))}")
        if not os.access(parent, os.W_OK) or (target.is_dir()
                                              and not os.access(target, os.W_OK)):
            raise CertificateError(f"--certificate {clip(text)!r}: not writable")
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=parent))
        return cls(target, work)

    def path(self, name: str) -> Path:
        """Where the file ``name`` is written while the certificate is made."""
        return self.work / name

    def commit(self) -> None:
        """Move the finished certificate to DIR, with the permissions of a new folder (the
        work folder was private while it was written)."""
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(self.work, 0o777 & ~mask)
        if self.target.is_dir():
            self.target.rmdir()  # empty, checked when opened
        os.rename(self.work, self.target)

    def discard(self) -> None:
        """Remove everything written (interrupted, refused or failed)."""
        shutil.rmtree(self.work, ignore_errors=True)


def write_json(path: Path, data: Any) -> None:
    """Readable JSON, UTF-8."""
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


MANIFEST: Final = "manifest.json"


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, in hex (read in blocks: the files reach tens of MB)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def file_hashes(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file of a certificate but its manifest, by name (sorted)."""
    return {p.name: sha256_of(p) for p in sorted(folder.iterdir())
            if p.is_file() and p.name != MANIFEST}


# ----------------------------------------------------------------------------- SMT-LIB

_PB_OPS: Final = {z3.Z3_OP_PB_EQ, z3.Z3_OP_PB_LE, z3.Z3_OP_PB_GE, z3.Z3_OP_PB_AT_MOST,
                  z3.Z3_OP_PB_AT_LEAST}


def _or2(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    if z3.is_true(a) or z3.is_true(b):
        return z3.BoolVal(True)
    return b if z3.is_false(a) else a if z3.is_false(b) else z3.Or(a, b)


def _and2(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    if z3.is_false(a) or z3.is_false(b):
        return z3.BoolVal(False)
    return b if z3.is_true(a) else a if z3.is_true(b) else z3.And(a, b)


def at_least_table(terms: Sequence[z3.BoolRef], most: int) -> list[z3.BoolRef]:
    """``[at least j of terms are true for j in 0..most]`` as plain Boolean formulas (a
    sequential counter written out, no new variables; shared subterms print as ``let``)."""
    table = [z3.BoolVal(True)] + [z3.BoolVal(False)] * most
    for term in terms:
        table = [table[0]] + [_or2(table[j], _and2(term, table[j - 1]))
                              for j in range(1, most + 1)]
    return table


def _standard_pb(expr: z3.ExprRef, kids: list[z3.BoolRef]) -> z3.BoolRef:
    """A pseudo-Boolean term over ``kids`` in standard terms: a Boolean counter when every
    coefficient is 1 (all of this package's), else a sum of ``(ite b c 0)``."""
    op = expr.decl().kind()
    params = [int(p) for p in expr.decl().params()]
    bound = params[0]
    coefficients = [1] * len(kids) if op in (z3.Z3_OP_PB_AT_MOST, z3.Z3_OP_PB_AT_LEAST) \
        else params[1:]
    at_least = op in (z3.Z3_OP_PB_AT_LEAST, z3.Z3_OP_PB_GE)
    at_most = op in (z3.Z3_OP_PB_AT_MOST, z3.Z3_OP_PB_LE)
    if all(c == 1 for c in coefficients) and bound >= 0:
        table = at_least_table(kids, bound + 1)
        if at_least:
            return table[bound]
        return z3.Not(table[bound + 1]) if at_most else _and2(table[bound],
                                                                z3.Not(table[bound + 1]))
    total = z3.Sum(*[z3.If(k, c, 0) for k, c in zip(kids, coefficients, strict=True)])
    return total >= bound if at_least else total <= bound if at_most else total == bound


Memo = dict[int, tuple[z3.ExprRef, z3.ExprRef]]
"""Rewritten terms by z3 id, each with its original (kept alive, so that no id is reused)."""


def standard_terms(assertions: Iterable[z3.BoolRef], memo: Memo | None = None
                   ) -> list[z3.BoolRef]:
    """The assertions with every pseudo-Boolean term rewritten (equivalent formulas).

    ``memo`` may be shared by the queries of a run: their frames are the same terms (z3 shares
    equal terms), so each is rewritten once."""
    done: Memo = {} if memo is None else memo

    def rewrite(expr: z3.ExprRef) -> z3.ExprRef:
        key = expr.get_id()
        if key in done:
            return done[key][1]
        result = expr
        if z3.is_app(expr) and expr.num_args() > 0:
            kids = expr.children()
            new = [rewrite(k) for k in kids]
            if expr.decl().kind() in _PB_OPS:
                result = _standard_pb(expr, new)
            elif any(n.get_id() != k.get_id() for n, k in zip(new, kids, strict=True)):
                result = expr.decl()(*new)
        done[key] = (expr, result)
        return result
    return [rewrite(a) for a in assertions]


def smtlib(assertions: Iterable[z3.BoolRef], comment: Sequence[str],
           memo: Memo | None = None) -> str:
    """A standard SMT-LIB 2.6 script for the assertions (QF_LIA), with ``comment`` lines."""
    solver = z3.Solver()
    solver.add(*standard_terms(assertions, memo))
    body = [line for line in solver.to_smt2().splitlines()
            if not line.startswith(("; benchmark", "(set-info :status"))]
    head = [f"; {line}" for line in comment]
    head += ["(set-info :smt-lib-version 2.6)", "(set-logic QF_LIA)"]
    text = "\n".join(head + body) + "\n(exit)\n"
    if any(op in text for op in ("(_ pb", "(_ at-least", "(_ at-most")):
        raise ProofError("a pseudo-Boolean term was left in an SMT-LIB certificate")
    return text


PARTS: Final = ("deal-frame", "rules", "negated-claim")
"""The ``:named`` parts of every query, in order: the dealing constraints, the rules (the
position, the lead or the settlement the claim is about) and the claim negated. The
companion asserts the first two only."""
COMPANION: Final = ".companion.smt2"


@dataclass(frozen=True)
class NamedQuery:
    """A query and its satisfiable companion as SMT-LIB text: the same script but for the
    negated claim's assertion."""

    query: str
    companion: str


def named_parts(assertions: Sequence[z3.BoolRef], deal_frame: int
                ) -> list[tuple[str, z3.BoolRef]]:
    """The query's assertions as :data:`PARTS`: the first ``deal_frame`` are the deal's
    frame, the last is the negated claim, the rest the rules."""
    if len(assertions) <= deal_frame:
        raise ProofError("a query without a claim after its deal's frame cannot be certified")

    def conj(terms: Sequence[z3.BoolRef]) -> z3.BoolRef:
        return z3.And(*terms) if len(terms) > 1 else terms[0] if terms else z3.BoolVal(True)
    return list(zip(PARTS, (conj(assertions[:deal_frame]), conj(assertions[deal_frame:-1]),
                            assertions[-1]), strict=True))


def smtlib_named(parts: Sequence[tuple[str, z3.BoolRef]], comment: Sequence[str],
                 companion_comment: Sequence[str], memo: Memo | None = None) -> NamedQuery:
    """A query whose assertions carry their parts' names (``(! TERM :named NAME)``), and its
    companion: the same text without the last part's assertion (so ``diff`` shows only it)."""
    text = smtlib([term for _, term in parts], [], memo)
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("(assert")]
    end = next(i for i, line in enumerate(lines) if line.startswith("(check-sat"))
    if len(starts) != len(parts):
        raise ProofError(f"a query printed {len(starts)} assertions for {len(parts)} parts")
    head, tail = lines[:starts[0]], lines[end:]
    blocks = []
    for (name, _), start, stop in zip(parts, starts, [*starts[1:], end], strict=True):
        block = "\n".join(lines[start:stop])
        blocks.append(f"(assert (! {block[len('(assert'):-1].strip()}\n :named {name}))")
    body = [*head, *blocks]

    def script(comments: Sequence[str], blocks_kept: int) -> str:
        return "\n".join([*(f"; {c}" for c in comments), *body[:len(head) + blocks_kept],
                          *tail]) + "\n"
    return NamedQuery(script(comment, len(blocks)), script(companion_comment, len(blocks) - 1))


def cvc5_check(path: Path, seconds: float = CVC5_SECONDS) -> str:
    """cvc5's answer to the SMT-LIB file at ``path`` (parsed from the file itself): ``sat``,
    ``unsat`` or ``unknown`` (past ``seconds``). A file cvc5 cannot read is a ProofError."""
    import cvc5

    terms = cvc5.TermManager()
    solver = cvc5.Solver(terms)
    solver.setOption("tlimit-per", str(max(1, round(seconds * 1000))))
    symbols = cvc5.SymbolManager(terms)
    parser = cvc5.InputParser(solver, symbols)
    answers = []
    try:
        parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, str(path))
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            answers.append(command.invoke(solver, symbols).strip())
    except RuntimeError as exc:
        raise ProofError(f"cvc5 cannot read the certificate {path.name}: "
                         f"{clip(str(exc), 200)}") from None
    answer = "".join(answers).strip()
    return answer if answer in ("sat", "unsat") else "unknown"


def _serve_cvc5(conn: Connection) -> None:
    """The cvc5 process: answer ``(path, seconds)`` requests until told to stop (None)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent takes Ctrl-C and stops us
    while (request := conn.recv()) is not None:
        try:
            conn.send(cvc5_check(Path(request[0]), request[1]))
        except ProofError as exc:
            conn.send(("error", str(exc)))


class Cvc5Process:
    """cvc5 in a process of its own: cvc5 holds Python's lock while it solves, so in this
    process Ctrl-C would wait for the query; here it is taken at once and the process
    killed. A process that overruns cvc5's own time limit is killed too (``unknown``)."""

    def __init__(self) -> None:
        self._conn, self._process = self._start()

    @staticmethod
    def _start() -> tuple[Connection, BaseProcess]:
        context = multiprocessing.get_context("spawn")
        conn, child = context.Pipe()
        process = context.Process(target=_serve_cvc5, args=(child,), daemon=True,
                                  name="popejoan-cvc5")
        # Started with SIGINT blocked, which it inherits: a Ctrl-C while it is still starting
        # (before it can ignore the signal) would print its traceback; the parent takes the
        # signal once the start is done. multiprocessing's resource tracker is started first:
        # starting it unblocks SIGINT.
        resource_tracker.ensure_running()
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
        child.close()
        return conn, process

    def check(self, path: Path, seconds: float) -> str:
        """:func:`cvc5_check` of ``path`` in the cvc5 process."""
        self._conn.send((str(path), seconds))
        deadline = time.monotonic() + 2 * seconds + 30  # parsing a large file included
        while not self._conn.poll(0.05):
            if not self._process.is_alive():
                raise ProofError(f"cvc5 stopped while checking {path.name} (exit status "
                                 f"{self._process.exitcode})")
            if time.monotonic() > deadline:
                self.close()
                self._conn, self._process = self._start()  # a fresh one for the next query
                return "unknown"
        answer = self._conn.recv()
        if isinstance(answer, tuple):
            raise ProofError(answer[1])
        return str(answer)

    def close(self) -> None:
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._conn.close()


# ----------------------------------------------------------------------------- prove

@dataclass(frozen=True)
class QueryRecord:
    """One unsat query of ``prove``: its file and both solvers' verdicts."""

    file: str
    scope: str
    players: int
    query: str
    z3: str
    cvc5: str
    z3_seconds: float
    cvc5_seconds: float
    companion: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "companion": self.companion, "scope": self.scope,
                "players": self.players, "query": self.query,
                "z3": self.z3, "cvc5": self.cvc5, "z3_seconds": round(self.z3_seconds, 3),
                "cvc5_seconds": round(self.cvc5_seconds, 3)}


def query_comment(scope: str, players: int, query: str) -> list[str]:
    """The comment a query opens with: what it is (``certificate check`` compares it with
    the manifest) and what its answer means."""
    return [f"popejoan-solver certificate: {scope}, {players} players, {query}",
            "z3 answered unsat; the claim needs unsat. Parts (:named): deal-frame (the "
            "dealing), rules (what the claim is about), negated-claim",
            "companion: the same premises without negated-claim, satisfiable"]


def companion_comment(query_file: str) -> list[str]:
    """The comment a companion opens with."""
    return [f"popejoan-solver certificate: companion of {query_file}",
            "the same premises (deal-frame, rules) without the negated claim: satisfiable, "
            "and a model is a deal the rules model deals and plays"]


def numbered_name(names: set[str], scope: str, players: int, query: str) -> str:
    """``scope.Np.query.smt2``, numbered when the same query is asked again (``names``: the
    names given so far, to which it is added)."""
    base = f"{scope}.{players}p.{query}"
    name, n = f"{base}.smt2", 1
    while name in names:
        n += 1
        name = f"{base}.{n}.smt2"
    names.add(name)
    return name


def scope_name(key: SharedKey | str) -> str:
    """A theorem's name, or ``invariant-5p`` for shared work."""
    return key if isinstance(key, str) else f"{key[0]}-{key[1]}p"


@dataclass
class ProofRecorder:
    """Writes every unsat query of a ``prove`` run and has cvc5 check the file it wrote."""

    folder: CertificateDir
    cvc5_seconds: float = CVC5_SECONDS
    records: list[QueryRecord] = field(default_factory=list)
    witnesses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _names: set[str] = field(default_factory=set)
    _cvc5: Cvc5Process | None = None
    write_seconds: float = 0.0
    """Time spent rewriting and printing the files."""
    _memo: Memo = field(default_factory=dict)

    def close(self) -> None:
        """Stop the cvc5 process, if one was started."""
        if self._cvc5 is not None:
            self._cvc5.close()
            self._cvc5 = None

    def unsat(self, scope: SharedKey | str, solver: z3.Solver, players: int, query: str,
              seconds: float, deal_frame: int = 0) -> None:
        """Certify one query z3 found unsat; a cvc5 ``sat`` is a ProofError (they disagree).
        Its companion (the premises without the negated claim) is written beside it; the
        first ``deal_frame`` assertions are the deal's frame."""
        name = self._file_name(scope_name(scope), players, query)
        companion = name.removesuffix(".smt2") + COMPANION
        path = self.folder.path(name)
        start = time.perf_counter()
        written = smtlib_named(named_parts(solver.assertions(), deal_frame),
                               query_comment(scope_name(scope), players, query),
                               companion_comment(name), self._memo)
        path.write_text(written.query, encoding="utf-8")
        self.folder.path(companion).write_text(written.companion, encoding="utf-8")
        self.write_seconds += time.perf_counter() - start
        if self._cvc5 is None:
            self._cvc5 = Cvc5Process()
        start = time.perf_counter()
        answer = self._cvc5.check(path, self.cvc5_seconds)
        elapsed = time.perf_counter() - start
        self.records.append(QueryRecord(name, scope_name(scope), players, query, "unsat",
                                        answer, seconds, elapsed, companion))
        if answer == "sat":
            raise ProofError(f"z3 and cvc5 disagree on {name}: z3 unsat, cvc5 sat")

    def _file_name(self, scope: str, players: int, query: str) -> str:
        return numbered_name(self._names, scope, players, query)

    def witness(self, scope: str, example: Counterexample, role: str) -> None:
        """Keep a deal and line replayed through the rules model, and what it shows."""
        self.witnesses.setdefault(scope, []).append({"role": role, **example.to_json()})

    def claim_records(self, theorem: str, shared: Iterable[SharedKey]) -> list[QueryRecord]:
        """The unsat queries a theorem's verdict rests on: its own and its shared work's."""
        scopes = {theorem} | {scope_name(k) for k in shared}
        return [r for r in self.records if r.scope in scopes]

    def write_witnesses(self, theorem: str) -> str | None:
        """Write the theorem's replayed deals and lines; the file's name, or None."""
        found = self.witnesses.get(theorem)
        if not found:
            return None
        name = f"{theorem}.deals.json"
        write_json(self.folder.path(name), {"theorem": theorem, "deals": found})
        return name


def prove_manifest(recorder: ProofRecorder, results: Sequence[TheoremResult],
                   header: dict[str, Any]) -> list[TheoremResult]:
    """Write the manifest of a ``prove`` certificate; a theorem is PROVED only when cvc5
    confirmed every unsat query it rests on (else UNKNOWN, saying which)."""
    claims, settled = [], []
    for result in results:
        records = recorder.claim_records(result.name, result.shared)
        missing = [r.file for r in records if r.cvc5 != "unsat"]
        if result.status is Status.PROVED and missing:
            result = replace(result, status=Status.UNKNOWN, method=(
                f"{result.method}; but cvc5 did not confirm {len(missing)} of its "
                f"{len(records)} unsat queries within {recorder.cvc5_seconds:g} s each "
                f"({', '.join(missing[:3])}), so it is not proved"))
        settled.append(result)
        deals = recorder.write_witnesses(result.name)
        example = None
        if result.counterexample is not None:
            example = f"{result.name}.counterexample.json"
            write_json(recorder.folder.path(example), result.counterexample.deal)
        claims.append({
            "theorem": result.name, "statement": result.statement, "status": result.status.value,
            "method": result.method,
            "rests_on": [r.to_json() for r in records],
            "deals_and_lines": deals, "counterexample_deal": example,
            "counterexample_line": list(result.counterexample.line)
            if result.counterexample else None,
        })
    z3_time = sum(r.z3_seconds for r in recorder.records)
    cvc5_time = sum(r.cvc5_seconds for r in recorder.records)
    write_json(recorder.folder.path(MANIFEST), {
        **header, "solvers": solver_versions(), "how_to_check": list(HOW_TO_CHECK),
        "files": file_hashes(recorder.folder.work),
        "claims": claims,
        "queries": len(recorder.records),
        "seconds": {"z3_unsat_queries": round(z3_time, 3), "cvc5": round(cvc5_time, 3),
                    "writing": round(recorder.write_seconds, 3)},
    })
    return settled


# ----------------------------------------------------------------------------- find

PROOF_SOLVER: Final = "glucose4"
"""The proof-logging SAT solver for "no such deal" (its proofs are DRUP text)."""


@dataclass(frozen=True)
class DratCheck:
    """A "no such deal" certificate: its files and the checker's verdict."""

    cnf: str
    proof: str
    lemmas: str
    solver_says: str
    checker_says: str
    proof_lines: int
    seconds: float
    companion: str = ""
    """The CNF's first clauses alone (the deal, before the property): satisfiable."""
    companion_deal: dict[str, Any] | None = None
    """The companion's model decoded as a deal, which the rules model deals and plays out."""

    def to_json(self) -> dict[str, Any]:
        return {"cnf": self.cnf, "proof": self.proof, "lemmas": self.lemmas,
                "solver": PROOF_SOLVER, "solver_says": self.solver_says,
                "checker": "dratify", "checker_says": self.checker_says,
                "proof_lines": self.proof_lines, "seconds": round(self.seconds, 3),
                "companion": self.companion, "companion_deal": self.companion_deal}


def dimacs(formula: FindFormula, comment: Sequence[str], companion: str = "") -> str:
    """The whole formula (encoding and lemmas) as DIMACS CNF, variable names in comments;
    with ``companion``, a line saying which first clauses that file holds alone."""
    clauses = [*formula.clauses, *(lemma.clause for lemma in formula.lemmas)]
    top = max([0, *formula.names, *(abs(lit) for c in clauses for lit in c)])
    lines = [f"c {line}" for line in comment]
    lines += [f"c var {v} {formula.names[v]}" for v in sorted(formula.names)]
    lines.append(f"c clauses 1-{len(formula.clauses)}: the encoding; clauses "
                 f"{len(formula.clauses) + 1}-{len(clauses)}: lemmas (see the .lemmas.json)")
    if companion:
        lines.append(f"c clauses 1-{formula.deal_clauses}: the deal (the dealing, --hold, "
                     f"--dead); {companion} is they alone, satisfiable")
    lines.append(f"p cnf {top} {len(clauses)}")
    lines += [" ".join(map(str, (*c, 0))) for c in clauses]
    return "\n".join(lines) + "\n"


def companion_dimacs(formula: FindFormula, comment: Sequence[str]) -> str:
    """The companion of :func:`dimacs`: its first ``deal_clauses`` clauses alone, with every
    variable's name (the same numbers)."""
    kept = FindFormula(formula.clauses[:formula.deal_clauses], (), formula.names,
                       formula.deal_clauses)
    return dimacs(kept, comment)


_CNF_NAME = re.compile(r"^(holds|dead|turnup)\[([0-9TJQKA][CDHS])(?:,(\d+))?\]$")


def cnf_deal(names: Mapping[int, str], model: Iterable[int], rules: Ruleset,
             players: int) -> Deal:
    """A SAT model read as a deal by its variables' names (``holds[QH,2]``, ``dead[QH]``,
    ``turnup[QH]``), checked by the rules model (:class:`PopeJoanError` if it is none)."""
    hands, dead, turnup = [0] * players, 0, -1
    for var in model:
        match = _CNF_NAME.match(names.get(var, "")) if var > 0 else None
        if match is None:
            continue
        kind, card, seat = match.group(1), parse_card(match.group(2)), match.group(3)
        if kind == "holds" and seat is not None and 1 <= int(seat) <= players:
            hands[int(seat) - 1] |= 1 << card
        elif kind == "dead":
            dead |= 1 << card
        elif kind == "turnup":
            if turnup >= 0:
                raise DealError("two turn-ups in the model")
            turnup = card
    return Deal.create(tuple(hands), dead, turnup, rules)


def play_out(deal: Deal) -> int:
    """Play ``deal`` through the rules model, the first legal lead each time, to its end
    (none when its turn-up ends it); how many leads."""
    position = Position.from_deal(deal)
    leads = 0
    while not position.is_over and position.legal_leads():
        _, position = position.play(position.legal_leads()[0])
        leads += 1
    return leads


def _companion(folder: CertificateDir, name: str, formula: FindFormula,
               comment: Sequence[str], rules: Ruleset, players: int) -> dict[str, Any]:
    """Write ``name`` (:func:`companion_dimacs`), solve it, and decode its model into a deal
    the rules model deals and plays out: its deal file's JSON. Anything else is a
    ProofError (a bug)."""
    from pysat.solvers import Solver

    folder.path(name).write_text(companion_dimacs(formula, comment), encoding="ascii")
    with Solver(name=PROOF_SOLVER, bootstrap_with=formula.clauses[:formula.deal_clauses]) as sat:
        if not solve_interruptibly(sat, None):
            raise ProofError(f"the deal's own clauses are unsatisfiable ({name}): the "
                             f"\"no such deal\" proof says nothing")
        model = sat.get_model() or []
    try:
        deal = cnf_deal(formula.names, model, rules, players)
        play_out(deal)
    except PopeJoanError as exc:
        raise ProofError(f"the model of {name} is no deal the rules model deals and plays: "
                         f"{clip(str(exc), 200)}") from None
    return deal_to_json(deal)


def check_drat(cnf: Path, proof: Path) -> tuple[bool, str]:
    """dratify's verdict on the two files as written: (verified, its reason)."""
    from dratify import check_proof, parse_dimacs

    formula = parse_dimacs(cnf.read_text(encoding="ascii"))
    result = check_proof(formula, proof.read_text(encoding="ascii"))
    return bool(result.ok and result.reached_empty), str(result.reason)


def certify_none(folder: CertificateDir, name: str, formula: FindFormula,
                 comment: Sequence[str], rules: Ruleset, players: int) -> DratCheck:
    """Write ``name.cnf`` and a DRUP proof ``name.drat`` that it is unsatisfiable, and check
    the files with dratify; and its satisfiable companion ``name.companion.cnf`` (the deal's
    clauses alone), its model decoded into a deal the rules model deals and plays out.
    Anything but a verified proof and such a deal is a ProofError (a bug)."""
    from pysat.solvers import Solver

    start = time.perf_counter()
    cnf, proof, lemmas = f"{name}.cnf", f"{name}.drat", f"{name}.lemmas.json"
    companion = f"{name}.companion.cnf"
    folder.path(cnf).write_text(dimacs(formula, comment, companion), encoding="ascii")
    dealt = _companion(folder, companion, formula,
                       [*comment, f"companion of {cnf}: its first {formula.deal_clauses} "
                        "clauses (the deal) alone, satisfiable"], rules, players)
    clauses = [*formula.clauses, *(lemma.clause for lemma in formula.lemmas)]
    with Solver(name=PROOF_SOLVER, bootstrap_with=clauses, with_proof=True) as sat:
        if solve_interruptibly(sat, None):  # Ctrl-C: KeyboardInterrupt, the solver stopped
            raise ProofError(f"the search said no deal exists, but {PROOF_SOLVER} satisfies "
                             f"its formula ({cnf})")
        steps = list(sat.get_proof() or [])
    if not steps or steps[-1].strip() != "0":
        steps.append("0")  # the empty clause, by unit propagation (glucose logs none then)
    folder.path(proof).write_text("\n".join(steps) + "\n", encoding="ascii")
    first = len(formula.clauses) + 1
    write_json(folder.path(lemmas), {"lemmas": [
        {"clause": first + i, "candidate": deal_to_json(lemma.deal), "verdict": lemma.verdict,
         "line": list(lemma.line)}
        for i, lemma in enumerate(formula.lemmas)]})
    ok, reason = check_drat(folder.path(cnf), folder.path(proof))
    if not ok:
        raise ProofError(f"dratify rejects the proof {proof}: {clip(reason, 200)}")
    return DratCheck(cnf, proof, lemmas, "unsat", "verified", len(steps),
                     time.perf_counter() - start, companion, dealt)


# ----------------------------------------------------------------------------- the commands

def prove_certified(rules: Ruleset, names: Sequence[str] | None, directory: str,
                    command: Sequence[str]) -> list[TheoremResult]:
    """``popejoan prove --certificate DIR``: prove, certify every claim, write DIR."""
    from .semantics import PlaySemantics
    from .theorems import prove

    require_packages()
    folder = CertificateDir.open(directory)
    recorder = ProofRecorder(folder)
    try:
        workspace = Workspace(PlaySemantics.of(rules), recorder=recorder)
        results = prove(rules, names, workspace)
        header = {"certificate": "popejoan prove", "command": list(command),
                  "ruleset": rules.name, "rules": rules_json([rules])}
        results = prove_manifest(recorder, results, header)
        folder.commit()
    except BaseException:
        folder.discard()
        raise
    finally:
        recorder.close()
    return results


def find_certified(query: FindQuery, directory: str, command: Sequence[str],
                   progress: FindProgress | None = None) -> FindResult:
    """``popejoan find --certificate DIR``: each deal found as a deal file; "none exists" as
    DIMACS CNF with a DRUP proof that dratify has verified; DIR written. ``progress`` as for
    :func:`find_deals`."""
    require_packages()
    folder = CertificateDir.open(directory)
    try:
        result = find_deals(query, progress)
        deals = []
        for i, deal in enumerate(result.deals, 1):
            name = f"{query.prop.value}.deal-{i}.json"
            write_json(folder.path(name), deal_to_json(deal))
            deals.append(name)
        none = more = None
        if result.stats.exhausted and not result.stats.undecided and result.formula:
            # "no such deal", or with deals found "no more deals" (the found ones blocked)
            what = "has" if not result.deals else "other than those found has"
            comment = [f"popejoan-solver certificate: no deal {what} {query.prop.value}",
                       f"({DESCRIPTIONS[query.prop]}), {query.rules.name}, {query.players} "
                       f"players, seat {query.seat}, with: {' '.join(command)}"]
            name = f"{query.prop.value}.{'none' if not result.deals else 'no-more'}"
            check = certify_none(folder, name, result.formula, comment, query.rules,
                                 query.players).to_json()
            none, more = (check, None) if not result.deals else (None, check)
        write_json(folder.path(MANIFEST), {
            "certificate": "popejoan find", "command": list(command),
            "property": query.prop.value, "description": DESCRIPTIONS[query.prop],
            "ruleset": query.rules.name, "players": query.players, "seat": query.seat,
            "solvers": solver_versions(), "how_to_check": list(HOW_TO_CHECK),
            "files": file_hashes(folder.work),
            "claims": {"deals_found": deals, "no_such_deal": none, "no_more_deals": more,
                       "undecided_candidates": result.stats.undecided,
                       "timed_out": result.stats.timed_out}})
        folder.commit()
    except BaseException:
        folder.discard()
        raise
    return result
