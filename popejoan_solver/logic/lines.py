"""Is there a line of play that ends a certain way? A memoised depth-first search.

Used by ``find`` to check the Matrimony properties exactly ("some line pays", "some line does
not"), and to return that line, which the deal search then generalises into a learned clause.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from enum import Enum

from ..model.cards import Mask
from ..model.play import Game, Run


class Verdict(Enum):
    """A goal's verdict on a position: reached, impossible from here, or not yet known."""

    REACHED = "reached"
    FAILED = "failed"
    OPEN = "open"


Goal = Callable[[Mask, int | None], Verdict]
"""``goal(played, winner)``; ``winner`` is None while the deal goes on. At the end of a deal
(a 0-based ``winner``) it must not answer OPEN."""


class LineSearchTimeoutError(Exception):
    """The search ran past its deadline."""


def find_line(game: Game, played: Mask, leader: int, goal: Goal,
              deadline: float | None = None) -> list[Run] | None:
    """A line from ``(played, leader)`` that reaches ``goal``, or None if no line does."""
    failed: set[tuple[Mask, int]] = set()
    line: list[Run] = []
    counter = [0]

    def search(played: Mask, leader: int) -> bool:
        winner = game.winner(played)
        verdict = goal(played, winner)
        if verdict is not Verdict.OPEN:
            return verdict is Verdict.REACHED
        if winner is not None:
            raise ValueError("the goal left a finished deal open")
        key = (played, leader)
        if key in failed:
            return False
        counter[0] += 1
        if deadline is not None and counter[0] % 256 == 0 and time.monotonic() > deadline:
            raise LineSearchTimeoutError
        for lead in game.legal_leads(played, leader):
            run = game.forced_run(played, leader, lead)
            line.append(run)
            after = played | run.mask
            if search(after, leader if run.next_leader is None else run.next_leader):
                return True
            line.pop()
        failed.add(key)
        return False

    return list(line) if search(played, leader) else None
