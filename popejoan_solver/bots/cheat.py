"""The ``cheat`` bot: sees every hand and plays the double-dummy best for itself (its
guaranteed value, every other seat against it). Not a fair player: the ceiling a bot that sees
only its own view can be measured against."""

from __future__ import annotations

from dataclasses import dataclass

from ..advice.values import evaluate, option_scores
from ..model.cards import Card
from .base import BotError, BotInfo, ChoiceRequest, LeadRequest


@dataclass(frozen=True)
class CheatBot(BotInfo):
    """Double-dummy best from the true position (handed over because ``sees_all``)."""

    @property
    def sees_all(self) -> bool:
        return True

    def lead(self, request: LeadRequest) -> Card:
        if request.truth is None:
            raise BotError("the cheat bot needs the true position (sees_all)")
        if len(request.legal) == 1:
            return request.legal[0]
        found = evaluate(request.truth, forced_win=False)
        assert found is not None, "no limit was set, so every value is exact"
        scores = dict(zip(found.cards, found.values, strict=True))
        return max(request.legal, key=lambda c: (scores[c], -request.legal.index(c)))

    def choose(self, request: ChoiceRequest) -> int:
        if request.truth is None:
            raise BotError("the cheat bot needs the true position (sees_all)")
        scores = option_scores(request.truth, request.lead, request.cards,
                               request.knowledge.seat)
        if scores is None:
            raise BotError("the cheat bot was asked about a choice its deal does not reach")
        return max(range(request.options), key=lambda i: (scores[i], -i))
