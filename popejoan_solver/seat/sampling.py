"""The deals consistent with a seat's knowledge: their exact number, uniform draws, the list.

A consistent deal puts every hidden card in one of its allowed places (``Knowledge.places``)
with each location holding its known number of cards (``Knowledge.need``); the cards the seat
knows are where it knows them. :mod:`seat.counting` counts these placements exactly (a dynamic
programme over groups of interchangeable cards, in exact integers) and draws them exactly
uniformly (sequential conditional sampling with the exact counts and
``random.Random(seed).randrange``). Each deal returned is the current position: played cards
and the seat to lead as observed, the seat's hand as it is, the hidden cards placed, the same
rules and board, ready for ``search.solve``. Where the ruleset shows no turn-up (Spinado) the
deal's ``turnup`` is the lowest card of its dead hand (play and settlement do not read it).
"""

from __future__ import annotations

import random
from typing import Final

from ..model.cards import Mask
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from .counting import Placements, group_cards
from .knowledge import Knowledge

MAX_SAMPLES: Final = 1_000_000
"""Deals one call may draw (memory: each is a Python object)."""


class SamplingError(PopeJoanError):
    """Bad arguments to a sampler, or too many deals to list."""


def placements(k: Knowledge) -> Placements:
    """The placements of ``k``'s hidden cards (seat.counting)."""
    allowed = [(card, k.allowed(card)) for card in _cards(k.hidden)]
    return Placements(group_cards(allowed), k.need)


def _cards(mask: Mask) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def count_deals(k: Knowledge) -> int:
    """The exact number of deals consistent with ``k``."""
    return placements(k).total()


def _deal(k: Knowledge, got: tuple[Mask, ...]) -> Deal:
    n = k.players
    hands = tuple((k.own if s == k.seat else k.known_held[s] | got[s]) for s in range(n))
    dead = k.known_dead | got[n]
    turnup = k.turnup if k.turnup is not None else (dead & -dead).bit_length() - 1
    played = k.played if k.played_mask else ()
    return Deal(hands, dead, turnup, k.rules, k.deal_board, played, k.leader)


def sample_deals(k: Knowledge, count: int, seed: int) -> list[Deal]:
    """``count`` deals drawn independently and exactly uniformly from those consistent with
    ``k`` (with replacement), the same for the same seed."""
    if not 0 <= count <= MAX_SAMPLES:
        raise SamplingError(f"the number of samples must be from 0 to {MAX_SAMPLES:,}, "
                            f"not {count}")
    found = placements(k)
    if not found.total():
        raise SamplingError("no deal is consistent with this knowledge")
    rng = random.Random(seed)
    return [_deal(k, found.draw(rng)) for _ in range(count)]


def all_deals(k: Knowledge, limit: int) -> list[Deal]:
    """Every deal consistent with ``k`` (a fixed order); an error if there are over ``limit``."""
    found = placements(k)
    total = found.total()
    if total > limit:
        raise SamplingError(f"{total:,} deals are consistent with this view, over the limit "
                            f"of {limit:,}")
    return [_deal(k, got) for got in found.every()]
