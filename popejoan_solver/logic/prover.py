"""The proof machinery: encodings shared per player count, induction, one-step checks, and a
bounded search for a concrete counterexample line that is then replayed through the rules model.

A theorem about play is *proved* when its one-step check is unsatisfiable in every well-formed
position not over (reachable or not) and every legal lead from it, for 3 to 8 players, and the
frame and the theorem's premise are satisfiable (:mod:`.vacuity`). The inductive invariant
(Fact 1 of ``docs/solver.md``) is a theorem of its own, proved by two separate, plain solver
calls (it holds at the outset; every lead keeps it); no other proof assumes it, since none
needs it (``tests/logic/test_validation.py`` proves the catalogue without it). A
theorem is *refuted* only by a line of play found from the outset (bounded model checking) and
replayed through :mod:`popejoan_solver.model`; a one-step counterexample at a position no line
was found to reach leaves the theorem *unknown*, never refuted.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import FrameType
from typing import Any, Protocol, TypeVar

import z3

from ..model.board import Board, Compartment
from ..model.cards import Card, Mask, card_name, format_cards
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, Deal
from ..model.errors import PopeJoanError
from ..model.notation import deal_to_json
from ..model.play import Position, Run
from ..model.rules import Source
from .encoding import DecodedDeal, SymbolicDeal, SymbolicPosition, SymbolicStep
from .semantics import PlaySemantics
from .settlement_encoding import SymbolicSettlement

PLAYER_COUNTS = range(MIN_PLAYERS, MAX_PLAYERS + 1)
MAX_DEPTH = 3
"""How many leads from the outset the search for a counterexample line unrolls."""

StepCondition = Callable[[SymbolicDeal, SymbolicPosition, SymbolicStep], z3.BoolRef]
FinalCondition = Callable[[SymbolicDeal, SymbolicPosition, SymbolicSettlement], z3.BoolRef]
_T = TypeVar("_T")
SharedKey = tuple[str, int]
"""A piece of shared work: (``invariant``, ``step``, ``lines``, ``finished`` or
``finished-any-count``, player count)."""


PROOF_PARAMS = {"relevancy": 0}
"""z3's parameters for the solvers whose model is never read, asked to prove (the step frame,
the induction): every atom relevant, which ``benchmarks/bench_prove.py`` measured faster on
those queries (not on the settlement's). A parameter of the search cannot change an answer;
the queries, and so the certificates, are the same."""


def proof_solver() -> z3.Solver:
    """A solver with :data:`PROOF_PARAMS`, for a query whose model is never read."""
    solver = z3.Solver()
    solver.set(**PROOF_PARAMS)
    return solver


class QueryRecorder(Protocol):
    """Where a certificate is made (:class:`~popejoan_solver.logic.certificates.ProofRecorder`):
    every unsat query, every replayed line."""

    def unsat(self, scope: SharedKey | str, solver: z3.Solver, players: int, query: str,
              seconds: float, deal_frame: int = 0) -> None:
        """``solver``'s assertions are the deal's frame (the first ``deal_frame``), the rules
        and, last, the negated claim."""

    def witness(self, scope: str, example: Counterexample, role: str) -> None: ...


class ProofError(RuntimeError):
    """The encoding and the rules model disagree: a bug of the tool, never a user error or an
    answer (``popejoan prove`` exits with status 4)."""


_INTERRUPTED = ("interrupted", "canceled", "cancelled")
"""Words of z3's reason for an ``unknown`` that a cancelled check gives (no query here sets a
timeout or a resource limit, so only Ctrl-C cancels one)."""


def check_sat(solver: z3.Solver, assumptions: Sequence[z3.BoolRef] = ()) -> z3.CheckSatResult:
    """``solver.check(*assumptions)``, except that a check stopped by Ctrl-C raises
    KeyboardInterrupt.

    On the main thread the check runs on a helper thread with z3's own SIGINT handler off,
    while the main thread waits: Ctrl-C then always reaches Python, which cancels the check
    (``Context.interrupt``) and raises. z3's handler, left on, would take the signal itself and
    lose it whenever the check finished before it looked at its cancel flag (the run then went
    on to the end and exited 0 after a Ctrl-C). A cancelled check's ``unknown`` is never read
    as an answer.
    """
    if _deferred.pending:  # a Ctrl-C put off by safe_interrupts: no new check is started
        raise KeyboardInterrupt
    if threading.current_thread() is threading.main_thread():
        result = _check_beside(solver, assumptions)
    else:
        result = solver.check(*assumptions)
    if result == z3.unknown and any(w in solver.reason_unknown() for w in _INTERRUPTED):
        raise KeyboardInterrupt
    return result


class _Helper:
    """The thread that runs the checks of :func:`_check_beside`, one at a time: one thread
    for every check of a process (a thread started per check cost more than most checks),
    started again in a child forked since (which has no thread of its parent's)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._pid = -1

    def run(self, job: Callable[[], None]) -> None:
        """Run ``job`` on the helper thread (it catches its own exceptions)."""
        if self._pid != os.getpid():
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(self._jobs,), name="popejoan-z3-check",
                             daemon=True).start()
            self._pid = os.getpid()
        self._jobs.put(job)

    @staticmethod
    def _serve(jobs: queue.SimpleQueue[Callable[[], None]]) -> None:
        while True:
            jobs.get()()


