"""What the Python search kernels share with the engine that drives them: the transposition
tables, the node count, the deadline and the cancel flag."""

from __future__ import annotations

from collections.abc import Callable

from ..model.cards import Mask
from .objective import Objective

Search = Callable[[Mask, int, int, int], int]
"""An alpha-beta search of one objective: ``(played, leader, alpha, beta) -> value`` (fail-soft,
slot space)."""

Entry = tuple[int, int, int]
"""A transposition-table entry: lower bound, upper bound, best lead slot (-1: none)."""


class SearchState:
    """The engine's mutable search state, passed to the kernels it builds (they read and count
    here, so that neither kernel needs the engine)."""

    def __init__(self, deadline: float | None, tt_entries: int) -> None:
        self.deadline = deadline
        """``time.monotonic()`` past which a search raises its timeout (None: no limit)."""
        self.tt_entries = tt_entries
        """The most entries a table holds; it is cleared when it reaches them."""
        self.nodes = 0
        """Positions searched so far."""
        self.cancelled = False
        """Set from another thread: every search stops as if its time ran out."""
        self.tables: dict[Objective, dict[int, Entry]] = {}
        """Each objective's transposition table, by ``played << 3 | leader``: kept from one
        search of an objective to the next (both kernels share it)."""

    def table(self, objective: Objective) -> dict[int, Entry]:
        """The transposition table of ``objective``."""
        return self.tables.setdefault(objective, {})
