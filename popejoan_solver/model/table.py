"""A ruleset compiled once into the tables that play, settlement and every engine read.

No backend restates a rule: the pack, each suit's order and every card's successor, the hand
sizes and the stock, the lead rule, the board's compartments and the dressing of a fresh board
for each number of players (its layout and who pays what), the awards in card space (which
cards, played, pay which compartment to whom), the card whose unplayed holder is exempt from
paying, the turn-up that ends the deal, who sees the dead hand, and the points where a player
may choose inside a run all come from :func:`build_table`, read as a ruleset's ``table``. The
search engines (Python and C) take their awards and lead rule from here; the C core receives
these tables, not rule names. This module reads a ruleset only through
:class:`~.options.RuleOptions`: ``rules.py`` imports it, not the other way round.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from functools import lru_cache, partial
from typing import Final, Protocol

from .board import Board, Compartment
from .cards import NUM_CARDS, PACK, POPE, Card, Mask, Rank, Suit, make_card
from .errors import DealError
from .options import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    AceRank,
    DeadHandRule,
    Dressing,
    GameKind,
    LeadRule,
    PairRule,
    Pools,
    PopeInLieu,
    PopeTurnup,
    RuleOptions,
    SpareHand,
)


class Taker(StrEnum):
    """Who takes a compartment once every card of its award has been played."""

    PLAYER = "player"
    """The player of the (one) card."""
    SAME_PLAYER = "same-player"
    """Only a player who played every card of the award."""
    DIVIDED = "divided"
    """One player of every card takes all; else each player of a card takes an equal share,
    rounded down, and what is left stays on the board."""


class LeadId(IntEnum):
    """The lead rules as the compiled core numbers them (``_core.LEAD_*`` must agree)."""

    ANY = 0
    LOWEST_OF_SUIT = 1
    LOWEST_IN_HAND = 2


LEAD_IDS = {LeadRule.ANY: LeadId.ANY, LeadRule.LOWEST_OF_SUIT: LeadId.LOWEST_OF_SUIT,
            LeadRule.LOWEST_IN_HAND: LeadId.LOWEST_IN_HAND}


class TransferKind(StrEnum):
    """What a payment of the settlement is for. Every transfer carries one, and a reader
    recognises a payment by it, never by the words of its reason."""

    DRESSING_SHARE = "dressing-share"
    """A seat's share of a fresh board's dressing, paid to the dealer."""
    DRESSING = "dressing"
    """The dealer's stake on a compartment of a fresh board."""
    TURNUP = "turnup"
    """A compartment to the dealer for the card turned up (and Game, when it ends the deal)."""
    STAKE_PER_CARD = "stake-per-card"
    """A stake per card dealt, to the dealer, when the turn-up ends the deal."""
    POPE = "pope"
    """The Pope compartment, to the player of Pope."""
    HONOUR = "honour"
    """An honour's compartment (ace, king, queen or knave of trumps), to its player."""
    MATRIMONY = "matrimony"
    """Matrimony (king and queen of trumps), whole or a share."""
    INTRIGUE = "intrigue"
    """Intrigue (queen and knave of trumps), whole or a share."""
    SPINADO_KING = "spinado-king"
    """Spinado: a King's player paid by every opponent."""
    SPIN = "spin"
    """Spinado: Spin's player paid by every opponent."""
    GAME = "game"
    """Game, to the player who goes out."""
    CARDS_LEFT = "cards-left"
    """A payment for the cards left in hand, to the player who goes out."""
    FINAL_ROUND = "final-round"
    """Hoyle's closing round: a compartment, or half of one, to the holder of its card."""


@dataclass(frozen=True)
class Award:
    """What is paid in play when all of ``cards`` have been played: a compartment of the board,
    or (``compartment`` None) ``from_each`` counters from every other player to the card's
    player (Spinado's Kings and Spin); ``kind`` names the payment."""

    compartment: Compartment | None
    cards: tuple[Card, ...]
    taker: Taker
    kind: TransferKind
    from_each: int = 0

    @property
    def mask(self) -> Mask:
        return sum(1 << card for card in self.cards)


