"""The deals consistent with a seat's knowledge: their exact number, uniform draws, the list.

A consistent deal puts every hidden card in one of its allowed places (``Knowledge.places``)
with each location holding its known number of cards (``Knowledge.need``); the cards the seat
knows are where it knows them. :mod:`seat.counting` counts these placements exactly (a dynamic
programme over groups of interchangeable cards, in exact integers) and draws them exactly
uniformly (sequential conditional sampling with the exact counts and
``random.Random(seed).randrange``). Each deal returned is the current position: played cards
and the seat to lead as observed, the seat's hand as it is, the hidden cards placed, the same
rules and board, ready for ``search.solve``. Where the exact count is refused (too many ways to
split the cards), :func:`sample_deals` still draws exactly uniformly, by rejection from looser
constraints that can be counted (:func:`counting.relaxed`); :func:`count_deals` and
:func:`all_deals` refuse. Where the ruleset shows no turn-up (Spinado) the
deal's ``turnup`` is the lowest card of its dead hand (play and settlement do not read it).
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from typing import Final

from ..model.cards import Mask, iter_mask
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from .counting import CountingLimitError, Placements, group_cards, relaxed
from .knowledge import Knowledge

MAX_SAMPLES: Final = 1_000_000
"""Deals one call may draw (memory: each is a Python object)."""
PROPOSAL_STEPS: Final = 20_000
"""The counting budget of the looser constraints drawn from where the exact count is refused."""
MAX_TRIES: Final = 100_000
"""Draws from the looser constraints beyond 1,000 a deal asked before giving up."""


class SamplingError(PopeJoanError):
    """Bad arguments to a sampler, or too many deals to list."""


@lru_cache(maxsize=4)
def placements(k: Knowledge) -> Placements:
    """The placements of ``k``'s hidden cards (seat.counting); the last few are kept, so that
    counting and then drawing from the same knowledge runs the programme once."""
    allowed = [(card, k.allowed(card)) for card in _cards(k.hidden)]
    return Placements(group_cards(allowed), k.need)


def _cards(mask: Mask) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def count_deals(k: Knowledge) -> int:
    """The exact number of deals consistent with ``k``."""
    return placements(k).total()


def _deal(k: Knowledge, got: tuple[Mask, ...]) -> Deal:
    """The deal a draw ``got`` of the hidden cards makes: it agrees with the play the seat
    saw, which is the proof that play reaches its position (:meth:`Deal.reached`)."""
    n = k.players
    hands = tuple((k.own if s == k.seat - 1 else k.known_held[s] | got[s]) for s in range(n))
    dead = k.known_dead | got[n]
    turnup = k.turnup if k.turnup is not None else (dead & -dead).bit_length() - 1
    played = k.played if k.played_mask else ()
    return Deal.reached(hands, dead, turnup, k.rules, k.deal_board, played, k.leader)


def seeded(seed: int) -> random.Random:
    """The draws' generator: ``random.Random(seed)`` for a seed from 0 (the streams every
    figure quoted was drawn with), and for a negative seed a stream of its own (``Random``
    takes a whole number's absolute value, so ``-1`` drew the deals of ``1``)."""
    return random.Random(seed if seed >= 0 else f"popejoan-sample:{seed}")


def sample_deals(k: Knowledge, count: int, seed: int,
                 deadline: float | None = None) -> list[Deal]:
    """``count`` deals drawn independently and exactly uniformly from those consistent with
    ``k`` (with replacement), the same for the same seed; past ``deadline`` (a
    ``time.monotonic()`` time) the first ones drawn, fewer."""
    if not 0 <= count <= MAX_SAMPLES:
        raise SamplingError(f"the number of samples must be from 0 to {MAX_SAMPLES:,}, "
                            f"not {count}")
    found = placements(k)
    rng = seeded(seed)
    try:
        total = found.total()
    except CountingLimitError:
        return _by_rejection(k, found, count, rng, deadline)
    if not total:
        raise SamplingError("no deal is consistent with this knowledge")
    deals: list[Deal] = []
    while len(deals) < count and not _past(deadline, len(deals)):
        deals.append(_deal(k, found.draw(rng)))
    return deals


def _past(deadline: float | None, done: int) -> bool:
    """Whether ``deadline`` has passed (looked at every 64 deals: a deal takes microseconds)."""
    return deadline is not None and done % 64 == 63 and time.monotonic() >= deadline


def _by_rejection(k: Knowledge, found: Placements, count: int, rng: random.Random,
                  deadline: float | None) -> list[Deal]:
    """Where the exact count is refused: draws from relaxed constraints that can be counted
    (``counting.relaxed``), kept only when every card is in a place it is allowed: still
    exactly uniform; a bounded number of tries."""
    proposal = relaxed(found.groups, found.need, PROPOSAL_STEPS)
    allowed = {card: group.places for group in found.groups for card in group.cards}
    deals: list[Deal] = []
    for tries in range(MAX_TRIES + 1000 * count):
        if len(deals) == count or _past(deadline, tries):
            return deals
        got = proposal.draw(rng)
        if all(allowed[c] >> loc & 1 for loc, mask in enumerate(got) for c in iter_mask(mask)):
            deals.append(_deal(k, got))
    if len(deals) == count:
        return deals
    raise SamplingError("too many ways to place the hidden cards, and too few draws from "
                        "looser constraints fit them: the seat knows too little here")


def all_deals(k: Knowledge, limit: int, deadline: float | None = None) -> list[Deal]:
    """Every deal consistent with ``k`` (a fixed order); an error if there are over ``limit``.
    Past ``deadline`` (a ``time.monotonic()`` time) the first ones of that order, fewer."""
    found = placements(k)
    total = found.total()
    if total > limit:
        raise SamplingError(f"{total:,} deals are consistent with this view, over the limit "
                            f"of {limit:,}")
    deals: list[Deal] = []
    for got in found.every():
        if _past(deadline, len(deals)):
            break
        deals.append(_deal(k, got))
    return deals
