"""Slot space: the rule table and a deal's tables as bit masks in which a suit climbs bit by bit.

Card ``c`` becomes slot ``suit * 13 + order_key[c]``, so that in every ruleset the cards of a
suit climb bit by bit, and a *stretch* (a maximal run of consecutive cards dealt to players,
between cards that can never be played) is a contiguous bit range. Because played cards always
form the top part of their stretch (docs/solver.md, fact 1), the run forced by a lead at slot
``s`` is just ``up[s] & ~played`` and its stop card, hence the next leader, is the top of the
stretch's unplayed part whatever card of it was led (fact 2). Every rule these tables hold is
read from the compiled rule table (``model/table.py``); the compiled core takes them from here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from ..model.board import Board
from ..model.cards import Mask, iter_mask
from ..model.play import Game
from ..model.table import Award, ChoiceKind, LeadId, RuleTable, award_shares

SUIT_BITS = (0x1FFF, 0x1FFF << 13, 0x1FFF << 26, 0x1FFF << 39)
"""The slots of each suit."""


@dataclass(frozen=True)
class RuleSlots:
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
"""The most award shares a rule table keeps (:attr:`RuleSlots.shares`), and suits' ``up``
tables kept (``_SUIT_UPS``): a long batch meets ever new boards and dead hands."""

_SUIT_UPS: dict[tuple[int, int], tuple[Mask, ...]] = {}
""":func:`_suit_ups` as met, by suit and pattern."""


_RULE_SLOTS: dict[tuple[int, int], RuleSlots] = {}
"""The tables of :func:`rule_slots`, by the rule table's ``id`` and the trumps."""


def rule_slots(table: RuleTable, trumps: int) -> RuleSlots:
    """The rule table's slot-space tables for ``trumps``, compiled once per table (found by
    identity: hashing a rule table costs more than compiling its awards)."""
    key = (id(table), trumps)
    found = _RULE_SLOTS.get(key)
    if found is None or found.table is not table:  # the table held there keeps its id taken
        if len(_RULE_SLOTS) >= 256:
            _RULE_SLOTS.clear()
        found = _RULE_SLOTS[key] = _compile_rule_slots(table, trumps)
    return found


def _compile_rule_slots(table: RuleTable, trumps: int) -> RuleSlots:
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
    return RuleSlots(table, slot_of, tuple(card_of), all(s == c for c, s in enumerate(slot_of)),
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
            self.holder = game.holder_index
        else:
            holder = [-1] * 52
            for card, slot in enumerate(self.slot_of):
                holder[slot] = game.holder_index[card]
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

    def _compile_payoffs(self, ruled: RuleSlots, board: Board) -> None:
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
        self.per_card = self.game.table.per_card_left
        """What each other seat pays the one who goes out for each card left in its hand (the
        facts count cards, and scale by it: a card left never gains its holder)."""
        if self.per_card < 0:
            raise ValueError(f"per_card_left must be 0 or more, not {self.per_card}")
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
                        value += self.per_card * left.bit_count()
        else:
            left = dealt[seat] & ~played
            if not (left & self.exempt_bit):
                value -= self.per_card * left.bit_count()
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
            for bits in SUIT_BITS:
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




def lieu_goes_on(slot: int, lieu: int, continues: bool, in_play: Mask, played: Mask) -> int:
    """The card a run goes on to once the card in lieu (``lieu``, the Pope) is played at a stop
    on ``slot``: the card above the missing one, if the reading goes on and that card can be
    played; else -1 (the Pope's player leads). The 7♦'s missing card is the 8♦, above which
    is the Pope itself: the run goes on from the 10♦."""
    if not continues or slot % 13 > 10:
        return -1
    above = slot + 2
    if above == lieu:
        if above % 13 == 12:
            return -1
        above += 1
    return above if in_play >> above & 1 and not played >> above & 1 else -1
