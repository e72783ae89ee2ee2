"""Stops and cards that cannot be led to, as a referee or as a player sees them.

A *stop* is a card whose successor can never be played next: it is past the top of the suit,
out of the pack (the 8♦), in the dead hand, or already played. A card *cannot be led to* when
its predecessor can never be played before it, so it is only ever played as a lead.

The referee knows the dead hand (Hoffmann, Hoyle's Games Modernized (c. 1909), "Pope Joan": the
dealer acting "as a kind of referee as to whether a given card is a stop"); a player knows only
the pack, the turn-up and the cards played so far.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .arguments import refuse_member
from .cards import FULL_MASK, Card, Mask, card_name, iter_mask
from .deal import Deal
from .errors import DealError


class View(StrEnum):
    """Who is looking: one who knows the dead hand, or one who knows only the turn-up."""

    REFEREE = "referee"
    PLAYER = "player"

    @classmethod
    def _missing_(cls, value: object) -> View:
        refuse_member(cls, value, DealError)


@dataclass(frozen=True)
class StopsReport:
    """The stops and the cards that cannot be led to, among the cards not yet played."""

    view: View
    stops: tuple[Card, ...]
    cannot_be_led_to: tuple[Card, ...]

    def to_json(self) -> dict[str, list[str]]:
        return {"stops": [card_name(c) for c in self.stops],
                "cannot_be_led_to": [card_name(c) for c in self.cannot_be_led_to]}


def analyse_stops(deal: Deal, view: View = View.REFEREE) -> StopsReport:
    """Stops and unreachable cards in the deal's current position, from ``view``."""
    if not isinstance(deal, Deal) or not isinstance(view, View):
        raise DealError(f"analyse_stops takes a Deal and a View, not "
                        f"{type(deal).__name__} and {type(view).__name__}")
    played = deal.played_mask
    out_of_pack = FULL_MASK & ~deal.rules.table.pack
    if view is View.REFEREE:
        blocked = deal.dead | played | out_of_pack
        candidates = deal.in_play & ~played
    else:
        shown = 1 << deal.turnup if deal.rules.table.turns_up else 0
        blocked = shown | played | out_of_pack
        candidates = deal.rules.table.pack & ~blocked
    return stops_among(deal, candidates, blocked, view)


def stops_among(deal: Deal, candidates: Mask, blocked: Mask, view: View) -> StopsReport:
    """Which ``candidates`` are stops / cannot be led to when the ``blocked`` cards never come."""
    table = deal.rules.table
    key = table.order_key
    stops: list[Card] = []
    unreachable: list[Card] = []
    for card in iter_mask(candidates):
        above = table.successor[card]
        below = table.predecessor[card]
        if above < 0 or blocked >> above & 1:
            stops.append(card)
        if below < 0 or blocked >> below & 1:
            unreachable.append(card)

    def order(c: Card) -> tuple[int, int]:
        return c // 13, key[c]

    return StopsReport(view, tuple(sorted(stops, key=order)),
                       tuple(sorted(unreachable, key=order)))
