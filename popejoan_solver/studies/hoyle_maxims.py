"""Hoyle's strategy advice against double-dummy play.

``hoyle_advice`` turns the advice of Hoffmann's *Hoyle's Games Modernized* (c. 1909), "Pope
Joan", into a first lead for eldest, who knows only his hand and the turn-up, in Hoyle's order:

1. "first, however, playing out any known stops", and "A sequence or alternate sequence
   terminating with king forms a very strong lead": of the runs of his own consecutive cards
   that end in a known stop (a King, the 7♦, the card below the turn-up) and his sequences with
   gaps of at most one card that end in a King, the longest, led from its bottom;
2. "to play it [Pope] at the first opportunity, first, however, playing out any known stops":
   the 9♦;
3. "the lower of two pretty close cards of the same suit (as three and six, three and seven, or
   four and eight)": the lower card of the closest such pair (3 or 4 apart);
4. "After these the lowest card of the longest suit, especially if an ace".

Ties go to the first suit in clubs, diamonds, hearts, spades order. The study compares the
advised lead with the optimal first leads (seat 1's ``guaranteed`` after each lead), beside a
uniformly random legal lead, whose cost is computed exactly as the mean over the legal leads.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..advice.maxims import MAXIMS as MAXIMS
from ..advice.maxims import maxim_lead
from ..intervals import mean_ci, wilson
from ..model.cards import Card, parse_card
from ..model.deal import Deal
from ..model.notation import deal_from_json


def hoyle_advice(deal: Deal) -> tuple[Card, str]:
    """Eldest's first lead by Hoyle's advice, and the maxim that chose it (the bots' maxims at
    the first lead: only the turn-up is known to be dead)."""
    return maxim_lead(deal.rules, deal.hands[0], 1 << deal.turnup)


@dataclass(frozen=True)
class MaximSummary:
    """How one way of choosing the first lead fares: how often optimal, and at what cost."""

    label: str
    hits: tuple[float, ...]
    """Per deal: 1 if the lead was optimal, else 0 (for the random lead, the optimal share)."""
    costs: tuple[float, ...]
    """Per deal: the best lead's value minus this lead's (for the random lead, the mean)."""

    @property
    def deals(self) -> int:
        return len(self.hits)

    @property
    def optimal_rate(self) -> tuple[float, float, float]:
        """The rate with its 95% interval (Wilson for 0/1 hits, Student's t for shares, kept
        within 0 to 1 as a rate is)."""
        if all(h in (0.0, 1.0) for h in self.hits):
            wins = int(sum(self.hits))
            low, high = wilson(wins, self.deals)
            return (wins / self.deals if self.deals else 0.0, low, high)
        rate, low, high = mean_ci(list(self.hits))
        return (rate, max(0.0, low), min(1.0, high))

    @property
    def mean_cost(self) -> tuple[float, float, float]:
        """Mean cost and its interval; a cost is never negative, so neither is the bound."""
        mean, low, high = mean_ci(list(self.costs))
        return (mean, low if math.isnan(low) else max(0.0, low), high)

    def to_json(self) -> dict[str, Any]:
        rate, low, high = self.optimal_rate
        mean, mlo, mhi = self.mean_cost
        return {"label": self.label, "deals": self.deals, "optimal_rate": rate,
                "optimal_ci95": [low, high], "mean_cost": mean,
                "mean_cost_ci95": [None if math.isnan(x) else x for x in (mlo, mhi)]}


def study(rows: Iterable[dict[str, Any]],
          rules: str = "hoyle-modernized") -> dict[int, dict[str, MaximSummary]]:
    """Per player count: the advised lead by maxim, all advice, and the random baseline."""
    hits: dict[tuple[int, str], list[float]] = defaultdict(list)
    costs: dict[tuple[int, str], list[float]] = defaultdict(list)
    for row in rows:
        if not row["exact"] or row["rules"] != rules:
            continue
        deal = deal_from_json(row["deal"])
        values = {parse_card(card): value for card, value in row["leads"].items()}
        best = max(values.values())
        card, maxim = hoyle_advice(deal)
        p = row["players"]
        for label in (maxim, "all advice"):
            hits[p, label].append(float(values[card] == best))
            costs[p, label].append(float(best - values[card]))
        hits[p, "random lead"].append(sum(1 for v in values.values() if v == best)
                                      / len(values))
        costs[p, "random lead"].append(sum(best - v for v in values.values()) / len(values))
    result: dict[int, dict[str, MaximSummary]] = defaultdict(dict)
    for (p, label), cost in sorted(costs.items()):
        result[p][label] = MaximSummary(label, tuple(hits[p, label]), tuple(cost))
    return dict(result)
