"""Grading a line of play: for every lead, the guaranteed value its leader kept against the
best lead he had (the double-dummy mark of each lead, as DDS's ``AnalysePlay`` gives bridge).

One engine serves the whole line, so the positions of one deal share its transposition table;
each lead costs two searches: the position's value (the best lead's) and the played lead's.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.arguments import check_time_limit
from ..model.cards import Card, card_name
from ..model.deal import Deal
from ..model.errors import IllegalPlayError, PopeJoanError
from ..model.play import Game, Position, Run
from .api import interruptible, make_engine, play_board
from .driver import Driver
from .fast import DEFAULT_TT_ENTRIES
from .objective import Goal, Objective
from .result import Value


@dataclass(frozen=True)
class LeadGrade:
    """One lead of a line: its leader (from 1), the card, and the leader's guaranteed value
    after it (``kept``) and after the best lead (``best``)."""

    number: int
    """The lead's place in the line, from 1."""
    seat: int
    card: Card
    kept: Value
    best: Value

    @property
    def cost(self) -> Value:
        """What the lead cost its leader: best − kept (bounds past a time limit)."""
        return Value(max(0, self.best.lower - self.kept.upper),
                     max(0, self.best.upper - self.kept.lower))

    @property
    def optimal(self) -> bool | None:
        """Whether the lead kept the best value; None while the bounds cannot tell."""
        if self.cost.upper == 0:
            return True
        return False if self.cost.lower > 0 else None

    def to_json(self) -> dict[str, Any]:
        return {"lead": self.number, "seat": self.seat, "card": card_name(self.card),
                "kept": self.kept.to_json(), "best": self.best.to_json(),
                "cost": self.cost.to_json(), "optimal": self.optimal}


def grade_line(deal: Deal, runs: Sequence[Run], *, time_limit: float | None = None,
               tt_entries: int = DEFAULT_TT_ENTRIES) -> list[LeadGrade]:
    """Grade every lead of ``runs``, a line of play from ``deal`` (each run one outcome of its
    lead there, choices included). Raises :class:`IllegalPlayError` for a run that cannot be
    played where it stands."""
    check_time_limit(time_limit)
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    game = Game.from_deal(deal)
    board, award = play_board(deal)
    if award is not None and not award.deal_is_played:
        if runs:
            raise IllegalPlayError("the deal is not played: Pope was turned up")
        return []
    driver = Driver(make_engine("fast", game, board, deadline, tt_entries), game, board,
                     deadline)
    positions = _positions(Position(game, deal.played_mask, deal.leader), runs)

    def work() -> list[LeadGrade]:
        grades = []
        for number, (position, run) in enumerate(zip(positions, runs, strict=True), start=1):
            objective = Objective(Goal.GUARANTEED, position.leader)
            best = driver.value(objective, position.played, position.leader)
            tree = game.run_tree(position.played, position.leader, run.lead)
            kept = driver.tree_value(objective, position, tree)
            grades.append(LeadGrade(number, position.leader, run.lead, kept, best))
        return grades

    return interruptible(work, [driver.engine])


def _positions(start: Position, runs: Sequence[Run]) -> list[Position]:
    """The position before each run, each run checked to be an outcome of its lead there."""
    positions = []
    position = start
    for number, run in enumerate(runs, start=1):
        if position.is_over:
            raise IllegalPlayError(f"lead {number}: the deal is over")
        if run.leader != position.leader or run not in position.outcomes(run.lead):
            raise IllegalPlayError(
                f"lead {number}: {run.step} by seat {run.leader} is not a run of this "
                f"position (seat {position.leader} to lead)")
        positions.append(position)
        position = position.after(run)
    return positions


def summary(grades: Sequence[LeadGrade], players: int) -> list[dict[str, Any]]:
    """Per seat: leads graded, leads that lost value (errors), and their total cost (bounds
    where a time limit left a cost unknown)."""
    if players < 1:
        raise PopeJoanError("a summary needs at least one seat")
    rows = []
    for seat in range(1, players + 1):
        own = [g for g in grades if g.seat == seat]
        low = sum(g.cost.lower for g in own)
        high = sum(g.cost.upper for g in own)
        rows.append({"seat": seat, "leads": len(own),
                     "errors": sum(1 for g in own if g.optimal is False),
                     "cost": Value(low, high).to_json()})
    return rows
