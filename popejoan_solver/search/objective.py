"""What a search maximises: one seat's counters against all, its going out, or its best case."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Goal(StrEnum):
    """The three questions the solver answers about a seat."""

    GUARANTEED = "guaranteed"
    """The seat's net counters when every other seat plays against it (paranoid value)."""
    FORCED_WIN = "forced_win"
    """1 if the seat can go out first whatever the others do, else 0."""
    BEST_CASE = "best_case"
    """The seat's net counters when every seat plays for it."""


@dataclass(frozen=True)
class Objective:
    """A goal for one seat (from 1): that seat raises it, the others lower it (in the best
    case every seat raises it; see :meth:`maximises`)."""

    goal: Goal
    seat: int

    @property
    def index(self) -> int:
        """The seat's 0-based index: the engines' slot space counts seats from 0."""
        return self.seat - 1

    def maximises(self, leader: int) -> bool:
        """Whether ``leader`` (a seat, from 1) raises the goal."""
        return self.goal is Goal.BEST_CASE or leader == self.seat


class SearchTimeoutError(Exception):
    """Raised inside a search when its deadline passes."""


INF = 1 << 62
"""Beyond every value: boards hold at most 2**31 counters a compartment (model.board)."""
