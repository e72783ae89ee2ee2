"""The ``hoyle`` bot: Hoyle's maxims (:mod:`.maxims`) at every lead, from the seat's view."""

from __future__ import annotations

from dataclasses import dataclass

from ..advice.maxims import maxim_lead
from ..model.cards import Card
from .base import BotInfo, ChoiceRequest, LeadRequest


def gone_cards(request: LeadRequest) -> int:
    """The cards the seat knows cannot follow a lead: known dead (the turn-up among them) and
    played."""
    k = request.knowledge
    played = 0
    for cards in k.played:
        played |= cards
    return k.known_dead | played


@dataclass(frozen=True)
class HoyleBot(BotInfo):
    """Leads by the maxims; takes every choice: the Pope "at the first opportunity" (Hoffmann),
    and Spin, which gets rid of a card and stops the run for its player."""

    def lead(self, request: LeadRequest) -> Card:
        k = request.knowledge
        return maxim_lead(k.rules, k.own, gone_cards(request), request.legal)[0]

    def choose(self, request: ChoiceRequest) -> int:
        return request.options - 1
