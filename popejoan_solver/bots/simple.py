"""The baseline bots: ``random`` (a uniformly random legal option) and ``lowest`` (the lowest
legal card, the policy of the one public Pope Joan program found; it declines every choice)."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.cards import Card
from .base import BotInfo, ChoiceRequest, LeadRequest


@dataclass(frozen=True)
class RandomBot(BotInfo):
    """Every legal option equally likely, drawn from the decision's own seeded generator."""

    def lead(self, request: LeadRequest) -> Card:
        return request.rng.choice(request.legal)

    def choose(self, request: ChoiceRequest) -> int:
        return request.rng.randrange(request.options)


@dataclass(frozen=True)
class LowestBot(BotInfo):
    """The lowest legal card by the ruleset's rank order (clubs first among equal ranks)."""

    def lead(self, request: LeadRequest) -> Card:
        key = request.knowledge.rules.table.order_key
        return min(request.legal, key=lambda c: (key[c], c))

    def choose(self, request: ChoiceRequest) -> int:
        return 0
