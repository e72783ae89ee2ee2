"""The pruning facts of the fast engine, as pure functions of slot-space masks.

Each is argued in ``docs/solver.md`` (its number is in the docstring) and used by the Python
forced-run kernel (``kernel.py``) and the general-mode kernel (``general.py``); the compiled core
(``_core.c``) restates them for speed, and ``docs/solver.md``'s index ties each to its C
function, its test and its mutant. In slot space the cards of a suit climb bit by bit, and a
*stretch* (a run of consecutive cards dealt to players) is a contiguous bit range: ``up[s]`` is
slot ``s`` with the slots above it in its stretch.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterable

from ..model.cards import Mask
from .objective import Goal

_SAME_SUIT = ~((1 << 12) | (1 << 25) | (1 << 38) | (1 << 51))
"""Every slot but the top of a suit: a shift down by one stays in its suit."""


def longest_block(held: Mask) -> int:
    """The longest block of consecutive slots of one suit in ``held`` (fact 3d: on lead, its
    holder plays them all before anyone else can go out)."""
    length = 0
    while held:
        length += 1
        held &= (held >> 1) & _SAME_SUIT
    return length


def race_sure(up: tuple[Mask, ...], dealt: tuple[Mask, ...], target: int, played: Mask,
              held: Mask, off_lead: bool = False, lead_any: bool = False) -> int:
    """Fact 3f (docs/solver.md): the fewest of the target's cards ``held`` played before
    another seat can go out (fact 3's argument for that seat: every card above its lowest in
    a stretch is played, but where it goes out on ``k``: its lowest up to ``k``, and from its
    next card above ``k`` to the top). With another seat on lead (``off_lead``) under
    lead=any, fact 3m: one card more where that seat's going out first gives the target the
    lead."""
    stops = target_stops(up, dealt, target, played, held) if off_lead and lead_any else 0
    least = held.bit_count()
    for seat, cards_dealt in enumerate(dealt):
        if seat == target or not least:
            continue
        theirs = cards_dealt & ~played
        total = 0
        savings: list[tuple[int, bool]] = []  # each stretch's saving, and whether it is topped
        rest = theirs
        while rest:
            span = up[(rest & -rest).bit_length() - 1]
            rest &= ~span
            whole = (span & held).bit_count()
            total += whole
            cheapest = whole
            cards = theirs & span
            while cards:
                k = (cards & -cards).bit_length() - 1
                cards &= cards - 1
                cost = ((span ^ up[k] ^ (1 << k)) & held).bit_count()
                if cards:
                    cost += (up[(cards & -cards).bit_length() - 1] & held).bit_count()
                cheapest = min(cheapest, cost)
            savings.append((whole - cheapest, bool(span & stops)))
        topped = sum(is_topped for _, is_topped in savings)
        # Going out in a stretch saves some of its cards; wherever but in the seat's one
        # topped stretch, the target's lead after a run into another counts one more
        # (fact 3m).
        least = min([least] + [total - saving + (topped > is_topped)
                               for saving, is_topped in savings])
    return least


def target_stops(up: tuple[Mask, ...], dealt: tuple[Mask, ...], target: int, played: Mask,
                  held: Mask) -> Mask:
    """Fact 3m (docs/solver.md): the target's cards ``held`` that top what is left of their
    stretch, where it holds a card no other seat can run into (none of theirs at or below it
    in its stretch; else none): a run that stops on one gives it the lead, and it leads that
    card."""
    covered = 0
    rest = 0
    for seat, cards in enumerate(dealt):
        if seat != target:
            rest |= cards & ~played
    while rest:
        span = up[(rest & -rest).bit_length() - 1]
        covered |= span
        rest &= ~span
    if not held & ~covered:
        return 0
    stops, cards = 0, held
    while cards:
        low = cards & -cards
        cards ^= low
        if up[low.bit_length() - 1] & ~played == low:
            stops |= low
    return stops


def played_first(up: tuple[Mask, ...], on_lead: bool, lead_any: bool, played: Mask,
                 held: Mask, exempt_bit: Mask) -> tuple[int, Mask, Mask]:
    """Facts 3d and 3g (docs/solver.md): how many of the target's cards ``held`` it can play
    before any other seat could go out, with the cards played and its cards left after its
    own runs. On lead under lead=any it leads each card whose run is its own cards only (it
    keeps the lead; the Pope kept apart), then the bottom of its longest block; on lead under
    a lowest-card rule, one card; not on lead, none."""
    if not on_lead:
        return 0, played, held
    if not lead_any:
        return 1, played, held
    own = 0
    cards = held & ~exempt_bit
    while cards:
        low = cards & -cards
        cards ^= low
        if not up[low.bit_length() - 1] & ~played & ~held:
            own |= low
    return own.bit_count() + longest_block(held & ~own), played | own, held & ~own


def first_out(dealt: tuple[Mask, ...], run: Mask, after: Mask) -> tuple[int, Mask]:
    """The seat that goes out first in ``run`` (the unplayed cards from a lead up; ``after``
    the cards played once it is through), or -1, and the part of the run played by then (all
    of it for none)."""
    winner = -1
    last = 0
    for seat, hand in enumerate(dealt):
        if not hand & ~after:
            seat_last = (hand & run).bit_length()
            if winner < 0 or seat_last < last:
                winner, last = seat, seat_last
    return winner, run if winner < 0 else run & ((1 << last) - 1)


def lead_floor(up: tuple[Mask, ...], dealt: tuple[Mask, ...], played: Mask, rest_held: Mask,
               ending: Callable[[Mask, int], int], led: Callable[[Mask, Mask], int],
               floor: int, beta: int) -> int:
    """Fact 3k (docs/solver.md): the target on lead under lead=any, its own runs played
    (``played``), leads one more of its cards ``rest_held``: where someone goes out in that
    run, that ending's payoff (``ending(final, winner)``), else ``led(after, its cards in the
    run)``. The best such lead, from ``floor`` up, returned once one reaches ``beta``."""
    cards = rest_held
    while cards:
        low = cards & -cards
        cards ^= low
        run = up[low.bit_length() - 1] & ~played
        after = played | run
        winner, reached = first_out(dealt, run, after)
        value = ending(played | reached, winner) if winner >= 0 else led(after, run & rest_held)
        if value > floor:
            floor = value
            if floor >= beta:
                break
    return floor


def goes_out_now(lead_any: bool, on_lead: bool, up: tuple[Mask, ...], played: Mask,
                 held: Mask, exempt_bit: Mask) -> bool:
    """Fact 3i (docs/solver.md): whether the target on lead under lead=any can play all its
    cards ``held`` before anyone else plays one: its own runs (fact 3g, the Pope kept apart),
    then one block of what is left."""
    if not (lead_any and on_lead):
        return False
    left = held
    cards = held & ~exempt_bit
    while cards:
        low = cards & -cards
        cards ^= low
        if not up[low.bit_length() - 1] & ~played & ~held:
            left ^= low
    return longest_block(left) == left.bit_count()


def isolation_applies(goal: Goal, lead_any: bool, pope_at_risk: bool) -> bool:
    """Whether fact 5 (docs/solver.md) holds for a search: not for the best case (the others
    play for the target there), only under lead=any, and for the paranoid value not where the
    target holds a Pope it cannot keep to the end."""
    return goal is not Goal.BEST_CASE and lead_any and not (
        goal is Goal.GUARANTEED and pope_at_risk)


def kept_apart(goal: Goal, exempt_bit: Mask, awards: Iterable[Mask]) -> Mask:
    """Fact 5: the cards another seat is not taken to play at once: none for the forced win;
    for the paranoid value the Pope (its holder may keep it and pay nothing) and the cards of
    every award the target shares in (played sooner, they could pay the target sooner)."""
    if goal is not Goal.GUARANTEED:
        return 0
    return exempt_bit | functools.reduce(operator.or_, awards, 0)


def own_isolation_applies(goal: Goal, lead_any: bool, awards: Iterable[tuple[Mask, int]],
                          own: Mask) -> bool:
    """Whether fact 5b (docs/solver.md) holds for a search: the target on lead plays its own
    isolated cards first. Not for the best case, only under lead=any, and for the paranoid
    value only where every award the target takes is of its own cards (going out sooner then
    loses none)."""
    return goal is not Goal.BEST_CASE and lead_any and not (
        goal is Goal.GUARANTEED and any(amount > 0 and cards & ~own for cards, amount in awards))


def own_kept_apart(goal: Goal, exempt_bit: Mask) -> Mask:
    """Fact 5b: the target's cards it is not taken to play at once: its Pope, for the paranoid
    value (kept, it pays nothing when another seat goes out)."""
    return exempt_bit if goal is Goal.GUARANTEED else 0


def isolated_cards(stretch: tuple[Mask, ...], in_play: Mask, dealt: tuple[Mask, ...],
                   played: Mask, seat: int, keep_apart: Mask) -> Mask:
    """Fact 5 (docs/solver.md): the cards of ``seat`` (another seat, on lead) whose stretch's
    unplayed cards are all its own, with none of ``keep_apart`` at or above them (leading one
    plays every card above it): nobody else can ever play into them, and playing them at once
    is as good for the others as keeping them."""
    held = dealt[seat] & ~played
    others = in_play & ~played & ~held
    kept = held & keep_apart
    found = 0
    cards = held & ~keep_apart
    while cards:
        low = cards & -cards
        cards ^= low
        whole = stretch[low.bit_length() - 1]
        if not whole & others and not whole & ~(low - 1) & kept:
            found |= low
    return found


def out_in_two(up: tuple[Mask, ...], dealt: tuple[Mask, ...], holder: tuple[int, ...],
               played: Mask, target: int, exempt_bit: Mask) -> bool:
    """Fact 3l (docs/solver.md): whether the target on lead under lead=any can go out whatever
    the others do within its next two leads: its own runs played (fact 3g), it leads a card
    whose run takes it out before anyone else, or stops on its own card with the target then
    able to go out at once (fact 3i)."""
    _, after_own, held = played_first(up, True, True, played, dealt[target] & ~played,
                                      exempt_bit)
    cards = held
    while cards:
        low = cards & -cards
        cards ^= low
        run = up[low.bit_length() - 1] & ~after_own
        after = after_own | run
        winner, _ = first_out(dealt, run, after)
        if winner >= 0:
            if winner == target:
                return True
            continue
        if holder[run.bit_length() - 1] == target and goes_out_now(
                True, True, up, after, dealt[target] & ~after, exempt_bit):
            return True
    return False


def other_goes_out(lead_any: bool, up: tuple[Mask, ...], dealt: tuple[Mask, ...],
                   played: Mask, leader: int, target: int, exempt_bit: Mask) -> int:
    """Fact 3j (docs/solver.md): the seat on lead if it is not the target and can go out
    before anyone else plays a card (fact 3i's test), else -1."""
    if leader == target or not goes_out_now(lead_any, True, up, played,
                                            dealt[leader] & ~played, exempt_bit):
        return -1
    return leader


def pope_cards_lost(up: tuple[Mask, ...], dealt: tuple[Mask, ...], holder: int, slot: int,
                    bottom: bool, played: Mask, cover: Mask, open_cards: Mask, leader: int,
                    led_outside: bool) -> int:
    """Facts 3c and 3h (docs/solver.md): the cards of others outside fact 3's spans that the
    target is surely not paid for when another seat (``holder``) has the Pope (at ``slot``),
    beyond the one of fact 3b already charged when ``led_outside``. Kept to the end, the Pope
    exempts its holder: all his cards outside the spans are played or exempt; played, it was
    led from the bottom of its stretch (``bottom``) and the run climbed through every card of
    the stretch below the spans. Without ``bottom``, one card (the Pope)."""
    keep = lost = 1
    stretch = 0
    if bottom:
        keep = (dealt[holder] & ~played & ~cover).bit_count()
        stretch = up[slot] & ~cover & open_cards
        lost = stretch.bit_count()
    if led_outside and leader == holder:  # its lead is one of those cards
        return min(keep, lost) - 1
    if led_outside and dealt[leader] & stretch:  # its lead may be in the stretch
        return min(keep + 1, lost) - 1
    return min(keep, lost)



def own_run_skipped(run: Mask, own: Mask, goes_on: int) -> bool:
    """Fact 4 in the general mode (docs/solver.md, "Choices inside a run"): a lead whose
    ``run`` (the unplayed cards from it to the top of its stretch) is two or more of the
    leader's ``own`` cards is not searched, the leader's top card of it being led first;
    but not where the Pope in lieu at the run's stop would carry it on (to ``goes_on``; -1
    for none): no other order of the leader's leads plays that run."""
    return not run & ~own and bool(run & (run - 1)) and goes_on < 0
