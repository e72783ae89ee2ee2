"""Valuing one deal (``popejoan_solver/advice/values.py``): a composed position gets a table that
can grow."""

from __future__ import annotations

from popejoan_solver import deal_from_line


def test_a_composed_position_is_valued_with_a_table_that_can_grow() -> None:
    """A teacher's composed position (a hand of 44 cards) is valued with a transposition table
    that can grow, in well under 10 M nodes (judged by nodes, not time)."""
    from popejoan_solver.advice.values import evaluate
    deal = deal_from_line("hoyle-modernized: A2456789JQK.A245679JQK.A2346789TJQK.A23456789JK "
                           "3.3.. T...T | .T.5.Q ^QS")
    valued = evaluate(deal)
    assert valued is not None
    assert valued.nodes < 10_000_000
