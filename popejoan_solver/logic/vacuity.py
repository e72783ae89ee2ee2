"""Vacuity guards: a proof is reported only if what it quantifies over exists.

"Unsatisfiable" proves a theorem only when the frame it was checked in (a deal, a position
and one lead from it, a finished play and its settlement) has models, and when the theorem's
premise (a King is played, the K and Q of trumps are apart, ...) holds in some of them. A
frame with no model is a bug of the encoding (:class:`ProofError`, ``prove`` exits 4); a
premise with no model makes the theorem *vacuous* for that ruleset: it says nothing, and is
reported so instead of proved. The frames are checked *first*, before any theorem's proof, each
with its own time limit (:data:`FRAME_SECONDS`): a frame that has models has one within
milliseconds, so a frame with none (which can make the proof itself run for minutes) is an
internal error at once. Before them, the dealing frame is checked to admit exactly the deals
the rules model deals (:mod:`.deal_shapes`). Before the first proof of a run is reported, the
encoding is also checked equal to the model (:func:`.validation.validate_for_prove`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

import z3

from ..model.cards import iter_mask
from ..model.deal import Deal, deal_random
from ..model.notation import deal_to_line
from .deal_shapes import ShapeError, ShapeReport, check_deal_shapes
from .encoding import SymbolicDeal, SymbolicPosition, SymbolicStep
from .prover import FinalCondition, ProofError, StepCondition, Workspace, check_sat
from .semantics import PlaySemantics
from .validation import validate_choices, validate_for_prove, validate_turnups, with_turnup

FRAME_SECONDS: Final = 20.0
"""The time limit of each frame's check (a frame found satisfiable takes well under a second:
z3 finds a deal, a position and a lead at once; an empty one may take z3 minutes to refute)."""


class Frame(StrEnum):
    """What a theorem's checks quantify over."""

    DEAL = "a deal"
    LEAD = "a position not over and one legal lead from it"
    FINISHED = "a played deal played out, and its settlement"


@dataclass(frozen=True)
class Premise:
    """A theorem's frames and the premise its claim is conditioned on (None: the claim is
    about every element of its frames, which must exist)."""

    frames: tuple[Frame, ...]
    what: str = ""
    step: StepCondition | None = None
    """A premise about one lead, checked in :attr:`Frame.LEAD`."""
    final: FinalCondition | None = None
    """A premise about a finished play, checked in :attr:`Frame.FINISHED`."""


