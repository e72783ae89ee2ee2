"""The fast engine: MTD(f) over an alpha-beta with a bounded transposition table of bounds.

It works in *slot space*: card ``c`` becomes bit ``suit * 13 + order_key[c]``, so that in every
ruleset the cards of a suit climb bit by bit, and a *stretch* (a maximal run of consecutive
cards dealt to players, between cards that can never be played) is a contiguous bit range.
Because played cards always form the top part of their stretch (docs/solver.md, fact 1), the
run forced by a lead at slot ``s`` is just ``up[s] & ~played`` and its stop card, hence the next
leader, is the top of the stretch's unplayed part whatever card of it was led (fact 2).
Each pruning rule used here is argued in ``docs/solver.md``.
"""

from __future__ import annotations

import functools
import operator
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model.board import Board
from ..model.cards import Mask, iter_mask
from ..model.play import Game
from ..model.table import Award, ChoiceKind, LeadId, RuleTable, award_shares
from .general import general_searcher
from .objective import INF, Goal, Objective, SearchTimeoutError

try:
    from . import _core  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - only when the extension could not be built
    _core = None

COMPILED: bool = _core is not None
"""True when the compiled core is in use (the pure-Python search otherwise)."""

DEFAULT_TT_ENTRIES = 1 << 22
"""Default bound on transposition-table entries (16 bytes each in the compiled core: 64 MiB;
the Python table is cleared when it reaches the bound, per objective)."""

GOAL_IDS = {Goal.GUARANTEED: 0, Goal.FORCED_WIN: 1, Goal.BEST_CASE: 2}
"""The goals as the compiled core numbers them (``_core.GOAL_*`` must agree)."""

_SUIT_BITS = (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39)


_SAME_SUIT = ~((1 << 12) | (1 << 25) | (1 << 38) | (1 << 51))


def _longest_block(held: Mask) -> int:
    """The longest block of consecutive slots of one suit in ``held``."""
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
    return own.bit_count() + _longest_block(held & ~own), played | own, held & ~own


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
    return _longest_block(left) == left.bit_count()


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


@dataclass(frozen=True)
class _RuleSlots:
    """What slot space takes from the rule table and the trumps alone, the same on every deal
    of them (the samples of one decision): compiled once, not once a deal."""

    table: RuleTable = field(compare=False)
    slot_of: tuple[int, ...]
    card_of: tuple[int, ...]
    identity: bool
    awards: tuple[tuple[Award, tuple[int, ...], Mask], ...]
    """Each award with its cards' slots and their slot mask."""
    exempt_slot: int
    spin_slot: int
    lieu_slot: int
    lieu_after_top: bool
    lieu_continues: bool
    shares: dict[tuple[int, tuple[int, ...], int, int], tuple[tuple[int, int], ...]] = field(
        default_factory=dict, compare=False)
    """``award_shares`` of the i-th award by (i, holders, amount, players), as met."""


def _suit_ups(suit: int, pattern: int) -> tuple[Mask, ...]:
    """``up`` of the 13 slots of ``suit`` when ``pattern`` (13 bits) of them are in play: each
    in-play slot with the in-play slots just above it, up to the first gap."""
    up = [0] * 14
    for rank in range(12, -1, -1):
        if pattern >> rank & 1:
            up[rank] = (1 << rank) | up[rank + 1]
    return tuple(mask << (13 * suit) for mask in up[:13])


MEMO_LIMIT = 4096
"""The most award shares a rule table keeps (:attr:`_RuleSlots.shares`), and suits' ``up``
tables kept (``_SUIT_UPS``): a long batch meets ever new boards and dead hands."""

_SUIT_UPS: dict[tuple[int, int], tuple[Mask, ...]] = {}
""":func:`_suit_ups` as met, by suit and pattern."""


_RULE_SLOTS: dict[tuple[int, int], _RuleSlots] = {}
"""The tables of :func:`rule_slots`, by the rule table's ``id`` and the trumps."""


