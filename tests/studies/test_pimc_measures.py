"""The AAAI-2010 measures on small cases: the leaf correlation's values against solve() of each
child position, the disambiguation factor's arithmetic, information sets that only shrink."""

from __future__ import annotations

import math
import random

import pytest

from popejoan_solver.model.deal import deal_random, position_deal
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.settlement import apply_to_board, play_values, turnup_award
from popejoan_solver.search import solve
from popejoan_solver.studies.pimc_measures import (
    Playout,
    disambiguation,
    hidden_at_last,
    information_sizes,
    last_decision_correlated,
    measure,
    random_playout,
)


def test_disambiguation_is_the_share_of_log_size_removed() -> None:
    assert disambiguation([100, 10, 1, 1]) == pytest.approx([0.5, 1.0])
    assert disambiguation([64, 64]) == [0.0]
    assert disambiguation([1]) == []
    assert disambiguation([100, None, 10, 1]) == pytest.approx([1.0])


def _child_values(playout: Playout) -> set[object]:
    """Each legal lead's value for the mover at the last real decision, by solve() of the
    position after the lead's run (no choices in these rulesets: one run a lead)."""
    decision = [d for d in playout.decisions if d.options >= 2][-1]
    deal = playout.deal
    board = apply_to_board(deal.board_or_dressed,
                           turnup_award(deal, deal.board_or_dressed).transfers)
    position = Position.from_deal(deal)
    for run in decision.line:
        position = position.after(run)
    values: set[object] = set()
    mover = position.leader
    for lead in position.legal_leads():
        run, after = position.play(lead)
        if after.is_over:
            values.add(play_values(after.game, board, after.played, after.winner)[mover - 1])
            continue
        child = position_deal(deal, after, board)
        guaranteed = solve(child, seats=[mover]).seat(mover).guaranteed
        assert guaranteed.is_exact
        values.add(guaranteed.lower)
    return values


@pytest.mark.parametrize("rules", ["hoyle-modernized", "britannica"])
def test_leaf_correlation_against_solve(rules: str) -> None:
    """Correlated exactly when every child of the last decision has one value by solve()."""
    seen = set()
    for index in range(8):
        deal = deal_random(4, 5, get_ruleset(rules), index)
        playout = random_playout(deal, random.Random(index))
        correlated = last_decision_correlated(playout)
        if correlated is None:
            continue
        assert correlated == (len(_child_values(playout)) == 1)
        seen.add(correlated)
    assert seen == {True, False}


def test_information_sets_only_shrink() -> None:
    deal = deal_random(4, 2, get_ruleset("britannica"), 0)
    playout = random_playout(deal, random.Random(2))
    for seat in range(1, 5):
        sizes = [size for size in information_sizes(playout, seat) if size is not None]
        assert sizes == sorted(sizes, reverse=True)
        assert all(size >= 1 for size in sizes)
    last = [d for d in playout.decisions if d.options >= 2][-1]
    leads = [d for d in playout.decisions if d.seat == last.seat]
    found = hidden_at_last(playout)
    assert found is not None
    assert found[0] == information_sizes(playout, last.seat)[leads.index(last)]
    assert found[1] > 0


def test_measure_on_a_few_deals() -> None:
    found = measure(get_ruleset("hoyle-modernized"), 3, 4, 1)
    data = found.to_json()
    assert found.deals == 4
    assert sum(found.out) <= 4
    assert 0 <= data["leaf_correlation"] <= 1  # type: ignore[operator]
    assert 0 <= found.bias <= 1
    assert all(0 <= d <= 1 for d in found.df)
    assert not math.isnan(found.disambiguation_factor)
