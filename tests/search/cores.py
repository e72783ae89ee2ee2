"""The fast engine's two cores checked together against one reference value: the slow
reference is searched once a position, not once a core (the suite's time)."""

from __future__ import annotations

from popejoan_solver.model.board import Board
from popejoan_solver.model.play import Game
from popejoan_solver.search import Objective
from popejoan_solver.search.fast import COMPILED, FastEngine


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
