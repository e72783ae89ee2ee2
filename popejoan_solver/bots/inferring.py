"""The deals a ``pimc:infer=MODEL`` decision values, each with its weight: the posterior that
weighs the other players' leads under an opponent model (``advice.posterior``).

Drawing a deal costs about as much as solving one, so by default (``pool=1``) the deals
``pimc`` would draw uniformly are solved and each lead's value is weighed by the deal's
likelihood (importance sampling: the weighted mean estimates the posterior mean); where no more
deals are consistent than the samples, every one is listed with its exact weight. With
``pool=K`` (K > 1), ``K`` times the samples are drawn and weighed and the samples are drawn from
them by weight (sampling importance resampling), each then of weight 1: more distinct likely
deals for the same searches, at the cost of drawing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from ..advice.opponents import Uniform, evidence, make_model
from ..advice.posterior import Likelihood, posterior, resample
from ..model.deal import Deal
from ..seat import CountingLimitError, Knowledge, all_deals, count_deals

MAX_POOL: Final = 2_000
"""The most deals weighed for one decision under ``pool=K`` (a timed bot asks for many)."""


def weighted_deals(knowledge: Knowledge, drawn: Iterable[Deal], samples: int, seed: int,
                   model: str, pool: int = 1) -> Iterator[tuple[Deal, float]]:
    """The decision's deals and their weights under ``model``: ``drawn`` (the uniform draws,
    lazily) each weighed by its likelihood, every consistent deal where they are no more than
    ``samples``, or with ``pool > 1`` deals resampled from a weighed pool."""
    opponents = make_model(model)
    if isinstance(opponents, Uniform):  # every deal alike: exactly pimc's draws
        for deal in drawn:
            yield deal, 1.0
        return
    if pool > 1:
        size = min(pool * samples, MAX_POOL)
        post = posterior(knowledge, opponents, draws=size, seed=seed, limit=size)
        for deal in resample(post, samples, seed):
            yield deal, 1.0
        return
    weigh = Likelihood(evidence(knowledge.line, knowledge.seat, knowledge.turnup,
                                knowledge.rules), opponents)
    try:
        few = count_deals(knowledge) <= samples
    except CountingLimitError:
        few = False
    for deal in all_deals(knowledge, samples) if few else drawn:
        yield deal, weigh(deal)
