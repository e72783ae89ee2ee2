"""The compiled core's transposition tables, reused from one search to the next without zeroing
(each Core's entries tagged with its generation): a reused table changes no value and no node
count, however many searches used it before and whatever other threads do with the tables."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search.fast import COMPILED
from popejoan_solver.search.leads import evaluate_leads
from popejoan_solver.seat import knowledge, sample_deals

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled core is not built")

Found = tuple[tuple[tuple[int, int, int, int], ...], int]

SMALL_TABLE = 1 << 14
"""Entries of a table that never grows (its first size): every search uses the same one."""


def _samples(count: int) -> list[Deal]:
    """Deals a seat cannot tell apart (advice's samples at Spinado's first lead)."""
    deal = deal_random(4, 2026, get_ruleset("spinado"), 0)
    return sample_deals(knowledge(deal, 1, ()), count, 0)


def _leads(deal: Deal, tt_entries: int = 1 << 18) -> Found:
    """Every lead's bounds and forced win, with the nodes searched."""
    found = evaluate_leads(deal, tt_entries=tt_entries)
    return (tuple((e.card, e.guaranteed.lower, e.guaranteed.upper, e.forced_win.lower)
                  for e in found.leads), found.nodes)


def test_a_table_reused_by_many_generations_changes_no_value_and_no_node_count() -> None:
    # One table that never grows (its first size), used by every search in turn: a search of
    # about 4,000 nodes, then 14 of about 100 that leave most of its entries in place. With 15 tags
    # the larger search meets its own entries of 15 generations before, tagged as its own:
    # read as live, they would cut its search short (the table must be zeroed by then).
    large = deal_random(4, 2026, get_ruleset("hoyle-modernized"), 2)
    small = deal_random(5, 2026, get_ruleset("parlett"), 3)
    first_large, first_small = _leads(large, SMALL_TABLE), _leads(small, SMALL_TABLE)
    assert first_large[1] > 2000
    assert first_small[1] < 200
    for _ in range(3):
        assert _leads(large, SMALL_TABLE) == first_large
        for _ in range(14):
            assert _leads(small, SMALL_TABLE) == first_small


def test_tables_passed_between_threads_change_no_value_and_no_node_count() -> None:
    # Searches from 1,700 to 86,000 nodes: the tables grow, so tables of several sizes are
    # given back and taken again, by a thread whose Core may be older or younger than those
    # that used them.
    deals = _samples(5)
    first = [_leads(deal) for deal in deals]
    with ThreadPoolExecutor(3) as pool:
        for _ in range(4):
            assert list(pool.map(_leads, deals)) == first