class ChoiceKind(IntEnum):
    """The kinds of choice inside a run (``_core.CHOICE_*`` must agree)."""

    SPIN = 1
    """After playing any card, the holder of ``card`` (unplayed) may play it on top: the run
    stops there and he leads next (Spinado's "And Spin!")."""
    IN_LIEU = 2
    """When a run stops, the holder of the unplayed ``card`` may play it in place of the missing
    card (Peel's Pope in lieu of a stop)."""


@dataclass(frozen=True)
class ChoicePoint:
    """A point inside a run where a player, often not the one on lead, may choose to play
    ``card`` out of turn; ``after_top`` and ``continues`` settle how an IN_LIEU choice goes."""

    kind: ChoiceKind
    card: Card
    option: str
    """The option or game that gives the choice (``pope_in_lieu``, ``game=spinado``)."""
    after_top: bool = False
    """IN_LIEU: also when the run stopped at the top of a suit (a King)."""
    continues: bool = False
    """IN_LIEU: the run goes on with the card above the missing one (else the chooser leads)."""


HONOURS = ((Rank.ACE, Compartment.ACE), (Rank.KING, Compartment.KING),
           (Rank.QUEEN, Compartment.QUEEN), (Rank.JACK, Compartment.JACK))
"""The honours of trumps and their compartments ("Whoever plays the A, K, Q, J of trumps")."""
PAIRS = ((Compartment.MATRIMONY, Rank.KING, Rank.QUEEN),
         (Compartment.INTRIGUE, Rank.QUEEN, Rank.JACK))
"""Matrimony (K-Q of trumps) and Intrigue (Q-J of trumps)."""
PAIR_KINDS = {Compartment.MATRIMONY: TransferKind.MATRIMONY,
              Compartment.INTRIGUE: TransferKind.INTRIGUE}
STAKES = Board()
"""What each compartment gets in the usual dressing: Pope 6, Matrimony and Intrigue 2, the
rest 1 ("Six to Pope, two to Matrimony, two to Intrigue, and one each to Ace, King, Queen,
Knave and Game", Hoffmann)."""
FIVE_POOLS = (Compartment.POPE, Compartment.MATRIMONY, Compartment.INTRIGUE, Compartment.ACE,
              Compartment.GAME)
"""Peel's Five-Pool Pope: "Pope Joan, Matrimony, Intrigue, Ace, and Game are retained"."""


@dataclass(frozen=True)
class DressedBoard:
    """A fresh board for one number of players: its layout, and what each seat pays for it
    (eldest first, the dealer last); the payments add up to the layout."""

    layout: Board
    paid: tuple[int, ...]


