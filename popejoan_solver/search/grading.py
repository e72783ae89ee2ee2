"""``popejoan grade``: every lead of a played record marked against the best lead its leader had
(search/grade.py), per deal and for the session, with a summary per player.

A record is replayed by the referee first: only a legal record is graded (its first illegal
step is the answer otherwise).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from ..model.cards import card_name
from ..model.errors import PopeJoanError
from ..model.record import Record
from ..model.referee import DealReplay, RecordReplay, Violation, replay
from .grade import LeadGrade, grade_line
from .result import Value


@dataclass(frozen=True)
class GradedLead:
    """A lead of the record: its deal and play (from 1), the player who led, and its grade."""

    deal: int
    play: int
    player: int
    """The record's player (from 1) who led: the seat, in a one-deal record."""
    grade: LeadGrade

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "play": self.play, "seat": self.grade.seat,
                "player": self.player, "card": card_name(self.grade.card),
                "kept": self.grade.kept.to_json(), "best": self.grade.best.to_json(),
                "cost": self.grade.cost.to_json(), "optimal": self.grade.optimal}


@dataclass(frozen=True)
class RecordGrade:
    """The grades of a record's leads, or the referee's first violation."""

    replayed: RecordReplay
    leads: tuple[GradedLead, ...]
    seconds: float

    @property
    def error(self) -> Violation | None:
        return self.replayed.error

    def players(self, only: int | None = None) -> list[dict[str, Any]]:
        """Per player (or only player ``only``), players from 1: leads graded, errors, total
        cost."""
        count = self.replayed.record.seats
        rows = []
        for player in range(1, count + 1):
            if only is not None and player != only:
                continue
            own = [g.grade for g in self.leads if g.player == player]
            rows.append({"player": player, "seat": player, "leads": len(own),
                         "errors": sum(1 for g in own if g.optimal is False),
                         "cost": self.total_cost(player).to_json()})
        return rows

    def total_cost(self, player: int) -> Value:
        """The summed cost of the leads of ``player`` (from 1): bounds when any lead's are."""
        own = [g.grade for g in self.leads if g.player == player]
        return Value(sum(g.cost.lower for g in own), sum(g.cost.upper for g in own))

    def to_json(self, only: int | None = None) -> dict[str, Any]:
        """``popejoan grade --json``: every lead, or only player ``only``'s (from 1)."""
        leads = [g for g in self.leads if only is None or g.player == only]
        error = self.error.to_json() if self.error is not None else None
        return {"legal": self.error is None, "error": error,
                "leads": [g.to_json() for g in leads], "players": self.players(only),
                "seconds": round(self.seconds, 3)}


def grade_record(record: Record, *, time_limit: float | None = None) -> RecordGrade:
    """Replay ``record`` and grade every lead of every deal it holds (``time_limit`` for each
    deal: past it, values are bounds)."""
    started = time.monotonic()
    replayed = replay(record)
    if replayed.error is not None:
        return RecordGrade(replayed, (), time.monotonic() - started)
    graded: list[GradedLead] = []
    for index, deal in enumerate(replayed.deals):
        graded += _grade_deal(index, deal, time_limit)
    return RecordGrade(replayed, tuple(graded), time.monotonic() - started)


def _grade_deal(index: int, replayed: DealReplay, time_limit: float | None,
                ) -> list[GradedLead]:
    runs = [step.run for step in replayed.steps]
    try:
        grades = grade_line(replayed.deal, runs, time_limit=time_limit)
    except PopeJoanError as exc:  # the referee passed it: a disagreement is a bug of ours
        raise RuntimeError(f"deal {index + 1}: the grader refused a line the referee "
                           f"accepted: {exc}") from exc
    return [GradedLead(index + 1, step.first_play + 1, replayed.players[grade.seat - 1], grade)
            for step, grade in zip(replayed.steps, grades, strict=True)]


def describe(result: RecordGrade, only: int | None = None) -> list[str]:
    """The grade as text: one line a lead, then the players' summary (only player ``only``'s,
    from 1, when given)."""
    lines = []
    for lead in result.leads:
        if only is not None and lead.player != only:
            continue
        grade = lead.grade
        mark = {True: "best", False: f"costs {grade.cost}", None: f"costs {grade.cost}?"}
        lines.append(f"deal {lead.deal} play {lead.play:>3}: player {lead.player} "
                     f"(seat {grade.seat}) leads {card_name(grade.card):3} kept {grade.kept} "
                     f"of {grade.best}  {mark[grade.optimal]}")
    lines.append("")
    for row in result.players(only):
        lines.append(f"player {row['player']}: {row['leads']} leads graded, {row['errors']} "
                     f"lost value, total cost {result.total_cost(row['player'])}")
    return lines