_helper = _Helper()


def _check_beside(solver: z3.Solver, assumptions: Sequence[z3.BoolRef]) -> z3.CheckSatResult:
    """``solver.check(*assumptions)`` on the helper thread while the main thread waits. For
    the check's duration Ctrl-C only cancels it (``Context.interrupt``) and is raised once the
    helper is done: raised at any other moment, it could leave the helper inside z3 while the
    process exits (a crash at exit). SIGINT ignored, or handled by someone else, is left
    alone."""
    solver.set(ctrl_c=False)
    outcome: list[z3.CheckSatResult | BaseException] = []
    done = threading.Event()
    interrupted = False

    def run() -> None:
        try:
            outcome.append(solver.check(*assumptions))
        except BaseException as exc:  # handed to the waiting thread, raised there
            outcome.append(exc)
        finally:
            done.set()

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        nonlocal interrupted
        interrupted = True
        solver.ctx.interrupt()

    previous = signal.getsignal(signal.SIGINT)
    ours = previous is signal.default_int_handler or previous is _on_signal
    if ours:
        signal.signal(signal.SIGINT, on_sigint)
    try:
        _helper.run(run)
        while not done.wait(0.05):
            if interrupted:  # again: an interrupt just before the check began is lost
                solver.ctx.interrupt()
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)
    if interrupted:
        _clear_cancel(solver.ctx)
        raise KeyboardInterrupt
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _clear_cancel(ctx: z3.Context) -> None:
    """Undo an interrupt that came when no check was running (it would stay and make the
    context's next push or pop fail): z3 clears it at the start of any check."""
    blank = z3.Solver(ctx=ctx)
    blank.set(ctrl_c=False)
    blank.check()


_Z3_DIR = os.path.dirname(z3.__file__) + os.sep
_RETRY_SECONDS = 0.005


class _Deferred:
    """A Ctrl-C that :func:`safe_interrupts` has put off, to be raised at a safe point."""

    pending = False


_deferred = _Deferred()


def _safe_to_raise(frame: FrameType | None) -> bool:
    """No frame of z3's Python API, and no ``__del__``, is on the stack."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.startswith(_Z3_DIR):
            return False
        frame = frame.f_back
    return True


def _on_signal(signum: int, frame: FrameType | None) -> None:
    """SIGINT (and its retries on SIGALRM): raise KeyboardInterrupt now, or in a moment."""
    if _safe_to_raise(frame):
        signal.setitimer(signal.ITIMER_REAL, 0)
        _deferred.pending = False
        raise KeyboardInterrupt
    _deferred.pending = True
    signal.setitimer(signal.ITIMER_REAL, _RETRY_SECONDS)


@contextlib.contextmanager
def safe_interrupts() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt only where it cannot break z3's Python objects.

    Raised inside z3's Python API, KeyboardInterrupt leaves objects half built (their
    ``__del__`` then fails at exit with a traceback), becomes a ``ctypes.ArgumentError`` when
    it lands in argument conversion, and is printed and lost when it lands in a ``__del__``
    (the run goes on). Here SIGINT raises only with no z3 frame and no ``__del__`` on the
    stack; otherwise it is tried again a few milliseconds later (SIGALRM), and
    :func:`check_sat` starts no check meanwhile. Only on the main thread, while SIGINT has
    Python's default handler and SIGALRM none (else it changes nothing).
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
            or signal.getsignal(signal.SIGALRM) is not signal.SIG_DFL):
        yield
        return
    _deferred.pending = False
    signal.signal(signal.SIGALRM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        if _deferred.pending:  # put off and not yet raised: never lost
            _deferred.pending = False
            raise KeyboardInterrupt


class Status(StrEnum):
    PROVED = "proved"
    REFUTED = "refuted"
    UNKNOWN = "unknown"
    VACUOUS = "vacuous"
    """The checks pass, but the theorem's premise has no model: it says nothing."""


