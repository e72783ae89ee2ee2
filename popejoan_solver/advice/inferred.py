"""What the other players' leads tell a seat: each hidden card's odds of each place under an
opponent model, against the uniform odds, and the leads valued over the posterior
(``popejoan view --infer``, ``popejoan advise --infer``; docs/seat.md, docs/advice.md).

The two figures of a card come from the same deals (every consistent deal where they can be
listed, else the same uniform draws): the uniform one weighs each alike, the inferred one by
the posterior, so their difference is what the leads say and nothing of the draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..model.cards import Card, card_name
from ..seat import Knowledge
from .opponents import OpponentModel
from .posterior import DEFAULT_DRAWS, EXACT_LIMIT, Posterior, card_places, posterior, resample
from .valuer import SampleValuer


@dataclass(frozen=True)
class CardOdds:
    """Each hidden card's probability of each place: inferred, and uniform (by location
    index, as ``posterior.card_places`` gives them); ``seat`` (from 1) is the viewing seat."""

    model: str
    exact: bool
    deals: int
    ess: float
    evidence: int
    players: int
    seat: int
    rows: tuple[tuple[Card, tuple[float, ...], tuple[float, ...]], ...]

    def places(self) -> list[str]:
        """The places a hidden card may be, as JSON names them: seats from 1, then ``dead``."""
        return [str(s) for s in range(1, self.players + 1) if s != self.seat] + ["dead"]

    def _indices(self) -> list[int]:
        return [s - 1 for s in range(1, self.players + 1) if s != self.seat] + [self.players]

    def to_json(self) -> dict[str, Any]:
        names, indices = self.places(), self._indices()
        return {"model": self.model, "exact": self.exact, "deals": self.deals,
                "effective_deals": round(self.ess, 1), "leads_weighed": self.evidence,
                "places": names,
                "cards": [{"card": card_name(card),
                           "inferred": {n: round(inferred[i], 4)
                                        for n, i in zip(names, indices, strict=True)},
                           "uniform": {n: round(uniform[i], 4)
                                       for n, i in zip(names, indices, strict=True)}}
                          for card, inferred, uniform in self.rows]}

    def lines(self) -> list[str]:
        how = (f"every one of the {self.deals:,} consistent deals" if self.exact
               else f"{self.deals:,} deals drawn uniformly, worth {self.ess:,.0f} after "
                    "weighing")
        out = [f"what the other players' leads tell (opponent model {self.model}; "
               f"{self.evidence} leads weighed; {how}):",
               "card" + "".join(f"{('seat ' + n) if n != 'dead' else n:>18}"
                                for n in self.places()),
               "    " + "".join(f"{'inferred (unif.)':>18}" for _ in self.places())]
        for card, inferred, uniform in self.rows:
            cells = "".join(f"{inferred[i]:>11.2f} ({uniform[i]:.2f})" for i in self._indices())
            out.append(f"{card_name(card):4}{cells}")
        return out


def card_odds(k: Knowledge, model: OpponentModel, *, draws: int = DEFAULT_DRAWS,
              seed: int = 0, limit: int = EXACT_LIMIT) -> tuple[CardOdds, Posterior]:
    """The odds of every card hidden from ``k``'s seat, inferred under ``model`` and uniform,
    with the posterior they come from."""
    post = posterior(k, model, draws=draws, seed=seed, limit=limit)
    alike = 1.0 / len(post.deals)
    uniform = card_places(replace(post, weights=(alike,) * len(post.deals)), k)
    inferred = card_places(post, k)
    rows = tuple((card, inferred[card], uniform[card]) for card in sorted(inferred))
    odds = CardOdds(post.model, post.exact, len(post.deals), post.ess, post.evidence,
                    k.players, k.seat, rows)
    return odds, post


@dataclass(frozen=True)
class WeightedLeads:
    """Each lead's mean value over the posterior, and the lead it advises."""

    means: tuple[tuple[Card, float], ...]
    advised: Card | None
    deals: int
    """Deals valued: every listed one (exact), or drawn from the posterior by weight."""

    def to_json(self) -> dict[str, Any]:
        return {"leads": [{"card": card_name(c), "mean": round(m, 4)} for c, m in self.means],
                "advised": card_name(self.advised) if self.advised is not None else None,
                "deals": self.deals}


def weighted_leads(post: Posterior, legal: Sequence[Card], samples: int, seed: int,
                   model: str = "paranoid", exact: bool = False) -> WeightedLeads:
    """The leads valued double dummy over the posterior: every listed deal by its weight
    (``exact``, with an exact posterior), else ``samples`` deals drawn from it by weight."""
    if exact and post.exact:
        deals, weights = list(post.deals), list(post.weights)
    else:
        deals = resample(post, samples, seed)
        weights = [1.0 / samples] * samples
    value = SampleValuer(model, forced_win=False)
    sums: dict[Card, float] = dict.fromkeys(legal, 0.0)
    mass = 0.0
    for deal, weight in zip(deals, weights, strict=True):
        found = value(deal)
        if found is None:
            continue
        mass += weight
        for card, v in zip(found.cards, found.values, strict=True):
            sums[card] += weight * v
    means = tuple((card, sums[card] / mass if mass else float("nan")) for card in legal)
    advised = max(legal, key=lambda c: (sums[c], -legal.index(c))) if mass else None
    return WeightedLeads(means, advised, len(deals))
