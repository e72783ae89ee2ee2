"""The reference engine: plain memoised alpha-beta over (cards played, player to lead).

Kept simple enough to trust by reading: it plays every legal lead through the rules model
(:meth:`Game.forced_run`), scores finished deals with the model's own settlement, and keeps a
transposition table of proven bounds. It is the oracle of the differential tests and the
baseline of the benchmarks. A choice inside a run (:meth:`Game.run_tree`) is one more node,
taken by its chooser. It tries the leads in a competent order, as any fair baseline would:
those that end the deal first, then the longest runs (the order changes no value).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from ..model.board import Board
from ..model.cards import Mask
from ..model.play import Game, Run, RunTree
from ..model.settlement import play_values
from .objective import INF, Goal, Objective, SearchTimeoutError


class ReferenceEngine:
    """Exact values of positions of one deal, one transposition table per objective."""

    name = "reference"

    def __init__(self, game: Game, board: Board, deadline: float | None = None) -> None:
        self.game = game
        self.board = board
        self.deadline = deadline
        self.nodes = 0
        self.cancelled = False
        self._tables: dict[Objective, dict[tuple[Mask, int], tuple[int, int]]] = {}

    def cancel(self) -> None:
        """Stop every search, running (in another thread) or to come, as if its time ran out."""
        self.cancelled = True

    def terminal(self, objective: Objective, played: Mask, winner: int) -> int:
        if objective.goal is Goal.FORCED_WIN:
            return int(winner == objective.seat)
        return play_values(self.game, self.board, played, winner)[objective.index]

    def value(self, objective: Objective, played: Mask, leader: int,
              known: tuple[int, int] | None = None, guess: int | None = None) -> int:
        """The exact value of the position for ``objective`` (``known`` bounds and the
        ``guess`` are unused: this engine searches the full window)."""
        winner = self.game.winner(played)
        if winner is not None:
            return self.terminal(objective, played, winner)
        table = self._tables.setdefault(objective, {})
        return self._search(objective, table, played, leader, -INF, INF)

    def at_least(self, objective: Objective, played: Mask, leader: int, threshold: int) -> bool:
        """Whether the position's value is at least ``threshold`` (a null-window search)."""
        winner = self.game.winner(played)
        if winner is not None:
            return self.terminal(objective, played, winner) >= threshold
        table = self._tables.setdefault(objective, {})
        return self._search(objective, table, played, leader, threshold - 1, threshold) >= threshold

    def _search(self, objective: Objective, table: dict[tuple[Mask, int], tuple[int, int]],
                played: Mask, leader: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes % 1024 == 0 and (self.cancelled or (
                self.deadline is not None and time.monotonic() > self.deadline)):
            raise SearchTimeoutError
        lower, upper = table.get((played, leader), (-INF, INF))
        if lower >= beta:
            return lower
        if upper <= alpha or lower == upper:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        window_low, window_high = alpha, beta
        trees = sorted((self.game.run_tree(played, leader, lead)
                        for lead in self.game.legal_leads(played, leader)), key=lead_order)
        best = self._choose(objective, table, played, objective.maximises(leader), trees,
                            alpha, beta)
        # Fail-soft: a result at or below the window is an upper bound, at or above a lower one.
        if best <= window_low:
            upper = min(upper, best)
        elif best >= window_high:
            lower = max(lower, best)
        else:
            lower = upper = best
        table[(played, leader)] = (lower, upper)
        return best

    def _outcome(self, objective: Objective, table: dict[tuple[Mask, int], tuple[int, int]],
                 played: Mask, tree: RunTree, alpha: int, beta: int) -> int:
        """The value of a lead's run from ``played``: at each choice inside it the chooser
        takes the option best for it (alpha-beta over the options, fail-soft)."""
        if isinstance(tree, Run):
            after = played | tree.mask
            if tree.winner is not None:
                return self.terminal(objective, after, tree.winner)
            return self._search(objective, table, after, tree.leader_after, alpha, beta)
        return self._choose(objective, table, played, objective.maximises(tree.chooser),
                            tree.options, alpha, beta)

    def _choose(self, objective: Objective, table: dict[tuple[Mask, int], tuple[int, int]],
                played: Mask, maximising: bool, options: Iterable[RunTree], alpha: int,
                beta: int) -> int:
        """The best of ``options`` (the leads of a position, or a choice's options) for the
        one who takes them: alpha-beta, fail-soft."""
        best = -INF if maximising else INF
        for option in options:
            score = self._outcome(objective, table, played, option, alpha, beta)
            if maximising:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        return best


def lead_order(tree: RunTree) -> tuple[int, int]:
    """Sort key of a lead's run: the runs that end the deal first, then the longest (a run
    with choices inside it by the run where every choice is declined)."""
    while not isinstance(tree, Run):
        tree = tree.options[0]
    return (0 if tree.winner is not None else 1, -len(tree.cards))