@dataclass(frozen=True)
class RuleTable:
    """Everything about a ruleset that dealing, play and payment depend on, as data: the one
    place each derived table lives (a ruleset's :attr:`~.rules.Ruleset.table`)."""

    pack: Mask
    """The cards of the game: 52 less the 8♦, and for Spinado less the four deuces too."""
    suit_order: tuple[int, ...]
    """Ace-low rank values from the bottom of a suit to its top."""
    successor: tuple[int, ...]
    """``successor[c]``: the card just above ``c`` in its suit, or -1 at the top. The 8♦ is a
    real successor here (of the 7♦); it is simply never in play."""
    predecessor: tuple[int, ...]
    """``predecessor[c]``: the card just below ``c`` in its suit, or -1 at the bottom."""
    order_key: tuple[int, ...]
    """``order_key[c]``: the position of ``c`` within its suit (0 = bottom)."""
    lead: LeadId
    awards_by_trumps: tuple[tuple[Award, ...], ...]
    """The awards of play for each trump suit (clubs, diamonds, hearts, spades)."""
    exempt_card: Card | None
    """A player still holding this card when another goes out pays nothing."""
    ends_deal_turnup: Card | None
    """This card turned up ends the deal unplayed (dealer paid Game and a stake a card)."""
    per_card_left: int
    """What every other player pays the one who goes out, for each card left in hand."""
    choice_points: tuple[ChoicePoint, ...]
    compartments: tuple[Compartment, ...]
    """The compartments the board has (all eight, or Peel's five)."""
    dressings: tuple[DressedBoard, ...]
    """The dressing of a fresh board for each number of players, from ``MIN_PLAYERS`` up."""
    hand_sizes: tuple[int, ...]
    """The cards the dealing rule gives each player, for each number of players from
    ``MIN_PLAYERS`` up (the rest of the pack is the dead hand, or the stock)."""
    least_stock: int | None
    """The fewest cards a stock keeps when the players are dealt first and the rest is left
    (the early Hoyle's stock); None when the dead hand is dealt as one more hand, a card a
    round."""
    dealer_sees_dead_hand: bool
    """The dealer may look at the dead hand (what a seat knows; play is the same)."""
    turns_up: bool
    """The last card dealt is turned up for all to see: it makes trumps, and a turned-up honour
    or Pope gives the dealer its compartment (not in Spinado, which has no trumps: the last
    card dealt stays in the dead hand unseen)."""

    def awards(self, trumps: int) -> tuple[Award, ...]:
        return self.awards_by_trumps[trumps]

    def award_of(self, compartment: Compartment, trumps: int) -> Award | None:
        """The award of play that pays ``compartment`` when ``trumps`` is trumps (Matrimony:
        the king and queen of trumps), or None when the board has no such compartment."""
        return next((a for a in self.awards(trumps) if a.compartment is compartment), None)

    def dressing(self, players: int) -> DressedBoard:
        """The layout of a fresh board for ``players`` and what each seat pays for it."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                            f"not {players}")
        return self.dressings[players - MIN_PLAYERS]

    def cards_per_player(self, players: int) -> int:
        """How many cards the dealing rule gives each of ``players`` players."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                            f"not {players}")
        return self.hand_sizes[players - MIN_PLAYERS]

    def dead_hand_size(self, players: int) -> int:
        """How many cards of the pack no player holds (the dead hand, or the stock)."""
        return self.pack.bit_count() - players * self.cards_per_player(players)

    def turnup_awards(self, turnup: Card) -> tuple[Compartment, ...]:
        """The compartments a turned-up card gives the dealer: those it would win if played
        alone (Pope, and the ace, king, queen and knave of trumps; none in Spinado)."""
        if not self.turns_up:
            return ()
        return tuple(a.compartment for a in self.awards(turnup // 13)
                     if a.cards == (turnup,) and a.compartment is not None)

    def choice(self, kind: ChoiceKind) -> ChoicePoint | None:
        """The table's choice point of ``kind``, if it has one."""
        return next((c for c in self.choice_points if c.kind is kind), None)


SPIN: Final = make_card(Suit.DIAMONDS, Rank.ACE)
"""Spinado's "Spin": "The A[♦] is known as Spinado, or Spin" (Parlett)."""
SPINADO_KINGS = ((Suit.CLUBS, 1), (Suit.DIAMONDS, 2), (Suit.HEARTS, 1), (Suit.SPADES, 1))
"""What each King wins from each opponent in Spinado: "1 counter from each opponent, or 2 for
K[♦]" (Parlett)."""
SPIN_FROM_EACH: Final = 3
""""This nets him 3 counters from each opponent" (Parlett)."""
SPINADO_LAYOUT = (12, 6, 6)
"""Spinado's dealer stakes on Matrimony, Intrigue and Game: "Dealer sets 12 counters on ...
Matrimony ..., 6 on Intrigue ..., and 6 on Game" (Parlett)."""
SPINADO_GAME_STAKE: Final = 3
"""Every other player's stake: "everyone else stakes 3 on Game" (Parlett)."""


def _spinado_awards(rules: RuleOptions) -> tuple[Award, ...]:
    """Spinado's awards, the same whatever the turn-up (no trumps): Matrimony (K♦-Q♦) and
    Intrigue (Q♦-J♦) from the board; each King and Spin from every opponent."""
    pair_taker = Taker.DIVIDED if rules.pairs is PairRule.DIVIDED else Taker.SAME_PLAYER
    diamond = partial(make_card, Suit.DIAMONDS)
    awards = [Award(comp, (diamond(high), diamond(low)), pair_taker, PAIR_KINDS[comp])
              for comp, high, low in PAIRS]
    awards += [Award(None, (make_card(suit, Rank.KING),), Taker.PLAYER, TransferKind.SPINADO_KING,
                     from_each=amount)
               for suit, amount in SPINADO_KINGS]
    awards.append(Award(None, (SPIN,), Taker.PLAYER, TransferKind.SPIN,
                        from_each=SPIN_FROM_EACH))
    return tuple(awards)


def _awards(rules: RuleOptions, trumps: int) -> tuple[Award, ...]:
    """The awards of play when ``trumps`` is trumps, for the compartments the board has."""
    if rules.game is GameKind.SPINADO:
        return _spinado_awards(rules)
    pair_taker = Taker.DIVIDED if rules.pairs is PairRule.DIVIDED else Taker.SAME_PLAYER
    awards = [Award(Compartment.POPE, (POPE,), Taker.PLAYER, TransferKind.POPE)]
    awards += [Award(comp, (make_card(trumps, rank),), Taker.PLAYER, TransferKind.HONOUR)
               for rank, comp in HONOURS]
    awards += [Award(comp, (make_card(trumps, high), make_card(trumps, low)), pair_taker,
                     PAIR_KINDS[comp])
               for comp, high, low in PAIRS]
    return tuple(a for a in awards if a.compartment in _compartments(rules))


def _compartments(rules: RuleOptions) -> tuple[Compartment, ...]:
    if rules.game is GameKind.SPINADO:
        return (Compartment.MATRIMONY, Compartment.INTRIGUE, Compartment.GAME)
    return FIVE_POOLS if rules.pools is Pools.FIVE else tuple(Compartment)


def _choice_points(rules: RuleOptions) -> tuple[ChoicePoint, ...]:
    """Spinado's Spin, or Peel's Pope in lieu of a stop in the reading ``pope_in_lieu`` names."""
    if rules.game is GameKind.SPINADO:
        return (ChoicePoint(ChoiceKind.SPIN, SPIN, "game=spinado"),)
    if rules.pope_in_lieu is PopeInLieu.NO:
        return ()
    return (ChoicePoint(ChoiceKind.IN_LIEU, POPE, f"pope_in_lieu={rules.pope_in_lieu.value}",
                        after_top=rules.pope_in_lieu is PopeInLieu.POPE_LEADS_AFTER_KING,
                        continues=rules.pope_in_lieu is PopeInLieu.RUN_CONTINUES),)


def _dressed(rules: RuleOptions, players: int) -> DressedBoard:
    """Who pays what for a fresh board, and its layout: the usual stakes on the board's
    compartments, and what the payments bring beyond them on Game (Pope for the 1911
    Britannica, whose stakes grow with the players)."""
    if rules.game is GameKind.SPINADO:
        others = players - 1
        matrimony, intrigue, game = SPINADO_LAYOUT
        return DressedBoard(Board(pope=0, matrimony=matrimony, intrigue=intrigue, ace=0,
                                  king=0, queen=0, jack=0,
                                  game=game + SPINADO_GAME_STAKE * others),
                            (SPINADO_GAME_STAKE,) * others + (sum(SPINADO_LAYOUT),))
    stakes = {c: STAKES[c] for c in _compartments(rules)}
    total = sum(stakes.values())
    if rules.dressing is Dressing.DEALER:
        paid = [0] * (players - 1) + [total]
    elif rules.dressing is Dressing.PLAYERS:  # two each; with five pools 14 may exceed 12
        paid = [2] * (players - 1) + [max(0, total - 2 * (players - 1))]
    elif rules.dressing is Dressing.PEEL:  # "fifteen (or more)", the dealer paying double
        share = -(-total // (players + 1))
        paid = [share] * (players - 1) + [2 * share]
    else:
        paid = [rules.stake] * players
    rest = Compartment.POPE if rules.dressing is Dressing.BRITANNICA_1911 else Compartment.GAME
    stakes[rest] += sum(paid) - total
    layout = Board(**{c.value: stakes.get(c, 0) for c in Compartment})
    return DressedBoard(layout, tuple(paid))


def suit_order(rules: RuleOptions) -> tuple[int, ...]:
    """Ace-low rank values from the bottom of a suit to its top."""
    if rules.ace is AceRank.LOW:
        return tuple(range(13))
    return (*range(1, 13), 0)


def successor_table(order: tuple[int, ...]) -> tuple[int, ...]:
    """``successor[c]``, the card just above ``c`` in its suit (-1 at the top), from the suit
    order."""
    table = [-1] * NUM_CARDS
    for suit in range(4):
        for low, high in itertools.pairwise(order):
            table[make_card(suit, low)] = make_card(suit, high)
    return tuple(table)


def predecessor_table(successor: tuple[int, ...]) -> tuple[int, ...]:
    """``predecessor[c]``, the card just below ``c`` (-1 at the bottom): the successor turned
    round."""
    table = [-1] * NUM_CARDS
    for card, above in enumerate(successor):
        if above >= 0:
            table[above] = card
    return tuple(table)


def order_keys(order: tuple[int, ...]) -> tuple[int, ...]:
    """``order_key[c]``, the position of card ``c`` within its suit (0 = bottom)."""
    keys = [0] * NUM_CARDS
    for position, rank in enumerate(order):
        for suit in range(4):
            keys[make_card(suit, rank)] = position
    return tuple(keys)


def game_pack(rules: RuleOptions) -> Mask:
    """The cards of the game: 52 less the 8♦, and for Spinado less the four deuces too."""
    if rules.game is GameKind.SPINADO:
        return PACK & ~sum(1 << make_card(suit, 1) for suit in range(4))
    return PACK


def hand_size(rules: RuleOptions, pack: Mask, players: int) -> int:
    """The cards the dealing rule gives each of ``players``: equal hands with the dead hand
    as one more, or equal hands leaving at least ``stock_size`` cards in the stock."""
    if rules.dead_hand is DeadHandRule.EQUAL_HANDS:
        return pack.bit_count() // (players + 1)
    return (pack.bit_count() - rules.stock_size) // players


@lru_cache(maxsize=64)
def build_table(rules: RuleOptions) -> RuleTable:
    """Compile the options of ``rules`` into its table (cached: equal options compile once).
    Read it as ``ruleset.table``, which a ruleset adding an option of its own refines."""
    order = suit_order(rules)
    successor = successor_table(order)
    pack = game_pack(rules)
    players = range(MIN_PLAYERS, MAX_PLAYERS + 1)
    return RuleTable(
        pack=pack,
        suit_order=order,
        successor=successor,
        predecessor=predecessor_table(successor),
        order_key=order_keys(order),
        lead=LEAD_IDS[rules.lead],
        awards_by_trumps=tuple(_awards(rules, t) for t in range(4)),
        exempt_card=POPE if rules.pope_exemption else None,
        ends_deal_turnup=POPE if rules.pope_turnup is PopeTurnup.ENDS_DEAL else None,
        per_card_left=1,
        choice_points=_choice_points(rules),
        compartments=_compartments(rules),
        dressings=tuple(_dressed(rules, n) for n in players),
        hand_sizes=tuple(hand_size(rules, pack, n) for n in players),
        least_stock=rules.stock_size if rules.dead_hand is DeadHandRule.STOCK else None,
        dealer_sees_dead_hand=rules.spare_hand is SpareHand.DEALER_SEES,
        turns_up=rules.game is GameKind.POPE_JOAN,
    )


class Compiled(Protocol):
    """Anything with a compiled table: a :class:`~.rules.Ruleset`."""

    @property
    def table(self) -> RuleTable: ...


def compile_rules(rules: Compiled) -> RuleTable:
    """The ruleset's tables: ``rules.table``, compiled once (the name older callers use)."""
    return rules.table


def award_shares(award: Award, holders: tuple[int, ...], amount: int, players: int,
                 ) -> tuple[tuple[int, int], ...]:
    """What each seat gains or loses when ``award``'s cards, dealt to ``holders`` (the seats'
    0-based indices, one per card, -1 for none: the index space of ``Game.holder_index`` and
    the engines), are all played: ``(index, counters)`` pairs, none when no one qualifies.
    ``amount`` is the compartment's content; a payment from each opponent is the award's
    own."""
    seats = tuple(dict.fromkeys(holders))
    if min(holders) < 0:
        return ()
    if award.compartment is None:
        player = holders[0]
        return ((player, award.from_each * (players - 1)),
                *((seat, -award.from_each) for seat in range(players) if seat != player))
    if not amount:
        return ()
    if len(seats) == 1:
        return ((seats[0], amount),)
    if award.taker is Taker.DIVIDED and amount // len(seats):
        return tuple((seat, amount // len(seats)) for seat in seats)
    return ()


__all__ = ["FIVE_POOLS", "LEAD_IDS", "SPIN", "STAKES", "Award", "ChoiceKind", "ChoicePoint",
           "Compiled", "DressedBoard", "LeadId", "RuleTable", "Taker", "TransferKind",
           "award_shares", "build_table", "compile_rules"]
