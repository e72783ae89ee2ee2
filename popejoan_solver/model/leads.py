"""The lead rule: which cards of a hand may be led. One function, read by play and by the
reachability check of positions."""

from __future__ import annotations

from .cards import Card, Mask, card_suit, iter_mask
from .rules import Ruleset
from .table import LeadId


def legal_leads(rules: Ruleset, held: Mask) -> list[Card]:
    """The cards of ``held`` that may be led, in ascending suit order (clubs first, bottom
    first), by the table's lead rule and suit order."""
    table = rules.table
    key = table.order_key
    cards = sorted(iter_mask(held), key=lambda c: c - c % 13 + key[c])  # by suit, then key
    if table.lead is LeadId.ANY:
        return cards
    if table.lead is LeadId.LOWEST_OF_SUIT:
        lowest: dict[int, Card] = {}
        for card in cards:
            lowest.setdefault(card_suit(card), card)
        return list(lowest.values())
    bottom = min((key[c] for c in cards), default=0)
    return [c for c in cards if key[c] == bottom]