class Guard:
    """The vacuity checks of one prove run: frames checked once per player count."""

    def __init__(self, ws: Workspace, seconds: float | None = None) -> None:
        self.ws = ws
        self.seconds = FRAME_SECONDS if seconds is None else seconds
        self._frames: dict[tuple[Frame, int], bool | None] = {}
        self._validated: str | None = None
        self._shapes: str | None = None

    def translation(self) -> str:
        """Validate the encoding against the model once (a :class:`ValidationError` if they
        differ) and say what was compared; nothing for a mutant, which the model cannot play."""
        sem, key = self.ws.semantics, ("translation", 3)
        if self._validated is None:
            self._validated = self.ws.shared(  # charged like the other shared work
                key, lambda: _validated(sem))
        else:
            self.ws.rests_on(key)  # every proof rests on it: each is charged its time
        return self._validated

    def frames_first(self, premises: Iterable[Premise]) -> None:
        """Check every frame of ``premises`` for every player count, before any proof runs: a
        frame without a model (or none found within :data:`FRAME_SECONDS`) is a
        :class:`ProofError`."""
        needed = list(dict.fromkeys(f for premise in premises for f in premise.frames))
        self.shapes()
        for frame in needed:
            for p in self.ws.players:
                self._require(frame, p)

    def shapes(self) -> str:
        """Check once that the dealing frame admits exactly the rules model's deals, for
        every player count (:func:`.deal_shapes.check_deal_shapes`: a :class:`ProofError`
        with the deal that differs if not); what was checked, or nothing for a mutant,
        whose deals the model does not deal."""
        sem = self.ws.semantics
        if self._shapes is None:
            witnesses = 0
            if sem.is_standard:
                for p in self.ws.players:
                    try:
                        witnesses += check_deal_shapes(sem.rules, SymbolicDeal(sem, p),
                                                       check_sat)
                    except ShapeError as exc:
                        raise ProofError(str(exc)) from None
            self._shapes = (ShapeReport(self.ws.players, witnesses).summary()
                            if sem.is_standard else "")
        return self._shapes

    def _require(self, frame: Frame, players: int) -> None:
        """:class:`ProofError` unless ``frame`` has a model for ``players``."""
        key = (frame, players)
        if self._frames.get(key):
            return
        found = self._frame(frame, players)
        if found is None:
            del self._frames[key]  # undecided: asked again, it is tried again
            raise ProofError(f"vacuous proof? {frame.value} was not found possible in the "
                             f"encoding within {self.seconds:g} s ({self.ws.semantics.name}, "
                             f"{players} players): a frame that has models has one at once, "
                             "so the encoding's frame is most likely empty")
        if not found:
            raise ProofError(f"vacuous proof: {frame.value} is impossible in the "
                             f"encoding ({self.ws.semantics.name}, {players} players)")

    def premise_fails(self, premise: Premise) -> list[int]:
        """The player counts for which ``premise`` has no model; raises :class:`ProofError`
        if one of its frames has none."""
        for frame in premise.frames:
            for p in self.ws.players:
                self._require(frame, p)
        step, final = premise.step, premise.final
        return [p for p in self.ws.players
                if (step is not None and not self._step_premise(p, step))
                or (final is not None and not self._final_premise(p, final))]

    def _frame(self, frame: Frame, players: int) -> bool | None:
        """Whether ``frame`` has a model (None: none found within the time limit)."""
        key = (frame, players)
        if key not in self._frames:
            check = {Frame.DEAL: self._deal, Frame.LEAD: self._lead,
                     Frame.FINISHED: self._finished}[frame]
            self._frames[key] = check(players)
        return self._frames[key]

    def _limited(self, deal: SymbolicDeal, assertions: Iterable[z3.BoolRef]) -> bool | None:
        """Are ``assertions`` (over ``deal``) satisfiable? Asked first with a deal the rules
        model deals fixed (decided at once), then with the deal free, within :attr:`seconds`
        (None: not decided)."""
        solver = z3.Solver()
        solver.set("timeout", max(1, round(self.seconds * 1000)))
        solver.add(*assertions)
        known = self._model_deal(deal.players)
        if known is not None and check_sat(solver, deal_literals(deal, known)) == z3.sat:
            return True
        result = check_sat(solver)
        return None if result == z3.unknown else result == z3.sat

    def _model_deal(self, players: int) -> Deal | None:
        """A deal of the rules model, played (its turn-up does not end it); None for a
        mutant, whose pack the model does not deal."""
        sem = self.ws.semantics
        if not sem.is_standard:
            return None
        deal = deal_random(players, "vacuity", sem.rules)
        ends = sem.table.ends_deal_turnup
        if deal.turnup == ends:
            deal = with_turnup(deal, next(c for c in iter_mask(deal.dead) if c != ends))
        return deal

    def _deal(self, players: int) -> bool | None:
        deal = SymbolicDeal(self.ws.semantics, players)
        known = self._model_deal(players)
        if known is not None:
            solver = z3.Solver()
            solver.add(*deal.constraints(), *deal_literals(deal, known))
            if check_sat(solver) == z3.unsat:  # decided by propagation, at once
                raise ProofError(f"vacuous proof: the encoding's frame of a deal refuses a "
                                 f"deal the rules model deals ({self.ws.semantics.name}, "
                                 f"{players} players: {deal_to_line(known)})")
            return True
        return self._limited(deal, deal.constraints())

    def _lead(self, players: int) -> bool | None:
        self._require(Frame.DEAL, players)  # the deal first: its check is the cheapest
        frame = self.ws.step_frame(players)
        return self._limited(frame.deal, frame.solver.assertions())

    def _finished(self, players: int) -> bool | None:
        self._require(Frame.DEAL, players)
        frame = self.ws.final_frame(players)
        return self._limited(frame.deal, [*frame.constraints, frame.settlement.deal_played])

    def _step_premise(self, players: int, premise: StepCondition) -> bool:
        frame = self.ws.step_frame(players)
        frame.solver.push()
        try:
            frame.solver.add(premise(frame.deal, frame.position, frame.step))
            return bool(check_sat(frame.solver) == z3.sat)
        finally:
            frame.solver.pop()

    def _final_premise(self, players: int, premise: FinalCondition) -> bool:
        """The frame of :meth:`Workspace.check_final`, with a played deal and ``premise``."""
        frame = self.ws.final_frame(players)
        solver = z3.Solver()
        solver.add(*frame.constraints, frame.settlement.deal_played,
                   premise(frame.deal, frame.final, frame.settlement))
        return bool(check_sat(solver) == z3.sat)


def deal_literals(sym: SymbolicDeal, deal: Deal) -> list[z3.BoolRef]:
    """``deal`` as literals of the encoding's deal ``sym`` (where each card lies, the
    turn-up)."""
    def literal(var: z3.BoolRef, value: bool) -> z3.BoolRef:
        return var if value else z3.Not(var)

    lits = []
    for c in sym.cards:
        lits += [literal(sym.hold[c, s], deal.holder(c) == s + 1) for s in range(sym.players)]
        lits += [literal(sym.dead[c], bool(deal.dead >> c & 1)),
                 literal(sym.turnup[c], c == deal.turnup)]
    return lits


def _validated(semantics: PlaySemantics) -> str:
    """The encoding validated against the model on the windows' small deals and on every
    turn-up the settlement treats apart (:func:`.validation.validate_turnups`, which those
    deals never have), and the choices inside a run symbolically
    (:func:`.validation.validate_choices`); what was compared, or nothing for a mutant."""
    if not semantics.is_standard:
        return ""
    report = validate_for_prove(semantics)
    validate_turnups(semantics)
    if not semantics.table.choice_points:
        return report.summary()
    seconds = validate_choices(semantics, (CHOICE_PLAYERS,))
    return (f"{report.summary()}; the choices inside a run equal the model's for every "
            f"{CHOICE_PLAYERS}-player position, symbolically ({seconds:.1f} s)")


CHOICE_PLAYERS = 3
"""The player count of the symbolic check of the choices ``prove`` runs before a proof (a
choice and its run read the seats only through who holds each card)."""


def in_run(cards: Callable[[SymbolicDeal, int], z3.BoolRef]) -> StepCondition:
    """The premise "a card of the set is played" (led or led to)."""
    def premise(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
        return z3.Or(*[z3.And(cards(deal, c), step.run[c]) for c in deal.cards])
    return premise


__all__ = ["FRAME_SECONDS", "Frame", "Guard", "Premise", "in_run"]