@dataclass(frozen=True)
class Counterexample:
    """A deal and a line of play from its outset, replayed through the rules model."""

    deal: dict[str, Any]
    line: tuple[dict[str, Any], ...]
    replayed: bool
    """False only for a mutant's counterexample, which the rules model cannot play."""

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "line": list(self.line)}


@dataclass(frozen=True)
class TheoremResult:
    """The outcome of one theorem under one ruleset."""

    name: str
    statement: str
    source: Source | None
    status: Status
    method: str
    counterexample: Counterexample | None
    seconds: float
    details: tuple[str, ...] = ()
    shared: tuple[SharedKey, ...] = ()
    """The shared work (e.g. the induction) its verdict also rests on."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "statement": self.statement,
            "source": self.source.to_json() if self.source else None,
            "status": self.status.value,
            "method": self.method,
            "counterexample": self.counterexample.to_json() if self.counterexample else None,
            "seconds": round(self.seconds, 3),
        }


@dataclass(frozen=True)
class Outcome:
    """What a theorem's check returns; timing and naming are added by the catalogue."""

    status: Status
    method: str
    counterexample: Counterexample | None = None
    details: tuple[str, ...] = ()


@dataclass
class Found:
    """A line found by bounded search: the player count, the deal, the leads, the board."""

    players: int
    deal: DecodedDeal
    leads: tuple[Card, ...]
    carried: Board | None = None
    runs: tuple[Mask, ...] = ()
    """The cards of each lead's run in the model, the choices inside it included."""


@dataclass
class _StepFrame:
    deal: SymbolicDeal
    position: SymbolicPosition
    step: SymbolicStep
    solver: z3.Solver


@dataclass
class _LineFrame:
    deal: SymbolicDeal
    positions: list[SymbolicPosition]
    steps: list[SymbolicStep]
    solver: z3.Solver
    settled: dict[int, SymbolicSettlement] = field(default_factory=dict)
    """The settlement of the play ended after each number of leads, built when first asked."""

    def settlement(self, depth: int) -> SymbolicSettlement:
        if depth not in self.settled:
            self.settled[depth] = SymbolicSettlement(self.deal, self.positions[depth])
        return self.settled[depth]


@dataclass
class FinalFrame:
    """Any finished play, reachable or not, and its settlement (``constraints``: the deal's,
    the final position's and the settlement's)."""

    deal: SymbolicDeal
    final: SymbolicPosition
    settlement: SymbolicSettlement
    constraints: list[z3.BoolRef]


