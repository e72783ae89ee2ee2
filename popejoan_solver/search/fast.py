"""The fast engine: MTD(f) over null-window alpha-beta searches with a bounded transposition
table of bounds, in slot space (``slots.py``).

The searches run in the compiled core (``_core.c``) when it is built, else in the Python
kernels (``kernel.py`` for forced runs, ``general.py`` for choices inside a run), which are
its specification; every pruning rule is argued in ``docs/solver.md``.
"""

from __future__ import annotations

from typing import Any

from ..model.board import Board
from ..model.cards import Mask
from ..model.play import Game
from .bounds import SlotBounds
from .general import general_searcher
from .kernel import forced_searcher
from .objective import INF, Goal, Objective, SearchTimeoutError
from .slots import SlotGame
from .state import Search, SearchState

try:
    from . import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - only when the extension could not be built
    _core = None

COMPILED: bool = _core is not None
"""True when the compiled core is in use (the pure-Python search otherwise)."""

DEFAULT_TT_ENTRIES = 1 << 22
"""Default bound on transposition-table entries (16 bytes each in the compiled core: 64 MiB;
the Python table is cleared when it reaches the bound, per objective)."""

GOAL_IDS = {Goal.GUARANTEED: 0, Goal.FORCED_WIN: 1, Goal.BEST_CASE: 2}
"""The goals as the compiled core numbers them (``_core.GOAL_*`` must agree)."""


class FastEngine:
    """Exact values of positions, with MTD(f) driving null-window alpha-beta searches."""

    name = "fast"

    def __init__(self, game: Game, board: Board, deadline: float | None = None,
                 tt_entries: int = DEFAULT_TT_ENTRIES, compiled: bool | None = None) -> None:
        if compiled and _core is None:
            raise RuntimeError("the compiled core of the fast engine is not built")
        self.slots = SlotGame(game, board)
        self.deadline = deadline
        self.tt_entries = tt_entries
        self.state = SearchState(deadline, tt_entries)
        """The Python kernels' tables, node count and cancel flag."""
        self.static_bounds = SlotBounds(self.slots)
        self._core: Any = None
        if _core is not None and compiled is not False:
            sg = self.slots
            self._core = _core.Core(sg.dealt, sg.up, sg.holder, int(game.table.lead),
                                    sg.awards, sg.game_stake, sg.exempt_bit, tt_entries,
                                    sg.choices, sg.per_card)
        self.core = "c" if self._core is not None else "python"
        self._guess: dict[Objective, int] = {}
        self.bounds: tuple[int, int] = (-INF, INF)
        """Root bounds proven so far by the latest :meth:`value` call (read after a timeout)."""

    def cancel(self) -> None:
        """Stop every search, running (in another thread) or to come, as if its time ran out."""
        self.state.cancelled = True
        if self._core is not None:
            self._core.cancel()

    def value(self, objective: Objective, played: Mask, leader: int,
              known: tuple[int, int] | None = None, guess: int | None = None) -> int:
        """The exact value of the position (card-space ``played``) for ``objective``.

        ``known`` are bounds the caller has already proven (say, a seat's guaranteed value
        below its best case); they only narrow the search. MTD(f) starts from ``guess`` (by
        default the last value found for the objective); a guess changes no value.
        """
        played_slots = self.slots.to_slots(played)
        ended = self._ended(objective, played_slots)
        if ended is not None:
            return ended
        low, high = self.static_bounds(objective, played_slots)
        if known is not None:
            low, high = max(low, known[0]), min(high, known[1])
        if guess is None:
            guess = self._guess.get(objective, 0)
        guess = min(max(guess, low), high)
        low, high = self._mtd(objective, played_slots, leader, low, high, guess)
        self._guess[objective] = low
        return low

    def lead_values(self, played: Mask, leader: int, forced_win: bool, staying: int,
                    ) -> tuple[dict[int, tuple[tuple[int, int], tuple[int, int]]], bool] | None:
        """Every legal lead of the seat on lead (card-space ``played``) in one call of the
        compiled core: by card, its paranoid value's bounds and its forced win's (0..1 where
        not searched), and whether all are exact; None without the core: then
        search/leads.py values the leads one at a time."""
        if self._core is None:
            return None
        guess = self._guess.get(Objective(Goal.GUARANTEED, leader), 0)
        found, done = self._core.lead_values(leader - 1, self.slots.to_slots(played), leader - 1,
                                             guess, self.deadline or 0.0, forced_win, staying)
        card_of = self.slots.card_of
        return {card_of[slot]: ((low, high), (win_low, win_high))
                for slot, low, high, win_low, win_high in found}, bool(done)

    def at_least(self, objective: Objective, played: Mask, leader: int, threshold: int) -> bool:
        """Whether the position's value is at least ``threshold``: one null-window search."""
        played_slots = self.slots.to_slots(played)
        ended = self._ended(objective, played_slots)
        if ended is not None:
            return ended >= threshold
        low, high = self.static_bounds(objective, played_slots)
        if threshold <= low or threshold > high:
            return threshold <= low
        low, high = self._mtd(objective, played_slots, leader, threshold - 1, threshold,
                              threshold)
        return low >= threshold

    def _mtd(self, objective: Objective, played: Mask, leader: int, low: int, high: int,
             guess: int) -> tuple[int, int]:
        """MTD(f) from ``guess``: null-window searches close ``[low, high]`` in on the value.

        Returns the final bounds (equal unless the search started inside a narrower window);
        raises :class:`SearchTimeoutError` past the deadline, with :attr:`bounds` kept.
        """
        self.bounds = (low, high)
        if self._core is not None:
            low, high, done = self._core.value(
                GOAL_IDS[objective.goal], objective.index, played, leader - 1, low, high,
                guess, self.deadline or 0.0)
            self.bounds = (low, high)
            if not done:
                raise SearchTimeoutError
            return int(low), int(high)
        search = self._search(objective)
        step, last_direction = 1, 0
        while low < high:
            if self.state.cancelled:
                raise SearchTimeoutError
            beta = guess + 1 if guess == low else guess
            score = search(played, leader - 1, beta - 1, beta)
            direction = -1 if score < beta else 1
            if score < beta:
                high = score
            else:
                low = score
            self.bounds = (low, high)
            # Passes that keep moving the same way take growing steps.
            step = step * 3 if direction == last_direction else 1
            last_direction = direction
            guess = min(max(score + direction * (step - 1), low), high)
        return low, high

    @property
    def nodes(self) -> int:
        """Positions searched so far by this engine."""
        return int(self._core.nodes) if self._core is not None else self.state.nodes

    def _ended(self, objective: Objective, played: Mask) -> int | None:
        """The objective's payoff if a seat is out in slot-space ``played``, else None."""
        for seat in range(self.slots.players):
            if not self.slots.dealt[seat] & ~played:
                return self._terminal(objective, played, seat)
        return None

    def _terminal(self, objective: Objective, played: Mask, winner: int) -> int:
        if objective.goal is Goal.FORCED_WIN:
            return int(winner == objective.index)
        return self.slots.payoff(played, winner, objective.index)

    def _search(self, objective: Objective) -> Search:
        """The Python kernel of ``objective``: the general mode's where runs hold choices or
        awards are paid between players, else the forced-run kernel."""
        slots, state = self.slots, self.state
        if not slots.general:
            return forced_searcher(slots, objective, state)
        plain = forced_searcher(slots, objective, state) if slots.plain_after_lieu else None
        return general_searcher(slots, objective, state, plain)
