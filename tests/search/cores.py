"""The fast engine's two cores checked together against one reference value: the slow
reference is searched once a position, not once a core (the suite's time), and once a
session for each question several tests ask of the same deal (``reference_value``)."""

from __future__ import annotations

from collections import OrderedDict

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import Mask
from popejoan_solver.model.play import Game
from popejoan_solver.search import Objective
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


_ENGINES: OrderedDict[tuple[Game, Board], ReferenceEngine] = OrderedDict()
_VALUES: dict[tuple[Game, Board, Objective, Mask, int], int] = {}
_ENGINES_KEPT = 4
"""Reference engines (their transposition tables) kept for the deals last asked about; the
values, a few integers a question, are kept for the session."""


def reference_value(game: Game, board: Board, objective: Objective, played: Mask,
                    leader: int) -> int:
    """The reference engine's value of the position, searched the first time a test asks
    (the game, board and question are the key: the reference reads nothing else, and no
    mutant a test plants in the fast engines' facts reaches it)."""
    key = (game, board, objective, played, leader)
    if key not in _VALUES:
        engine = _ENGINES.pop((game, board), None) or ReferenceEngine(game, board)
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
        """The reference engine's exact value (searched once a session)."""
        return reference_value(self.game, self.board, objective, played, leader)
