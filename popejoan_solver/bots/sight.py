"""Partial sight for measurement: a bot shown the dead hand (``sees=dead``) or the other
players' hands (``sees=hands``), to split the ``cheat``'s edge into what each is worth.

The driver reveals the cards to the seat's knowledge (``seat.knowledge(..., revealed=)``): the
bot is handed no true position, only a view in which the shown cards are known where they lie,
so it cannot use a card it is not shown. The other players' hands fix the dead hand too (every
card of the pack is in a hand or dead), so ``sees=hands`` knows what the ``cheat`` knows.
"""

from __future__ import annotations

from typing import Final

from ..model.cards import Mask
from ..model.deal import Deal
from .base import Bot

SIGHTS: Final = ("dead", "hands")
"""``dead``: the dead hand (Peel's peek, for every seat and every deal); ``hands``: every other
player's hand (and so, by elimination, the dead hand)."""


def sight_of(bot: Bot) -> str | None:
    """What more than its seat's view the bot is shown (None: nothing)."""
    sees = getattr(bot, "sees", None)
    return sees if isinstance(sees, str) else None


def revealed_cards(deal: Deal, seat: int, sight: str | None) -> Mask:
    """The cards of ``deal`` (as dealt) shown to ``seat`` (from 1) under ``sight``."""
    if sight is None:
        return 0
    if sight == "dead":
        return deal.dead
    if sight == "hands":
        shown = deal.dead
        for other in range(deal.players):
            if other != seat - 1:
                shown |= deal.dealt_hand(other)
        return shown
    raise ValueError(f"sight is one of {', '.join(SIGHTS)}, not {sight!r}")
