"""A posterior over the deals consistent with a seat's view: the other players' leads weighed
as evidence under an opponent model (:mod:`.opponents`).

Every consistent deal is equally likely before the play is read (the deal was shuffled); after
it, a deal's weight is the probability, under the model, of every lead the other seats made.
Where the consistent deals are few enough to list (``seat.count_deals``), each is listed and
weighed: the posterior is exact. Otherwise deals are drawn uniformly (``seat.sample_deals``,
seeded) and weighed by their likelihood (importance sampling with the uniform draw as the
proposal); the effective sample size (Kish: ``(sum w)^2 / sum w^2``) says how many equally
weighted deals they are worth. :func:`resample` draws deals from the posterior for a bot that
solves a fixed number of them (sampling importance resampling).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..model.cards import Card, iter_mask
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..seat import CountingLimitError, Knowledge, all_deals, count_deals, sample_deals
from .opponents import LeadEvidence, OpponentModel, evidence

EXACT_LIMIT: Final = 5_000
"""Consistent deals listed and weighed one by one (the exact posterior) at most."""

DEFAULT_DRAWS: Final = 1_000
"""Deals drawn and weighed where there are more consistent deals than ``EXACT_LIMIT``."""


class PosteriorError(PopeJoanError):
    """No consistent deal explains the leads under the model (every weight is 0)."""


@dataclass(frozen=True)
class Posterior:
    """Deals consistent with a view and their posterior weights (summing to 1)."""

    deals: tuple[Deal, ...]
    weights: tuple[float, ...]
    exact: bool
    """Every consistent deal is listed (each once): the weights are the exact posterior."""
    model: str
    evidence: int
    """How many leads of the other seats were weighed."""

    @property
    def ess(self) -> float:
        """The effective sample size, ``1 / sum w^2`` (the weights sum to 1)."""
        return 1.0 / sum(w * w for w in self.weights)


class Likelihood:
    """The probability of the other seats' leads ``steps`` had the cards been dealt as in a
    deal (a position reached by the line: each leader's hand then is what the deal leaves it
    plus what it played from that lead on). A leader's hand at a step is often the same in many
    deals, so each (step, hand) is asked of the model once."""

    def __init__(self, steps: Sequence[LeadEvidence], model: OpponentModel) -> None:
        self.steps = tuple(steps)
        self.model = model
        self._memo: dict[tuple[int, int], float] = {}

    def __call__(self, deal: Deal) -> float:
        value = 1.0
        for index, step in enumerate(self.steps):
            hand = deal.hands[step.leader - 1] | step.later
            key = (index, hand)
            p = self._memo.get(key)
            if p is None:
                p = self._memo[key] = self.model.probability(deal.rules, hand, step)
            value *= p
            if value == 0.0:
                break
        return value


def posterior(k: Knowledge, model: OpponentModel, *, draws: int = DEFAULT_DRAWS, seed: int = 0,
              limit: int = EXACT_LIMIT) -> Posterior:
    """The posterior over the deals consistent with ``k`` under ``model``: exact where at most
    ``limit`` deals are consistent, else ``draws`` uniform draws from ``seed``, weighed."""
    steps = evidence(k.line, k.seat, k.turnup, k.rules)
    try:
        total: int | None = count_deals(k)
    except CountingLimitError:
        total = None
    exact = total is not None and total <= limit
    deals = all_deals(k, limit) if exact else sample_deals(k, draws, seed)
    weigh = Likelihood(steps, model)
    raw = [weigh(deal) for deal in deals]
    mass = sum(raw)
    if mass <= 0.0:
        raise PosteriorError(f"no consistent deal explains the other players' leads under "
                             f"the opponent model {model.name}")
    return Posterior(tuple(deals), tuple(w / mass for w in raw), exact, model.name, len(steps))


def resample(post: Posterior, count: int, seed: int) -> list[Deal]:
    """``count`` deals drawn independently from the posterior (with replacement; seeded)."""
    rng = random.Random(f"popejoan-posterior:{seed}")
    return rng.choices(post.deals, weights=post.weights, k=count)


def card_places(post: Posterior, k: Knowledge) -> dict[Card, tuple[float, ...]]:
    """For each card hidden from the seat, the posterior probability of each location, by
    location index: seat ``s`` (from 1) at index ``s - 1``, the dead hand at ``players``."""
    n = k.players
    cards = list(iter_mask(k.hidden))
    found = {card: [0.0] * (n + 1) for card in cards}
    for deal, weight in zip(post.deals, post.weights, strict=True):
        for card in cards:
            found[card][_location(deal, card)] += weight
    return {card: tuple(p) for card, p in found.items()}


def _location(deal: Deal, card: Card) -> int:
    for seat, hand in enumerate(deal.hands):
        if hand >> card & 1:
            return seat
    return deal.players