def rule_slots(table: RuleTable, trumps: int) -> _RuleSlots:
    """The rule table's slot-space tables for ``trumps``, compiled once per table (found by
    identity: hashing a rule table costs more than compiling its awards)."""
    key = (id(table), trumps)
    found = _RULE_SLOTS.get(key)
    if found is None or found.table is not table:  # the table held there keeps its id taken
        if len(_RULE_SLOTS) >= 256:
            _RULE_SLOTS.clear()
        found = _RULE_SLOTS[key] = _compile_rule_slots(table, trumps)
    return found


def _compile_rule_slots(table: RuleTable, trumps: int) -> _RuleSlots:
    """:func:`rule_slots` computed."""
    key = table.order_key
    slot_of = tuple((c // 13) * 13 + key[c] for c in range(52))
    card_of = [0] * 52
    for card, slot in enumerate(slot_of):
        card_of[slot] = card
    awards = tuple((award, slots, sum(1 << s for s in slots))
                   for award in table.awards(trumps)
                   for slots in [tuple(slot_of[card] for card in award.cards)])
    exempt = table.exempt_card
    spin, lieu = table.choice(ChoiceKind.SPIN), table.choice(ChoiceKind.IN_LIEU)
    return _RuleSlots(table, slot_of, tuple(card_of), all(s == c for c, s in enumerate(slot_of)),
                      awards, slot_of[exempt] if exempt is not None else -1,
                      slot_of[spin.card] if spin is not None else -1,
                      slot_of[lieu.card] if lieu is not None else -1,
                      lieu is not None and lieu.after_top, lieu is not None and lieu.continues)


class SlotGame:
    """The deal's tables in slot space, shared by every search on it."""

    def __init__(self, game: Game, board: Board) -> None:
        ruled = rule_slots(game.table, game.trumps)
        self.game = game
        self.players = game.players
        self.slot_of = ruled.slot_of
        self.identity = ruled.identity
        self.card_of = ruled.card_of
        self.dealt = tuple(self.to_slots(m) for m in game.dealt)
        self.in_play = in_play = self.to_slots(game.in_play)
        if self.identity:
            self.holder = game.holder
        else:
            holder = [-1] * 52
            for card, slot in enumerate(self.slot_of):
                holder[slot] = game.holder[card]
            self.holder = tuple(holder)
        up: tuple[Mask, ...] = ()
        for suit in range(4):
            key = (suit, in_play >> (13 * suit) & 0x1FFF)
            ups = _SUIT_UPS.get(key)
            if ups is None:
                if len(_SUIT_UPS) >= MEMO_LIMIT:
                    _SUIT_UPS.clear()
                ups = _SUIT_UPS[key] = _suit_ups(*key)
            up += ups
        self.up = up
        self._compile_payoffs(ruled, board)

    @functools.cached_property
    def stretch(self) -> tuple[Mask, ...]:
        """Each slot's whole stretch, up[] of its bottom card (0 for a slot not dealt): fact 5
        (the Python search's; the compiled core finds stretches by its own fill masks)."""
        in_play, up = self.in_play, self.up
        stretch = [0] * 52
        for slot in range(52):
            if in_play >> slot & 1 and (slot % 13 == 0 or not in_play >> (slot - 1) & 1):
                for card in iter_mask(up[slot]):
                    stretch[card] = up[slot]
        return tuple(stretch)

    def to_slots(self, mask: Mask) -> Mask:
        """A card mask in slot space (the same mask where every card is its own slot: ace
        low)."""
        if self.identity:
            return mask
        out = 0
        for card in iter_mask(mask):
            out |= 1 << self.slot_of[card]
        return out

    def _compile_payoffs(self, ruled: _RuleSlots, board: Board) -> None:
        """The rule table's awards on this deal and board, as (slot mask, takers) pairs."""
        holder, players = self.holder, self.players
        awards: list[tuple[Mask, tuple[tuple[int, int], ...]]] = []
        known = ruled.shares
        for i, (award, slots, mask) in enumerate(ruled.awards):
            amount = board[award.compartment] if award.compartment is not None else 0
            key = (i, tuple(holder[s] for s in slots), amount, players)
            shares = known.get(key)
            if shares is None:
                if len(known) >= MEMO_LIMIT:  # boards change from deal to deal: bounded
                    known.clear()
                shares = known[key] = award_shares(award, key[1], amount, players)
            if shares:
                awards.append((mask, shares))
        self.awards = tuple(awards)
        self.game_stake = board.game
        exempt = ruled.exempt_slot
        self.exempt_bit = 1 << exempt if exempt >= 0 else 0
        self.exempt_holder = holder[exempt] if exempt >= 0 else -1
        self.spin_slot = ruled.spin_slot
        lieu_slot = ruled.lieu_slot
        self.lieu_slot = lieu_slot if lieu_slot >= 0 and holder[lieu_slot] >= 0 else -1
        """The card in lieu of a stop (the Pope), -1 if none or dead (then no one can choose)."""
        self.lieu_after_top = ruled.lieu_after_top
        self.lieu_continues = ruled.lieu_continues
        between = any(amount < 0 for _, takers in awards for _, amount in takers)
        self.general = self.spin_slot >= 0 or self.lieu_slot >= 0 or between
        """Choices inside a run, or payments between players: the facts of docs/solver.md
        that assume a forced run are off, and runs are walked card by card."""
        self.plain_after_lieu = self.lieu_slot >= 0 and self.spin_slot < 0 and not between
        """Once the card in lieu is played no choice is left, and the forced-run search (with
        its facts) takes over (docs/solver.md, "Choices inside a run")."""

    @property
    def choices(self) -> tuple[int, int, int, int]:
        """The choice points as the compiled core takes them (-1: none)."""
        return (self.spin_slot, self.lieu_slot, int(self.lieu_after_top),
                int(self.lieu_continues))

    def payoff(self, played: Mask, winner: int, seat: int) -> int:
        """Seat's net counters when the deal ends with ``played`` and ``winner`` out."""
        value = 0
        for cards, takers in self.awards:
            if played & cards == cards:
                for taker, amount in takers:
                    if taker == seat:
                        value += amount
        dealt = self.dealt
        if seat == winner:
            value += self.game_stake
            for other in range(self.players):
                if other != winner:
                    left = dealt[other] & ~played
                    if not (left & self.exempt_bit):
                        value += left.bit_count()
        else:
            left = dealt[seat] & ~played
            if not (left & self.exempt_bit):
                value -= left.bit_count()
        return value

    def lead_generator(self) -> Callable[[Mask, int], list[int]]:
        """A function giving the legal lead slots of a seat, bottom of each suit first."""
        dealt = self.dealt
        rule = self.game.table.lead
        if rule is LeadId.ANY:
            def any_card(played: Mask, leader: int) -> list[int]:
                held = dealt[leader] & ~played
                out = []
                while held:
                    low = held & -held
                    out.append(low.bit_length() - 1)
                    held ^= low
                return out
            return any_card
        def lowest_of_suit(played: Mask, leader: int) -> list[int]:
            held = dealt[leader] & ~played
            out = []
            for bits in _SUIT_BITS:
                part = held & bits
                if part:
                    out.append((part & -part).bit_length() - 1)
            return out

        if rule is LeadId.LOWEST_OF_SUIT:
            return lowest_of_suit

        def lowest_in_hand(played: Mask, leader: int) -> list[int]:
            lows = lowest_of_suit(played, leader)
            bottom = min(s % 13 for s in lows)
            return [s for s in lows if s % 13 == bottom]
        return lowest_in_hand


class FastEngine:
    """Exact values of positions, with MTD(f) driving null-window alpha-beta searches."""

    name = "fast"

    def __init__(self, game: Game, board: Board, deadline: float | None = None,
                 tt_entries: int = DEFAULT_TT_ENTRIES, compiled: bool | None = None) -> None:
        if compiled and _core is None:
            raise RuntimeError("the compiled core of the fast engine is not built")
        self.slots = SlotGame(game, board)
        self.deadline = deadline
        self.tt_entries = tt_entries
        self._nodes = 0
        self._core: Any = None
        if _core is not None and compiled is not False:
            sg = self.slots
            self._core = _core.Core(sg.dealt, sg.up, sg.holder, int(game.table.lead),
                                    sg.awards, sg.game_stake, sg.exempt_bit, tt_entries,
                                    sg.choices)
        self.core = "c" if self._core is not None else "python"
        self._award_sums: dict[int, tuple[int, int]] = {}
        """A seat's awards that it pays, and that it takes (the static bounds' sums)."""
        self._tables: dict[Objective, dict[int, tuple[int, int, int]]] = {}
        self._guess: dict[Objective, int] = {}
        self.bounds: tuple[int, int] = (-INF, INF)
        """Root bounds proven so far by the latest :meth:`value` call (read after a timeout)."""
        self.cancelled = False

    def cancel(self) -> None:
        """Stop every search, running (in another thread) or to come, as if its time ran out."""
        self.cancelled = True
        if self._core is not None:
            self._core.cancel()

    def value(self, objective: Objective, played: Mask, leader: int,
              known: tuple[int, int] | None = None, guess: int | None = None) -> int:
        """The exact value of the position (card-space ``played``) for ``objective``.

        ``known`` are bounds the caller has already proven (say, a seat's guaranteed value
        below its best case); they only narrow the search. MTD(f) starts from ``guess`` (by
        default the last value found for the objective); a guess changes no value.
        """
        played_slots = self.slots.to_slots(played)
        ended = self._ended(objective, played_slots)
        if ended is not None:
            return ended
        low, high = self._static_bounds(objective, played_slots)
        if known is not None:
            low, high = max(low, known[0]), min(high, known[1])
        if guess is None:
            guess = self._guess.get(objective, 0)
        guess = min(max(guess, low), high)
        low, high = self._mtd(objective, played_slots, leader, low, high, guess)
        self._guess[objective] = low
        return low

    def lead_values(self, played: Mask, leader: int, forced_win: bool, staying: int,
                    ) -> tuple[dict[int, tuple[tuple[int, int], tuple[int, int]]], bool] | None:
        """Every legal lead of the seat on lead (card-space ``played``) in one call of the
        compiled core: by card, its paranoid value's bounds and its forced win's (0..1 where
        not searched), and whether all are exact; None without the core: then
        search/leads.py values the leads one at a time."""
        if self._core is None:
            return None
        guess = self._guess.get(Objective(Goal.GUARANTEED, leader), 0)
        found, done = self._core.lead_values(leader, self.slots.to_slots(played), leader,
                                             guess, self.deadline or 0.0, forced_win, staying)
        card_of = self.slots.card_of
        return {card_of[slot]: ((low, high), (win_low, win_high))
                for slot, low, high, win_low, win_high in found}, bool(done)

    def at_least(self, objective: Objective, played: Mask, leader: int, threshold: int) -> bool:
        """Whether the position's value is at least ``threshold``: one null-window search."""
        played_slots = self.slots.to_slots(played)
        ended = self._ended(objective, played_slots)
        if ended is not None:
            return ended >= threshold
        low, high = self._static_bounds(objective, played_slots)
        if threshold <= low or threshold > high:
            return threshold <= low
        low, high = self._mtd(objective, played_slots, leader, threshold - 1, threshold,
                              threshold)
        return low >= threshold

    def _mtd(self, objective: Objective, played: Mask, leader: int, low: int, high: int,
             guess: int) -> tuple[int, int]:
        """MTD(f) from ``guess``: null-window searches close ``[low, high]`` in on the value.

        Returns the final bounds (equal unless the search started inside a narrower window);
        raises :class:`SearchTimeoutError` past the deadline, with :attr:`bounds` kept.
        """
        self.bounds = (low, high)
        if self._core is not None:
            low, high, done = self._core.value(
                GOAL_IDS[objective.goal], objective.seat, played, leader, low, high,
                guess, self.deadline or 0.0)
            self.bounds = (low, high)
            if not done:
                raise SearchTimeoutError
            return int(low), int(high)
        search = (general_searcher(self, objective) if self.slots.general
                  else self._searcher(objective))
        step, last_direction = 1, 0
        while low < high:
            if self.cancelled:
                raise SearchTimeoutError
            beta = guess + 1 if guess == low else guess
            score = search(played, leader, beta - 1, beta)
            direction = -1 if score < beta else 1
            if score < beta:
                high = score
            else:
                low = score
            self.bounds = (low, high)
            # Passes that keep moving the same way take growing steps.
            step = step * 3 if direction == last_direction else 1
            last_direction = direction
            guess = min(max(score + direction * (step - 1), low), high)
        return low, high

    @property
    def nodes(self) -> int:
        """Positions searched so far by this engine."""
        return int(self._core.nodes) if self._core is not None else self._nodes

    def _ended(self, objective: Objective, played: Mask) -> int | None:
        """The objective's payoff if a seat is out in slot-space ``played``, else None."""
        for seat in range(self.slots.players):
            if not self.slots.dealt[seat] & ~played:
                return self._terminal(objective, played, seat)
        return None

    def _terminal(self, objective: Objective, played: Mask, winner: int) -> int:
        if objective.goal is Goal.FORCED_WIN:
            return int(winner == objective.seat)
        return self.slots.payoff(played, winner, objective.seat)

    def _static_bounds(self, objective: Objective, played: Mask) -> tuple[int, int]:
        if objective.goal is Goal.FORCED_WIN:
            return 0, 1
        sg = self.slots
        seat = objective.seat
        sums = self._award_sums.get(seat)
        if sums is None:
            mine = [amount for _, takers in sg.awards for t, amount in takers if t == seat]
            sums = self._award_sums[seat] = (sum(a for a in mine if a < 0),
                                             sum(a for a in mine if a > 0))
        paid, taken = sums
        low = -(sg.dealt[seat] & ~played).bit_count() + paid
        high = sg.game_stake + taken
        high += sum((sg.dealt[o] & ~played).bit_count() for o in range(sg.players) if o != seat)
        return low, high

    # The search kernel, whole on purpose: one closure with its locals bound for speed, every
    # pruning fact cited at its cut (docs/solver.md); splitting it costs a call per node.
    def _searcher(self, objective: Objective) -> Callable[[Mask, int, int, int], int]:  # noqa: C901
        """Build the alpha-beta closure for one objective (locals bound for speed)."""
        sg = self.slots
        table = self._tables.setdefault(objective, {})
        tt_get = table.get
        limit = self.tt_entries
        n = sg.players
        seats = range(n)
        dealt = sg.dealt
        up = sg.up
        holder = sg.holder
        leads = sg.lead_generator()
        target = objective.seat
        is_max = tuple(objective.maximises(s) for s in seats)
        win_goal = objective.goal is Goal.FORCED_WIN
        prune_blocks = sg.game.table.lead is LeadId.ANY
        payoff = sg.payoff
        deadline = self.deadline
        engine = self

        counters_goal = not win_goal
        mine = tuple((cards, amount) for cards, takers in sg.awards for t, amount in takers
                     if t == target)
        all_mine = sum(amount for _, amount in mine) + sg.game_stake
        others = tuple(o for o in seats if o != target)
        my_cards = dealt[target]
        exempt_bit = sg.exempt_bit if sg.exempt_holder >= 0 else 0
        exempt_holder = sg.exempt_holder
        exempt_mine = sum(amount for cards, amount in mine if exempt_bit and cards == exempt_bit)
        theirs = sg.in_play & ~my_cards
        # Fact 3e: no run reaches a card at the bottom of its stretch; under lead=any its
        # holder plays it only by choice, so the Pope's holder can keep it to the end.
        exempt_slot = exempt_bit.bit_length() - 1
        exempt_kept = bool(exempt_bit) and prune_blocks and (
            exempt_slot % 13 == 0 or not sg.in_play >> (exempt_slot - 1) & 1)

        race, first, best_lead = race_sure, played_first, lead_floor  # the mutation tests
        # patch these: looked up here
        pope_loss, on_lead_out, leader_out = pope_cards_lost, goes_out_now, other_goes_out
        two_leads_out = out_in_two
        pope_bottom = bool(exempt_bit) and (
            exempt_slot % 13 == 0 or not sg.in_play >> (exempt_slot - 1) & 1)
        isolate, in_play, stretch = isolated_cards, sg.in_play, sg.stretch
        isolating = isolation_applies(objective.goal, prune_blocks,
                                      bool(my_cards & exempt_bit) and not exempt_kept)
        keep_apart = kept_apart(objective.goal, exempt_bit, (cards for cards, _ in mine))
        own_isolating = own_isolation_applies(objective.goal, prune_blocks, mine, my_cards)
        own_keep = own_kept_apart(objective.goal, exempt_bit)

        def pope_floor(held: Mask, sure: int) -> int:
            """The least the target ends with, awards aside, when ``sure`` of its cards are
            played first (fact 3d); holding the Pope it pays nothing, or its rest once the
            Pope is played (fact 3c), or keeps the Pope to the end (fact 3e)."""
            if not held & exempt_bit:
                return sure - held.bit_count()
            return 0 if exempt_kept else min(0, exempt_mine - held.bit_count() + max(sure, 1))

        def ending(final: Mask, winner: int) -> int:
            return payoff(final, winner, target)

        def taken_at(played: Mask) -> int:
            return sum(amount for cards, amount in mine if played & cards == cards)

        def terminal(final: Mask, winner: int) -> int:
            if win_goal:
                return 1 if winner == target else 0
            return payoff(final, winner, target)

        # The alpha-beta search itself (see _searcher): one function, a call per node.
        def search(played: Mask, leader: int, alpha: int, beta: int) -> int:  # noqa: C901
            if isolating if leader != target else own_isolating:
                # Facts 5 and 5b: the seat on lead plays its isolated cards first.
                played |= isolate(stretch, in_play, dealt, played, leader,
                                  keep_apart if leader != target else own_keep)
                if not dealt[leader] & ~played:
                    return terminal(played, leader)
            engine._nodes += 1
            if engine._nodes & 1023 == 0 and (engine.cancelled or (
                    deadline is not None and time.monotonic() > deadline)):
                raise SearchTimeoutError
            key = played << 3 | leader
            entry = tt_get(key)
            best_move = -1
            lower, upper = -INF, INF
            if entry is not None:
                lower, upper, best_move = entry
                if lower >= beta:
                    return lower
                if upper <= alpha or lower == upper:
                    return upper
                if lower > alpha:
                    alpha = lower
                if upper < beta:
                    beta = upper
            if counters_goal:
                # Fact 3 (docs/solver.md): before the target goes out, every card above its
                # lowest card in a stretch is played, but in the stretch where it goes out on
                # a card k: there its cards from the lowest up to k, and all from its next card
                # above k to the top. The others are not paid for cards that must be played.
                held = my_cards & ~played
                forced_total = saving_max = cover = 0
                rest = held
                while rest:
                    lowest = (rest & -rest).bit_length() - 1
                    span = up[lowest]
                    cover |= span
                    group = held & span
                    rest &= ~span
                    open_cards = theirs & ~played
                    whole = (span & open_cards).bit_count()
                    forced_total += whole
                    cheapest = whole
                    cards = group
                    while cards:
                        k = (cards & -cards).bit_length() - 1
                        cards &= cards - 1
                        below = span ^ up[k] ^ (1 << k)
                        cost = (below & open_cards).bit_count()
                        if cards:
                            cost += (up[(cards & -cards).bit_length() - 1] & open_cards).bit_count()
                        if cost < cheapest:
                            cheapest = cost
                    if whole - cheapest > saving_max:
                        saving_max = whole - cheapest
                bound = all_mine - forced_total + saving_max
                for other in others:
                    bound += (dealt[other] & ~played).bit_count()
                led_outside = leader != target and not dealt[leader] & ~played & cover
                if led_outside:
                    bound -= 1  # Fact 3b: the seat on lead plays one more unpaid card
                if exempt_bit & ~played & ~cover and exempt_holder != target:
                    # Facts 3c and 3h: another's Pope is kept (and exempts) or played
                    bound -= pope_loss(up, dealt, exempt_holder, exempt_slot, pope_bottom,
                                       played, cover, theirs & ~played, leader, led_outside)
                    bound = max(bound, all_mine - sg.game_stake)
                if bound <= alpha:
                    return bound
                # Facts 3d and 3g: on lead, the target plays the card it leads, or under
                # lead=any its own runs, then its longest block of consecutive cards.
                sure, after_own, rest_held = first(up, target == leader, prune_blocks, played,
                                                   held, exempt_bit)
                taken = taken_at(after_own)
                floor = pope_floor(held, sure) + taken
                if on_lead_out(prune_blocks, target == leader, up, played, held, exempt_bit):
                    # Fact 3i: the target goes out now, before anyone else plays a card.
                    floor = payoff(played | held, target, target)
                elif floor < beta <= taken and not (held & exempt_bit and exempt_kept):
                    # Fact 3f: another seat's race to go out plays some of the target's cards.
                    raced = (held ^ rest_held).bit_count() + race(
                        up, dealt, target, after_own, rest_held, target != leader, prune_blocks)
                    if raced > sure:
                        floor = pope_floor(held, raced) + taken
                if floor < beta and target == leader and prune_blocks:
                    # Fact 3k: on lead, its own runs played, the target leads its best card.
                    own_count = (held ^ rest_held).bit_count()

                    def led(after: Mask, mine_in_run: Mask) -> int:
                        sure = own_count + mine_in_run.bit_count()
                        paid = (sure - held.bit_count() if mine_in_run & exempt_bit
                                else pope_floor(held, sure))
                        return taken_at(after) + paid

                    floor = best_lead(up, dealt, after_own, rest_held, ending, led, floor, beta)
                if floor >= beta:
                    return floor
                if bound < beta:
                    beta = bound
                if floor > alpha:
                    alpha = floor
            elif on_lead_out(prune_blocks, target == leader, up, played, my_cards & ~played,
                             exempt_bit):
                return 1  # Fact 3i: the target can go out before anyone else plays a card
            elif prune_blocks and target == leader and two_leads_out(up, dealt, holder, played,
                                                                     target, exempt_bit):
                return 1  # Fact 3l: it can go out within two leads whatever the others do
            out = leader_out(prune_blocks, up, dealt, played, leader, target, exempt_bit)
            if out >= 0:
                # Fact 3j: another seat on lead can go out at once: a bound (it plays against
                # the target) or a floor (for it).
                now = terminal(played | dealt[out], out)
                if is_max[out]:
                    if now >= beta:
                        return now
                    alpha = max(alpha, now)
                else:
                    if now <= alpha:
                        return now
                    beta = min(beta, now)
            window_low, window_high = alpha, beta
            moves = leads(played, leader)
            if best_move >= 0 and best_move in moves:
                moves.remove(best_move)
                moves.insert(0, best_move)
            maximising = is_max[leader]
            best = -INF if maximising else INF
            chosen = -1
            own = dealt[leader]
            for lead in moves:
                run = up[lead] & ~played
                if prune_blocks and not run & ~own and run & (run - 1):
                    # Fact 4 (docs/solver.md): a run of the leader's own cards only is the
                    # same as leading its top card and going on; that lead is searched.
                    continue
                after = played | run
                winner, reached = first_out(dealt, run, after)
                if winner >= 0:
                    score = terminal(played | reached, winner)
                else:
                    score = search(after, holder[run.bit_length() - 1], alpha, beta)
                if maximising:
                    if score > best:
                        best, chosen = score, lead
                        if score > alpha:
                            alpha = score
                            if alpha >= beta:
                                break
                elif score < best:
                    best, chosen = score, lead
                    if score < beta:
                        beta = score
                        if alpha >= beta:
                            break
            if best <= window_low:
                upper = best if best < upper else upper
            elif best >= window_high:
                lower = best if best > lower else lower
            else:
                lower = upper = best
            if len(table) >= limit:
                table.clear()
            table[key] = (lower, upper, chosen)
            return best

        return search