@dataclass
class Workspace:
    """Encodings of one semantics, built once per player count and shared by the theorems."""

    semantics: PlaySemantics
    players: tuple[int, ...] = tuple(PLAYER_COUNTS)
    max_depth: int = MAX_DEPTH
    _steps: dict[int, _StepFrame] = field(default_factory=dict)
    _lines: dict[int, _LineFrame] = field(default_factory=dict)
    _finals: dict[SharedKey, FinalFrame] = field(default_factory=dict)
    _invariant: dict[int, bool] = field(default_factory=dict)
    shared_seconds: dict[SharedKey, float] = field(default_factory=dict)
    """Time spent on each piece of shared work, whichever theorem first needed it."""
    _used: set[SharedKey] = field(default_factory=set)
    _nested: float = 0.0
    recorder: QueryRecorder | None = None
    """With ``--certificate``: told of every unsat answer and every replayed line."""
    _scope: list[SharedKey | str] = field(default_factory=lambda: [""])
    _deal_frames: dict[int, int] = field(default_factory=dict)

    def check(self, solver: z3.Solver, players: int, query: str) -> z3.CheckSatResult:
        """:func:`check_sat`; an unsat answer is certified when a recorder is set."""
        start = time.perf_counter()
        result = check_sat(solver)
        if result == z3.unsat and self.recorder is not None:
            self.recorder.unsat(self._scope[-1], solver, players, query,
                                time.perf_counter() - start, self.deal_frame_size(players))
        return result

    def deal_frame_size(self, players: int) -> int:
        """How many assertions the deal's frame is (every query asserts it first)."""
        if players not in self._deal_frames:
            self._deal_frames[players] = len(SymbolicDeal(self.semantics, players).constraints())
        return self._deal_frames[players]

    # The time of shared work, charged to every theorem that needs it.

    def shared(self, key: SharedKey, build: Callable[[], _T]) -> _T:
        """Run ``build`` (shared work for ``key``), adding its own time to ``key``'s; the
        current theorem rests on it (:meth:`rests_on`)."""
        self._used.add(key)
        outer, self._nested = self._nested, 0.0
        start = time.perf_counter()
        self._scope.append(key)
        try:
            return build()
        finally:
            self._scope.pop()
            elapsed = time.perf_counter() - start
            self.shared_seconds[key] = self.shared_seconds.get(key, 0.0) + elapsed - self._nested
            self._nested = outer + elapsed

    def rests_on(self, key: SharedKey) -> None:
        """The current theorem rests on ``key``'s shared work, done before: it is charged its
        time too (:meth:`theorem_seconds`) and names it (:meth:`used_shared`)."""
        self._used.add(key)

    def start_theorem(self, name: str = "") -> None:
        """Forget which shared work the previous theorem needed; queries now belong to
        ``name``."""
        self._used.clear()
        self._nested = 0.0
        self._scope = [name]

    def used_shared(self) -> tuple[SharedKey, ...]:
        """The shared work the current theorem needed (its proof rests on it too)."""
        return tuple(sorted(self._used))

    def theorem_seconds(self, wall: float) -> float:
        """A theorem's time: ``wall`` less the shared work done in it, plus all it needed."""
        return wall - self._nested + sum(self.shared_seconds.get(k, 0.0) for k in self._used)

    # The inductive invariant.

    def invariant_holds(self, players: int) -> bool:
        """Fact 1 holds at the outset and every lead keeps it: two fresh, plain solver calls."""
        key = ("invariant", players)
        self._used.add(key)
        if players not in self._invariant:
            self._invariant[players] = self.shared(key, lambda: self._induction(players))
        return self._invariant[players]

    def _induction(self, players: int) -> bool:
        """The two solver calls of :meth:`invariant_holds`."""
        deal = SymbolicDeal(self.semantics, players)
        outset = SymbolicPosition.outset(deal)
        init = proof_solver()
        init.add(*deal.constraints())
        init.add(z3.Not(z3.And(*outset.well_formed(), outset.stretch_invariant())))
        position = SymbolicPosition.fresh(deal, "p")
        step = SymbolicStep(position, "s")
        after = step.after()
        kept = proof_solver()
        kept.add(*deal.constraints(), *position.well_formed(), position.stretch_invariant(),
                 z3.Not(position.over()), *step.constraints)
        kept.add(z3.Not(z3.And(*after.well_formed(), after.stretch_invariant())))
        return bool(self.check(init, players, "invariant-at-outset") == z3.unsat
                    and self.check(kept, players, "invariant-kept-by-a-lead") == z3.unsat)

    def step_frame(self, players: int) -> _StepFrame:
        """Any well-formed position not over (reachable or not), and one lead from it."""
        key = ("step", players)
        self._used.add(key)
        if players not in self._steps:
            self._steps[players] = self.shared(key, lambda: self._build_step(players))
        return self._steps[players]

    def _build_step(self, players: int) -> _StepFrame:
        """The encoding behind :meth:`step_frame`."""
        deal = SymbolicDeal(self.semantics, players)
        position = SymbolicPosition.fresh(deal, "p")
        step = SymbolicStep(position, "s")
        solver = proof_solver()  # its models are never read (a line is searched for instead)
        solver.add(*deal.constraints(), *position.well_formed(), z3.Not(position.over()),
                   *step.constraints)
        return _StepFrame(deal, position, step, solver)

    def check_step(self, players: int, bad: StepCondition,
                   query: str = "one-lead") -> z3.CheckSatResult:
        frame = self.step_frame(players)
        frame.solver.push()
        try:  # the frame is shared: an interrupted check must not leave ``bad`` asserted
            frame.solver.add(bad(frame.deal, frame.position, frame.step))
            return self.check(frame.solver, players, query)
        finally:
            frame.solver.pop()

    def one_step_method(self) -> str:
        return (f"z3: one lead checked from every well-formed position not over, reachable or "
                f"not (no invariant assumed), {self.players_text()}")

    def players_text(self) -> str:
        return f"{self.players[0]}-{self.players[-1]} players"

    # Bounded search for lines from the outset.

    def _line_frame(self, players: int, depth: int) -> _LineFrame:
        """The unrolled lines from the outset for ``players``, at least ``depth`` leads deep."""
        return self.shared(("lines", players), lambda: self._unroll(players, depth))

    def _unroll(self, players: int, depth: int) -> _LineFrame:
        """Build or deepen the frame of :meth:`_line_frame`."""
        frame = self._lines.get(players)
        if frame is None:
            deal = SymbolicDeal(self.semantics, players)
            solver = z3.Solver()
            solver.add(*deal.constraints())
            frame = _LineFrame(deal, [SymbolicPosition.outset(deal)], [], solver)
            self._lines[players] = frame
        while len(frame.steps) < depth:
            k = len(frame.steps)
            position = frame.positions[k]
            step = SymbolicStep(position, f"lead{k + 1}")
            after = step.after()
            frame.solver.add(z3.Not(position.over()), *step.constraints)
            frame.steps.append(step)
            frame.positions.append(after)
        return frame

    def search_line(self, bad: StepCondition, *, assumptions: Iterable[z3.BoolRef] = (),
                    players: Iterable[int] | None = None,
                    max_depth: int | None = None) -> Found | None:
        """A line from the outset whose last lead satisfies ``bad``, shortest first."""
        counts = tuple(players) if players is not None else self.players
        for depth in range(1, (max_depth or self.max_depth) + 1):
            for p in counts:
                frame = self._line_frame(p, depth)
                frame.solver.push()
                try:
                    frame.solver.add(bad(frame.deal, frame.positions[depth - 1],
                                         frame.steps[depth - 1]), *assumptions)
                    if self.check(frame.solver, p, f"no-line-of-{depth}-leads") == z3.sat:
                        model = frame.solver.model()
                        leads = tuple(s.decode_lead(model) for s in frame.steps[:depth])
                        runs = tuple(s.decode_run(model) for s in frame.steps[:depth])
                        return Found(p, frame.deal.decode(model), leads, runs=runs)
                finally:
                    frame.solver.pop()
        return None

    def search_settled_line(self, bad: FinalCondition,
                            max_depth: int | None = None) -> Found | None:
        """A line from the outset that ends the deal, whose settlement satisfies ``bad``."""
        for depth in range(1, (max_depth or self.max_depth) + 1):
            for p in self.players:
                frame = self._line_frame(p, depth)
                final = frame.positions[depth]
                settlement = frame.settlement(depth)
                frame.solver.push()
                try:
                    frame.solver.add(final.over(), *settlement.constraints,
                                     bad(frame.deal, final, settlement))
                    if self.check(frame.solver, p,
                                  f"no-play-ended-in-{depth}-leads") != z3.sat:
                        continue
                    model = frame.solver.model()
                finally:
                    frame.solver.pop()
                leads = tuple(s.decode_lead(model) for s in frame.steps[:depth])
                runs = tuple(s.decode_run(model) for s in frame.steps[:depth])
                extra = {c.value: model.eval(settlement.carried[c],
                                             model_completion=True).as_long()
                         for c in Compartment}
                carried = (Board(**{c.value: extra[c.value] + settlement.layout[c]
                                    for c in Compartment})
                           if any(extra.values()) else None)
                return Found(p, frame.deal.decode(model), leads, carried, runs)
        return None

    def check_final(self, players: int, bad: FinalCondition, abstract_counts: bool = False,
                    query: str = "settlement") -> z3.CheckSatResult:
        """Is ``bad`` possible for the settlement of any finished play (reachable or not)?

        With ``abstract_counts`` the cards left in each hand are any number up to a full hand.
        """
        frame = self.final_frame(players, abstract_counts)
        solver = z3.Solver()
        solver.add(*frame.constraints, bad(frame.deal, frame.final, frame.settlement))
        return self.check(solver, players, query)

    def final_frame(self, players: int, abstract_counts: bool = False) -> FinalFrame:
        """The frame of :meth:`check_final`, built once per player count (each check has a
        solver of its own)."""
        key = ("finished-any-count" if abstract_counts else "finished", players)
        self._used.add(key)
        if key not in self._finals:
            self._finals[key] = self.shared(
                key, lambda: self._build_final(players, abstract_counts))
        return self._finals[key]

    def _build_final(self, players: int, abstract_counts: bool) -> FinalFrame:
        deal = SymbolicDeal(self.semantics, players)
        final = SymbolicPosition.fresh(deal, "end")
        settlement = SymbolicSettlement(deal, final, abstract_counts=abstract_counts)
        return FinalFrame(deal, final, settlement,
                          [*deal.constraints(), *final.well_formed(), *settlement.constraints])

    # Replaying what the search found.

    def replay(self, found: Found, check: Callable[[Deal, list[Run]], bool],
               finish: bool = False, role: str = "counterexample") -> Counterexample:
        """Play the found line through the rules model and check it shows what it should.

        ``finish`` plays on (always the first legal lead) until a player is out. ``role``
        says what the line is, for a certificate.
        """
        if not self.semantics.is_standard:
            return Counterexample(_raw_deal_json(self.semantics, found),
                                  tuple({"lead": card_name(c)} for c in found.leads), False)
        decoded = found.deal
        try:
            deal = Deal.create(decoded.hands, decoded.dead, decoded.turnup,
                               self.semantics.rules, found.carried)
            position = Position.from_deal(deal)
            runs: list[Run] = []
            for k, lead in enumerate(found.leads):
                run = _chosen(position, lead, found.runs[k] if found.runs else None)
                position = position.after(run)
                runs.append(run)
            if finish:
                while legal := position.legal_leads():
                    run, position = position.play(legal[0])
                    runs.append(run)
        except PopeJoanError as exc:  # the model refuses what the encoding found: our bug
            raise ProofError(f"the rules model cannot replay a line the encoding found: {exc} "
                             f"({found.players} players, hands "
                             f"{' / '.join(format_cards(h) for h in decoded.hands)}, leads "
                             f"{' '.join(card_name(c) for c in found.leads)})") from None
        if not check(deal, runs):
            raise ProofError(f"a line found by the encoding does not do in the rules model what "
                             f"the encoding said: {found.players} players, hands "
                             f"{' / '.join(format_cards(h) for h in decoded.hands)}, dead "
                             f"{format_cards(decoded.dead)}, turn-up {card_name(decoded.turnup)}"
                             f", leads {' '.join(card_name(c) for c in found.leads)}")
        example = Counterexample(deal_to_json(deal), tuple(r.to_json() for r in runs), True)
        if self.recorder is not None:
            self.recorder.witness(str(self._scope[-1]), example, role)
        return example


def _chosen(position: Position, lead: Card, cards: Mask | None) -> Run:
    """The run of ``lead`` the encoding chose: the model's outcome with those ``cards`` (the
    forced run when none are given); a ProofError if the model has no such outcome."""
    outcomes = position.outcomes(lead)
    if cards is None:
        return outcomes[0]
    for run in outcomes:
        if run.mask == cards:
            return run
    raise ProofError(f"the encoding's run {format_cards(cards)} after {card_name(lead)} is "
                     f"none of the model's: "
                     f"{'; '.join(format_cards(r.mask) for r in outcomes)}")


def _raw_deal_json(semantics: PlaySemantics, found: Found) -> dict[str, Any]:
    """A mutant's deal, which :class:`Deal` would refuse (it may hold the 8♦)."""
    data: dict[str, Any] = {
        "rules": semantics.name,
        "hands": [format_cards(h) for h in found.deal.hands],
        "dead": format_cards(found.deal.dead),
        "turnup": card_name(found.deal.turnup),
    }
    if found.carried is not None:
        data["board"] = found.carried.to_json()
    return data
