"""Vacuity guards: a proof is reported only if what it quantifies over exists.

"Unsatisfiable" proves a theorem only when the frame it was checked in (a deal, a position
and one lead from it, a finished play and its settlement) has models, and when the theorem's
premise (a King is played, the K and Q of trumps are apart, ...) holds in some of them. A
frame with no model is a bug of the encoding (:class:`ProofError`, ``prove`` exits 4); a
premise with no model makes the theorem *vacuous* for that ruleset: it says nothing, and is
reported so instead of proved. Before the first proof of a run is reported, the encoding is
also checked equal to the model on small deals (:func:`.validation.validate_for_prove`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

import z3

from .encoding import SymbolicDeal, SymbolicPosition, SymbolicStep
from .prover import FinalCondition, ProofError, StepCondition, Workspace, check_sat
from .validation import validate_for_prove


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

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self._frames: dict[tuple[Frame, int], bool] = {}
        self._validated: str | None = None

    def translation(self) -> str:
        """Validate the encoding against the model once (a :class:`ValidationError` if they
        differ) and say what was compared; nothing for a mutant, which the model cannot play."""
        sem, key = self.ws.semantics, ("translation", 3)
        if self._validated is None:
            self._validated = self.ws._shared(  # charged like the other shared work
                key, lambda: validate_for_prove(sem).summary() if sem.is_standard else "")
        else:
            self.ws._used.add(key)  # every proof rests on it: each is charged its time
        return self._validated

    def premise_fails(self, premise: Premise) -> list[int]:
        """The player counts for which ``premise`` has no model; raises :class:`ProofError`
        if one of its frames has none."""
        for frame in premise.frames:
            for p in self.ws.players:
                if not self._frame(frame, p):
                    raise ProofError(f"vacuous proof: {frame.value} is impossible in the "
                                     f"encoding ({self.ws.semantics.name}, {p} players)")
        step, final = premise.step, premise.final
        return [p for p in self.ws.players
                if (step is not None and not self._step_premise(p, step))
                or (final is not None and not self._final_premise(p, final))]

    def _frame(self, frame: Frame, players: int) -> bool:
        key = (frame, players)
        if key not in self._frames:
            check = {Frame.DEAL: self._deal, Frame.LEAD: self._lead,
                     Frame.FINISHED: self._finished}[frame]
            self._frames[key] = check(players)
        return self._frames[key]

    def _deal(self, players: int) -> bool:
        solver = z3.Solver()
        solver.add(*SymbolicDeal(self.ws.semantics, players).constraints())
        return bool(check_sat(solver) == z3.sat)

    def _lead(self, players: int) -> bool:
        return self._step_premise(players, lambda _d, _p, _s: z3.BoolVal(True))

    def _finished(self, players: int) -> bool:
        return self._final_premise(players, lambda _d, _f, st: st.deal_played)

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


def in_run(cards: Callable[[SymbolicDeal, int], z3.BoolRef]) -> StepCondition:
    """The premise "a card of the set is played" (led or led to)."""
    def premise(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
        return z3.Or(*[z3.And(cards(deal, c), step.run[c]) for c in deal.cards])
    return premise


__all__ = ["Frame", "Guard", "Premise", "in_run"]
