"""Boards up to the documented limit (2**31 counters a compartment): every engine exact.

The oracle here is a plain minimax written for this test: no alpha-beta, no transposition
table and no sentinel value, over the rules model's own runs and settlement, so it has no
range to overflow. Every engine (the reference, the Python fast engine, the compiled core)
must give its values on small deals with boards anywhere from empty to the limit.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import MAX_COUNT, Board
from popejoan_solver.model.cards import Mask
from popejoan_solver.model.errors import NotationError
from popejoan_solver.model.examples import hoyle_dead_hand
from popejoan_solver.model.play import Game, Run, RunTree
from popejoan_solver.model.rules import RULESETS
from popejoan_solver.model.settlement import play_values
from popejoan_solver.search import Goal, Objective, solve
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.reference import ReferenceEngine
from tests.conftest import short_deal

COUNTS = st.one_of(st.integers(0, 3), st.integers(0, MAX_COUNT),
                   st.sampled_from([MAX_COUNT, MAX_COUNT - 1, 1 << 30, 32767, 30000, 29999]))
BOARDS = st.builds(Board, *(COUNTS for _ in range(8)))


def minimax(game: Game, board: Board, objective: Objective) -> int:
    """The objective's value from the outset by exhaustive minimax (the test's oracle); a
    choice inside a run (Spin, the Pope in lieu) is a node of its chooser (``run_tree``)."""

    def outcome(played: Mask, tree: RunTree) -> int:
        if isinstance(tree, Run):
            after = played | tree.mask
            if tree.next_leader is not None:
                return value(after, tree.next_leader)
            if objective.goal is Goal.FORCED_WIN:
                return int(tree.winner == objective.seat)
            return play_values(game, board, after, tree.winner)[objective.seat - 1]
        scores = [outcome(played, option) for option in tree.options]
        return max(scores) if objective.maximises(tree.chooser) else min(scores)

    @cache
    def value(played: Mask, leader: int) -> int:
        scores = [outcome(played, game.run_tree(played, leader, lead))
                  for lead in game.legal_leads(played, leader)]
        return max(scores) if objective.maximises(leader) else min(scores)

    return value(0, 1)


ENGINES = ["reference", "python"] + (["compiled"] if COMPILED else [])


def _engine(name: str, game: Game, board: Board) -> ReferenceEngine | FastEngine:
    if name == "reference":
        return ReferenceEngine(game, board)
    return FastEngine(game, board, compiled=name == "compiled")


@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=BOARDS, seed=st.integers(0, 10_000), ruleset=st.sampled_from(sorted(RULESETS)),
       players=st.integers(3, 5))
# Found by a search: the reference engine, whose sentinel was 2**30, cut a best case short.
@example(board=Board(1, 131856676, 1379740244, MAX_COUNT, 1, MAX_COUNT, 0, MAX_COUNT),
         seed=3614, ruleset="parlett", players=5)
# Found by a search: the oracle took Spin's runs as forced (Spin is a choice of its holder).
@example(board=Board(0, 0, 0, 0, 0, 0, 0, 0), seed=4, ruleset="spinado", players=3)
def test_every_engine_is_exact_on_huge_boards(engine: str, board: Board, seed: int,
                                              ruleset: str, players: int) -> None:
    deal = short_deal(players, 3, seed, RULESETS[ruleset])
    game = Game.from_deal(deal)
    searcher = _engine(engine, game, board)
    for seat in range(1, players + 1):
        for goal in Goal:
            objective = Objective(goal, seat)
            assert searcher.value(objective, 0, 1) == minimax(game, board, objective), (
                engine, board, seat, goal)


def test_values_scale_with_a_board_far_from_any_sentinel() -> None:
    # The built-in deal on a board of k counters for each counter of the standard dressing:
    # every seat's value is then an affine function of k (the same line stays optimal when all
    # stakes grow together), so the value at 2**31 follows from those at two small k.
    deal = hoyle_dead_hand()
    layout = Board().to_json()

    def values(k: int) -> list[tuple[int, int]]:
        board = Board(**{name: count * k for name, count in layout.items()})
        solution = solve(deal.with_board(board), with_line=True)
        return [(s.guaranteed.lower, s.best_case.lower) for s in solution.seats]

    at_1000, at_2000 = values(1000), values(2000)
    k = MAX_COUNT // 6  # the Pope compartment (6 a unit) stays within the limit
    expected = [(g1 + (g2 - g1) * (k - 1000) // 1000, b1 + (b2 - b1) * (k - 1000) // 1000)
                for (g1, b1), (g2, b2) in zip(at_1000, at_2000, strict=True)]
    assert values(k) == expected


def test_a_count_past_the_limit_is_refused_naming_it() -> None:
    Board(pope=MAX_COUNT)
    with pytest.raises(NotationError, match="2\\*\\*31"):
        Board(pope=MAX_COUNT + 1)
    with pytest.raises(NotationError, match="limit"):
        Board(game=10 ** 5000)
