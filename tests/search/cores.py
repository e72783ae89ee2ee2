"""The fast engine's two cores checked together against one reference value: the slow
reference is searched once a position, not once a core (the suite's time), and once a
session for each question several tests ask of the same deal (``reference_value``)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, fields
from functools import cached_property
from typing import Protocol

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import Card, Mask
from popejoan_solver.model.play import Game, Position, RunTree
from popejoan_solver.model.settlement import play_values
from popejoan_solver.search import Goal, Objective
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.reference import ReferenceEngine


class BothCores:
    """The Python engine and, where it is built, the compiled core (a missing build fails
    ``test_the_compiled_core_is_built``): ``value`` is theirs once they agree."""

    def __init__(self, game: Game, board: Board) -> None:
        self.cores = [FastEngine(game, board, compiled=False)]
        if COMPILED:
            self.cores.append(FastEngine(game, board, compiled=True))

    def value(self, objective: Objective, played: int, leader: int) -> int:
        """Both cores' value, checked equal (an AssertionError names each core's)."""
        values = [core.value(objective, played, leader) for core in self.cores]
        assert len(set(values)) == 1, f"the cores disagree (Python, compiled): {values}"
        return values[0]


@dataclass(frozen=True, eq=False)
class _RunsOnce(Game):
    """A game that works out each position's legal leads and each lead's run tree once: the
    reference searches the same positions again for each of a deal's seats and goals, and
    these are functions of the game and position alone (the values are the same)."""

    @cached_property
    def _trees(self) -> dict[tuple[Mask, int, Card], RunTree]:
        return {}

    @cached_property
    def _leads(self) -> dict[tuple[Mask, int], tuple[Card, ...]]:
        return {}

    def legal_leads(self, played: Mask, leader: int) -> list[Card]:
        key = (played, leader)
        if key not in self._leads:
            self._leads[key] = tuple(super().legal_leads(played, leader))
        return list(self._leads[key])

    def run_tree(self, played: Mask, leader: int, lead: Card) -> RunTree:
        key = (played, leader, lead)
        if key not in self._trees:
            self._trees[key] = super().run_tree(played, leader, lead)
        return self._trees[key]


_ENGINES: OrderedDict[tuple[Game, Board], ReferenceEngine] = OrderedDict()
_VALUES: dict[tuple[Game, Board, Objective, Mask, int], int] = {}
_ENGINES_KEPT = 1
"""Reference engines (their transposition tables and run trees) kept for the deal last asked
about; the values, a few integers a question, are kept for the session."""


class _ScoresOnce(ReferenceEngine):
    """The reference engine scoring each finished deal once: a terminal's values (the model's
    settlement, ``play_values``) are a function of the deal, the board, the cards played
    and the seat out alone, and the engine asks for them again for each seat and goal and at
    each transposition (half its time); the search itself is the reference's, unchanged."""

    def __init__(self, game: Game, board: Board) -> None:
        super().__init__(game, board)
        self.scores: dict[tuple[Mask, int], tuple[int, ...]] = {}

    def terminal(self, objective: Objective, played: Mask, winner: int) -> int:
        if objective.goal is Goal.FORCED_WIN:
            return super().terminal(objective, played, winner)
        if (played, winner) not in self.scores:
            self.scores[played, winner] = play_values(self.game, self.board, played, winner)
        return self.scores[played, winner][objective.index]


def reference_value(game: Game, board: Board, objective: Objective, played: Mask,
                    leader: int) -> int:
    """The reference engine's value of the position, searched the first time a test asks
    (the game, board and question are the key: the reference reads nothing else, and no
    mutant a test plants in the fast engines' facts reaches it), each finished deal scored
    once (:class:`_ScoresOnce`)."""
    key = (game, board, objective, played, leader)
    if key not in _VALUES:
        engine = _ENGINES.pop((game, board), None) or _ScoresOnce(
            _RunsOnce(**{f.name: getattr(game, f.name) for f in fields(game)}), board)
        _ENGINES[(game, board)] = engine
        while len(_ENGINES) > _ENGINES_KEPT:
            _ENGINES.popitem(last=False)
        _VALUES[key] = engine.value(objective, played, leader)
    return _VALUES[key]


class Reference:
    """The reference values of one deal and board through :func:`reference_value`: the
    interface of :class:`ReferenceEngine` the differential tests use."""

    def __init__(self, game: Game, board: Board) -> None:
        self.game, self.board = game, board

    def value(self, objective: Objective, played: Mask, leader: int) -> int:
        """The reference engine's exact value (searched once a session, each finished deal
        scored once a deal)."""
        return reference_value(self.game, self.board, objective, played, leader)


class Valued(Protocol):
    """What the differential checks ask of an engine: a position's value for an objective."""

    def value(self, objective: Objective, played: Mask, leader: int) -> int: ...


def disagreements(fast: Valued, reference: Valued, positions: Iterable[Position],
                  ) -> list[tuple[str, int, str, int, int]]:
    """(played, seat, goal, fast's value, the reference's) wherever the two differ at the
    positions not over, every seat and every goal: the check of the differential tests."""
    wrong = []
    for position in positions:
        if position.is_over:
            continue
        for seat in range(1, position.game.players + 1):
            for goal in Goal:
                objective = Objective(goal, seat)
                got = fast.value(objective, position.played, position.leader)
                want = reference.value(objective, position.played, position.leader)
                if got != want:
                    wrong.append((hex(position.played), seat, goal.name, got, want))
    return wrong
