"""Hoyle's maxims for a lead, from what the leader can see: at the first lead or any later one.

Hoffmann's advice (*Hoyle's Games Modernized*, c. 1909, "Pope Joan") is written for the
opening lead; :func:`maxim_lead` reads it for every lead of the deal, in Hoyle's order:

1. "first, however, playing out any known stops", and "A sequence or alternate sequence
   terminating with king forms a very strong lead": of the leader's runs of consecutive cards
   that end in a *known* stop and his sequences with gaps of at most one card that end in a
   King, the longest, led from its bottom. A card is a known stop when the card above it is
   out of the pack (the 8♦), above the top, known to be in the dead hand (the turn-up; the dead
   cards a stopped run revealed; the spare hand a dealer looked at) or already played — the
   later-lead reading: what was played or revealed is as known as the turn-up;
2. "to play it [Pope] at the first opportunity": the 9♦;
3. "the lower of two pretty close cards of the same suit (as three and six, three and seven, or
   four and eight)": the lower card of the closest pair 3 or 4 apart;
4. "the lowest card of the longest suit, especially if an ace".

Only legal leads are candidates (a lead rule such as Parlett's lowest of a suit may rule the
advised card out: the next maxim then speaks); ties go to the first suit in clubs, diamonds,
hearts, spades order, as in the first-lead study (``popejoan study hoyle-maxims``), whose
advice this is exactly at the first lead (with the 51-card pack; under Spinado a card
below one taken out of the pack is a known stop too).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Collection

from ..model.cards import EIGHT_OF_DIAMONDS, POPE, Card, Mask, card_suit, iter_mask, make_card
from ..model.rules import Ruleset

MAXIMS = ("known stop", "Pope", "sequence to a King", "close pair", "longest suit")
"""The maxims by name; a sequence to a King ranks with the known stops."""

FALLBACK = "lowest legal"
"""When no maxim names a legal lead (a lead rule ruled them all out)."""


@functools.lru_cache(maxsize=16)
def _suits(suit_order: tuple[int, ...]) -> tuple[tuple[Card, ...], ...]:
    """Each suit's cards bottom first (worked out once per order: every maxim asks)."""
    return tuple(tuple(make_card(suit, r) for r in suit_order) for suit in range(4))


def _runs(rules: Ruleset, hand: Mask, max_gap: int) -> list[list[Card]]:
    """Runs of the hand's cards per suit, bottom first, with at most ``max_gap`` missing
    between neighbours."""
    found = []
    for cards in _suits(tuple(rules.table.suit_order)):
        mine = [i for i, c in enumerate(cards) if hand >> c & 1]
        current: list[int] = []
        for i in mine:
            if current and i - current[-1] - 1 > max_gap:
                found.append([cards[j] for j in current])
                current = []
            current.append(i)
        if current:
            found.append([cards[j] for j in current])
    return found


def maxim_lead(rules: Ruleset, hand: Mask, gone: Mask,
               legal: Collection[Card] | None = None) -> tuple[Card, str]:
    """The lead Hoyle's maxims advise with ``hand`` in hand, knowing the cards of ``gone``
    cannot follow (the turn-up, other known dead cards, cards played), and the maxim that chose
    it; ``legal`` (default: every card in hand) limits the candidates."""
    allowed = set(iter_mask(hand)) if legal is None else set(legal)
    for maxim in (_sure_run, _pope, _close_pair, _longest_suit):
        advised = maxim(rules, hand, gone, allowed)
        if advised is not None:
            return advised
    return min(allowed, key=rules.table.order_key.__getitem__), FALLBACK


Advice = tuple[Card, str] | None
"""A maxim's lead and its name, or None when it names no allowed card."""


def _known_stop(rules: Ruleset, gone: Mask, card: Card) -> bool:
    """No one can follow ``card``: the card above it is above the top, out of the pack, or
    known gone (dead or played)."""
    above = rules.table.successor[card]
    return (above < 0 or above == EIGHT_OF_DIAMONDS or not rules.table.pack >> above & 1
            or bool(gone >> above & 1))


def _sure_run(rules: Ruleset, hand: Mask, gone: Mask, allowed: set[Card]) -> Advice:
    """Maxim 1: the longest run to a known stop or sequence to a King, led from its bottom
    (a run to a stop before a sequence of the same length; then the lower card)."""
    top = [(len(run), 1, run[0], MAXIMS[0]) for run in _runs(rules, hand, 0)
           if _known_stop(rules, gone, run[-1]) and run[0] in allowed]
    top += [(len(run), 0, run[0], MAXIMS[2]) for run in _runs(rules, hand, 1)
            if len(run) > 1 and run[-1] % 13 == 12 and rules.table.successor[run[-1]] < 0
            and run[0] in allowed]
    if not top:
        return None
    best = max(top, key=lambda t: (t[0], t[1], -t[2]))
    return best[2], best[3]


def _pope(rules: Ruleset, hand: Mask, gone: Mask, allowed: set[Card]) -> Advice:
    """Maxim 2: the Pope at the first opportunity."""
    return (POPE, MAXIMS[1]) if hand >> POPE & 1 and POPE in allowed else None


def _close_pair(rules: Ruleset, hand: Mask, gone: Mask, allowed: set[Card]) -> Advice:
    """Maxim 3: the lower of the closest two cards of a suit 3 or 4 apart."""
    key = rules.table.order_key
    pairs = []
    for suit in range(4):
        mine = sorted((c for c in iter_mask(hand) if card_suit(c) == suit), key=key.__getitem__)
        for low, high in itertools.pairwise(mine):
            if 3 <= key[high] - key[low] <= 4 and low in allowed:
                pairs.append((key[high] - key[low], suit, low))
    return (min(pairs)[2], MAXIMS[3]) if pairs else None


def _longest_suit(rules: Ruleset, hand: Mask, gone: Mask, allowed: set[Card]) -> Advice:
    """Maxim 4: the lowest allowed card of the longest suit held (that has one)."""
    key = rules.table.order_key
    suits = [[c for c in iter_mask(hand) if card_suit(c) == s and c in allowed]
             for s in range(4)]
    held = [len([c for c in iter_mask(hand) if card_suit(c) == s]) for s in range(4)]
    candidates = [s for s in range(4) if suits[s]]
    if not candidates:
        return None
    longest = max(candidates, key=lambda s: (held[s], -s))
    return min(suits[longest], key=key.__getitem__), MAXIMS[4]
