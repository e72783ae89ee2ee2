"""One sampled deal valued for the advice: each lead's value under an opponent model."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..model.cards import Card
from ..model.deal import Deal
from ..search.leads import lead_values

MODELS = ("paranoid", "maxn")
"""``paranoid``: every other seat plays against the advised seat (its guaranteed value);
``maxn``: every seat raises its own net counters (``search/maxn.py``, ties against the
advised seat)."""

TT_ENTRIES = 1 << 18
"""Transposition-table entries per sampled deal (a deal's leads share one table)."""


@dataclass(frozen=True)
class SampleEval:
    """The leads of the seat on lead on one deal: its value after each and its forced win."""

    cards: tuple[Card, ...]
    values: tuple[int, ...]
    wins: tuple[int, ...]
    """1 where the seat can still force going out after the lead (whatever the others do)."""

    @property
    def best(self) -> frozenset[int]:
        """Indices of the leads of the highest value."""
        top = max(self.values)
        return frozenset(i for i, v in enumerate(self.values) if v == top)


def evaluate(deal: Deal, model: str, deadline: float | None,
             node_limit: int | None = None) -> SampleEval | None:
    """The leads of ``deal``'s seat on lead valued under ``model``; None past the deadline."""
    remaining = None if deadline is None else deadline - time.monotonic()
    if remaining is not None and remaining <= 0:
        return None
    evals = lead_values(deal, forced_win=True, time_limit=remaining, tt_entries=TT_ENTRIES)
    if not all(e.guaranteed.is_exact and e.forced_win.is_exact for e in evals):
        return None
    cards = tuple(e.card for e in evals)
    wins = tuple(e.forced_win.lower for e in evals)
    if model == "paranoid":
        return SampleEval(cards, tuple(e.guaranteed.lower for e in evals), wins)
    from ..search.maxn import MaxnLimitError, maxn_leads

    try:
        leads = maxn_leads(deal, deal.leader + 1, deadline=deadline, node_limit=node_limit)
    except MaxnLimitError:
        return None
    return SampleEval(cards, tuple(v[deal.leader] for _, v in leads), wins)
