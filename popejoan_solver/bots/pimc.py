"""The ``pimc`` bot: perfect-information Monte Carlo from the seat's view.

At each decision it draws ``samples`` deals uniformly among those consistent with what its
seat knows (``seat.sample_deals``, independently, with replacement),
solves each double dummy and takes the option with the best mean value (ties: the lowest
card). ``model=paranoid`` (the default) values an option by the seat's guaranteed counters,
every other seat playing against it, as ``popejoan solve`` does; ``model=maxn`` by the seat's
counters when every seat raises its own (``search.maxn``, ties against the seat), the two
opponent models of ``popejoan advise`` (docs/advice.md), whose per-deal evaluation
(``advice.values.evaluate``) this is. A deal drawn twice is solved once and each lead's search
starts from its mean so far (``advice.valuer``): neither changes a value, so neither changes a
decision.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from ..advice.interrupt import off_main_thread
from ..advice.valuer import DEFAULT_GUESSES, SampleValuer, cached
from ..advice.values import option_scores
from ..model.cards import Card
from ..model.deal import Deal
from ..seat import Knowledge, sample_deals
from .base import BotInfo, ChoiceRequest, LeadRequest

BATCH = 16
"""Deals drawn at a time when a decision is limited by time (drawing costs time too)."""

MAXN_NODES = 2_000_000
"""Positions a max^n search of one sampled deal may visit; past it the sample is skipped."""


def drawn_deals(knowledge: Knowledge, samples: int, seed: int,
                timed: bool) -> Iterator[Deal]:
    """The decision's deals: all at once, or ``BATCH`` at a time (each batch its own seed)
    when the decision is limited by time, so that no time goes on drawing deals never used."""
    if not timed:
        yield from sample_deals(knowledge, samples, seed)
        return
    for batch, first in enumerate(range(0, samples, BATCH)):
        yield from sample_deals(knowledge, min(BATCH, samples - first), seed + batch)


def decision_deals(knowledge: Knowledge, samples: int, seed: int, timed: bool,
                   infer: str | None, pool: int = 1) -> Iterator[tuple[Deal, float]]:
    """The deals a decision values with their weights: uniform draws (:func:`drawn_deals`),
    each of weight 1, or with ``infer`` weighed by the posterior under that opponent model
    (``bots.inferring``)."""
    drawn = drawn_deals(knowledge, samples, seed, timed)
    if infer is None:
        return ((deal, 1.0) for deal in drawn)
    from .inferring import weighted_deals
    return weighted_deals(knowledge, drawn, samples, seed, infer, pool)


@dataclass(frozen=True)
class PimcBot(BotInfo):
    """Sampling bot: ``samples`` deals a decision (``time``, when set, stops drawing and
    valuing deals once that many seconds have passed since the decision began, at least one
    deal valued)."""

    samples: int = 32
    model: str = "paranoid"
    seconds: float | None = None
    guesses: str = DEFAULT_GUESSES
    """Where each lead's search starts (``advice.valuer.GUESSES``): changes no decision."""
    sees: str | None = None
    """Partial sight for measurement (``bots.sight``): ``dead`` or ``hands``; None: fair."""
    infer: str | None = None
    """An opponent model (``advice.opponents``): each deal weighed by the posterior it gives
    the other players' leads; None: every deal alike."""
    pool: int = 1
    """With ``infer``: deals weighed per deal solved (``bots.inferring``; 1: the solved deals
    themselves are weighed)."""
    clock: str = "wall"
    """What ``time`` counts: wall-clock seconds, or the process's processor seconds
    (``cpu``), which a machine shared with other work does not stretch."""

    def now(self) -> float:
        """The clock ``time`` is measured on."""
        return time.process_time() if self.clock == "cpu" else time.perf_counter()

    def lead(self, request: LeadRequest) -> Card:
        if len(request.legal) == 1:
            return request.legal[0]
        totals = self.lead_totals(request)
        return max(request.legal, key=lambda c: (totals[c], -request.legal.index(c)))

    def lead_totals(self, request: LeadRequest) -> dict[Card, float]:
        """Each lead's value summed over the decision's deals, each deal by its weight (what
        :meth:`lead` maximises; draws from ``request.rng``)."""
        return off_main_thread(lambda stop: self._totals(request, stop),
                               helper=self.model == "paranoid")

    def _totals(self, request: LeadRequest, stop: threading.Event) -> dict[Card, float]:
        started = self.now()
        deals = decision_deals(request.knowledge, self.samples, request.rng.getrandbits(62),
                               self.seconds is not None, self.infer, self.pool)
        value = self.valuer()
        totals: dict[Card, float] = defaultdict(float)
        for deal, weight in deals:
            if stop.is_set():
                break
            found = value(deal)  # None: max^n passed its limit, the deal is skipped
            for card, v in zip(found.cards, found.values, strict=True) if found else ():
                totals[card] += weight * v
            if self.seconds is not None and self.now() - started > self.seconds:
                break
        return totals

    def valuer(self) -> SampleValuer:
        """A fresh valuer for one decision's deals (its node count is the decision's)."""
        return SampleValuer(self.model, forced_win=False, node_limit=MAXN_NODES,
                            guesses=self.guesses)

    def choose(self, request: ChoiceRequest) -> int:
        return off_main_thread(lambda stop: self._choose(request, stop),
                               helper=self.model == "paranoid")

    def _choose(self, request: ChoiceRequest, stop: threading.Event) -> int:
        deals = decision_deals(request.knowledge, self.samples, request.rng.getrandbits(62),
                               False, self.infer, self.pool)
        score = cached(lambda deal: option_scores(deal, request.lead, request.cards,
                                                  request.knowledge.seat, self.model))
        totals = [0.0] * request.options
        seen = 0
        for deal, weight in deals:
            if stop.is_set():
                break
            scores = score(deal)
            if scores is None:  # this sample's run goes another way (or max^n's limit)
                continue
            seen += 1
            totals = [t + weight * s for t, s in zip(totals, scores, strict=True)]
        if not seen:
            return request.options - 1
        return max(range(request.options), key=lambda i: (totals[i], -i))
