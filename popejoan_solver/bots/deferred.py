"""The ``epimc`` bot: perfect-information Monte Carlo with the seat's next lead deferred
(Extended PIMC at depth 2; Arjonilla, Saffidine and Cazenave 2024).

``pimc`` values a lead on each sampled deal by its double-dummy value, which takes the seat's
*later* leads as if it knew that deal: it may lead one card on one deal and another on the next
from the same view (strategy fusion). In Pope Joan a lead often gives the leader the lead again
(its run stops at a dead card, a played card or the top, or at its own card): the lead it makes
then is the one fusion spoils most. ``epimc`` values each of the ``top`` leads with the best
``pimc`` means again, with that next lead chosen as a player who cannot see the deal must: the
deals in which the seat leads again after the same run (the same cards by the same seats: what
it will have seen) form one information set, and the seat's next lead is the one best over all
of them, not on each. Its value on a deal is the double-dummy value after both leads (solved
from the position the run reaches). Where the run passes the lead, ends the deal or waits at a
choice, the deal's value is ``pimc``'s. The other leads keep their ``pimc`` means, which only
fusion can inflate further (a deferred value is never above the same deals' ``pimc`` value).

With ``time=S`` the first half of the time draws and values deals as ``pimc`` does and the
second half defers on the same deals, in order, until the time runs out; a deal not reached
counts with its ``pimc`` values for every ``top`` lead alike.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass

from ..advice.interrupt import off_main_thread
from ..advice.valuer import SampleValuer
from ..advice.values import SampleEval
from ..model.cards import Card
from ..model.deal import Deal, position_deal
from ..model.play import Position, Run
from ..search.api import play_board
from .base import LeadRequest
from .pimc import PimcBot, decision_deals

Observation = tuple[tuple[Card, ...], tuple[int, ...]]
"""What the seat sees of a run: its cards and who played each."""


@dataclass(frozen=True)
class EpimcBot(PimcBot):
    """``pimc`` with the seat's next lead deferred for its ``top`` leads."""

    top: int = 3

    def lead(self, request: LeadRequest) -> Card:
        if len(request.legal) == 1:
            return request.legal[0]
        totals = self.lead_means(request)
        return max(request.legal, key=lambda c: (totals[c], -request.legal.index(c)))

    def lead_means(self, request: LeadRequest) -> dict[Card, float]:
        """Each lead's weighted mean: deferred for the ``top`` leads, ``pimc``'s for the rest
        (what :meth:`lead` maximises; draws from ``request.rng``)."""
        return off_main_thread(lambda stop: self._deferred(request, stop), helper=True)

    def _deferred(self, request: LeadRequest, stop: threading.Event) -> dict[Card, float]:
        started = self.now()
        half = None if self.seconds is None else self.seconds / 2
        value = self.valuer()
        valued: list[tuple[Deal, float, SampleEval]] = []
        for deal, weight in decision_deals(request.knowledge, self.samples,
                                           request.rng.getrandbits(62),
                                           self.seconds is not None, self.infer, self.pool):
            if stop.is_set():
                break
            found = value(deal)
            if found is not None:
                valued.append((deal, weight, found))
            if half is not None and self.now() - started > half:
                break
        means = _means(valued)
        top = sorted(means, key=lambda c: (-means[c], request.legal.index(c)))[:self.top]
        deferred = self._defer(request, valued, top, value, started, stop)
        return {card: deferred.get(card, means[card]) for card in means}

    def _defer(self, request: LeadRequest, valued: list[tuple[Deal, float, SampleEval]],
               top: list[Card], value: SampleValuer, started: float,
               stop: threading.Event) -> dict[Card, float]:
        """The ``top`` leads' means with the next lead chosen per information set on the
        deals deferred before the time ran out (every one without a time limit); a deal not
        reached in time counts with its ``pimc`` values (for every ``top`` lead alike)."""
        seat = request.knowledge.seat
        sets: dict[tuple[Card, Observation], dict[Card, float]] = defaultdict(
            lambda: defaultdict(float))
        plain: dict[Card, float] = defaultdict(float)
        mass = 0.0
        for deal, weight, found in valued:
            root = dict(zip(found.cards, found.values, strict=True))
            mass += weight
            if stop.is_set() or (self.seconds is not None
                                 and self.now() - started > self.seconds):
                for card in top:
                    plain[card] += weight * root[card]
                continue
            for card in top:
                after = _after(deal, card, seat)
                nxt = None if after is None else value(after[1])
                if after is None or nxt is None:
                    plain[card] += weight * root[card]
                    continue
                # the next lead's values in the root's units: the best of them is root[card]
                shift = root[card] - max(nxt.values)
                cell = sets[(card, after[0])]
                for lead, v in zip(nxt.cards, nxt.values, strict=True):
                    cell[lead] += weight * (v + shift)
        if not mass:
            return {}
        totals = dict(plain)
        for (card, _), cell in sets.items():
            totals[card] = totals.get(card, 0.0) + max(cell.values())
        return {card: totals.get(card, 0.0) / mass for card in top}


def _means(valued: list[tuple[Deal, float, SampleEval]]) -> dict[Card, float]:
    sums: dict[Card, float] = defaultdict(float)
    mass = 0.0
    for _, weight, found in valued:
        mass += weight
        for card, v in zip(found.cards, found.values, strict=True):
            sums[card] += weight * v
    return {card: total / mass for card, total in sums.items()} if mass else {}


def _after(deal: Deal, lead: Card, seat: int) -> tuple[Observation, Deal] | None:
    """What the seat sees of ``lead``'s run on ``deal`` and the position it reaches, when the
    seat then leads again (None when the run waits at a choice, passes the lead or ends the
    deal)."""
    position = Position.from_deal(deal)
    tree = position.game.run_tree(position.played, position.leader, lead)
    if not isinstance(tree, Run):
        return None
    following = position.after(tree)
    if following.is_over or following.leader != seat:
        return None
    return (tree.cards, tree.seats), position_deal(deal, following, play_board(deal)[0])
