"""Deals and positions: who holds which card, the dead hand, the turn-up, what has been played.

Seats are numbered from 1 (eldest, the dealer's left) to ``n`` (the dealer) in every interface;
inside the package a seat is its 0-based index.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .board import Board
from .cards import (
    PACK,
    Card,
    Mask,
    card_name,
    card_suit,
    format_cards,
    iter_mask,
    union,
)
from .errors import DealError, clip
from .play import Game
from .reachability import MAX_STEPS, Verdict, reachability
from .rules import DEFAULT_RULESET, DeadHandRule, Ruleset, get_ruleset
from .rules import MAX_PLAYERS as MAX_PLAYERS
from .rules import MIN_PLAYERS as MIN_PLAYERS
from .table import compile_rules


@dataclass(frozen=True)
class Deal:
    """A deal or a position within one. Construct with :meth:`create`, which validates.

    ``hands[i]`` holds the cards seat ``i + 1`` still has; ``played[i]`` the cards it has
    played. ``board`` is ``None`` for a freshly dressed board: the ruleset's layout for this
    number of players (:meth:`board_or_dressed`).
    """

    hands: tuple[Mask, ...]
    dead: Mask
    turnup: Card
    rules: Ruleset = field(default_factory=lambda: get_ruleset(DEFAULT_RULESET))
    board: Board | None = None
    played: tuple[Mask, ...] = ()
    leader: int = 0
    """0-based seat to lead next (``to_lead - 1``)."""

    @classmethod
    def create(
        cls,
        hands: tuple[Mask, ...] | list[Mask],
        dead: Mask,
        turnup: Card,
        rules: Ruleset | None = None,
        board: Board | None = None,
        played: tuple[Mask, ...] | list[Mask] | None = None,
        leader: int = 0,
    ) -> Deal:
        """Build and validate a deal; raises :class:`DealError` if it breaks the game's logic."""
        hands_t = tuple(hands)
        played_t = tuple(played) if played is not None and any(played) else ()
        deal = cls(
            hands=hands_t,
            dead=dead,
            turnup=turnup,
            rules=rules if rules is not None else get_ruleset(DEFAULT_RULESET),
            board=board,
            played=played_t,
            leader=leader,
        )
        validate(deal)
        return deal

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def trumps(self) -> int:
        """The trump suit: the turn-up's suit."""
        return card_suit(self.turnup)

    @property
    def played_mask(self) -> Mask:
        return union(self.played)

    def played_by(self, seat: int) -> Mask:
        return self.played[seat] if self.played else 0

    @property
    def in_play(self) -> Mask:
        """Cards dealt to the players (held or already played): the cards a run can reach."""
        return self.rules.pack & ~self.dead

    def dealt_hand(self, seat: int) -> Mask:
        """Every card dealt to ``seat``: held now or played."""
        return self.hands[seat] | self.played_by(seat)

    def holder(self, card: Card) -> int:
        """The 0-based seat that was dealt ``card``; -1 for a dead or absent card."""
        bit = 1 << card
        for seat in range(self.players):
            if self.dealt_hand(seat) & bit:
                return seat
        return -1

    @property
    def is_fresh(self) -> bool:
        """True before any card is played."""
        return not self.played

    @property
    def board_or_dressed(self) -> Board:
        """The board as play starts: the one given, or the ruleset's fresh dressing."""
        if self.board is not None:
            return self.board
        return compile_rules(self.rules).dressing(self.players).layout

    def at_outset(self) -> Deal:
        """The same deal with every played card back in its hand and eldest to lead."""
        hands = tuple(self.dealt_hand(s) for s in range(self.players))
        return Deal(hands, self.dead, self.turnup, self.rules, self.board, (), 0)

    def with_board(self, board: Board | None) -> Deal:
        return Deal(self.hands, self.dead, self.turnup, self.rules, board, self.played,
                    self.leader)

    def with_rules(self, rules: Ruleset) -> Deal:
        deal = Deal(self.hands, self.dead, self.turnup, rules, self.board, self.played,
                    self.leader)
        validate(deal)
        return deal


def validate(deal: Deal) -> None:
    """Raise :class:`DealError` for anything that breaks the game's logic."""
    n = deal.players
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise DealError(f"{n} hands given: Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if deal.played and len(deal.played) != n:
        raise DealError(f"played lists {len(deal.played)} seats but there are {n} hands")
    places: list[tuple[str, Mask]] = [(f"hand {s + 1}", deal.hands[s]) for s in range(n)]
    places.append(("the dead hand", deal.dead))
    places += [(f"seat {s + 1}'s played cards", deal.played[s]) for s in range(len(deal.played))]
    seen = 0
    pack = deal.rules.pack
    game = "Spinado" if pack != PACK else "Pope Joan"
    for where, mask in places:
        if mask & ~pack:
            raise DealError(f"{where} has the {card_name(next(iter_mask(mask & ~pack)))}, which "
                            f"is not in the {game} pack")
        clash = seen & mask
        if clash:
            card = next(iter_mask(clash))
            raise DealError(f"card {card_name(card)} is dealt twice (again in {where})")
        seen |= mask
    missing = pack & ~seen
    if missing:
        count = missing.bit_count()
        raise DealError(
            f"{count} card{'s' if count > 1 else ''} missing from the deal: {format_cards(missing)}"
        )
    if not deal.dead >> deal.turnup & 1:
        raise DealError(f"the turn-up {card_name(deal.turnup)} is not in the dead hand")
    _check_board(deal)
    if not 0 <= deal.leader < n:
        raise DealError(f"to_lead must be a seat from 1 to {n}, not {deal.leader + 1}")
    empty = [s for s in range(n) if not deal.hands[s]]
    if not deal.played and empty:
        raise DealError(f"seat {empty[0] + 1} holds no cards")
    if len(empty) > 1:
        raise DealError(
            f"seats {empty[0] + 1} and {empty[1] + 1} both hold no cards: only one player goes out"
        )
    found = reachability(Game.from_deal(deal), deal.played_mask, deal.leader)
    if found.verdict is Verdict.UNREACHABLE:
        raise DealError(f"position cannot arise in play: {found.reason}")


def _check_board(deal: Deal) -> None:
    """A board may hold counters only in the compartments the ruleset's board has."""
    if deal.board is None:
        return
    kept = compile_rules(deal.rules).compartments
    for compartment, count in deal.board.items():
        if count and compartment not in kept:
            raise DealError(
                f"board: {compartment.value} holds {count} counter{'s' if count > 1 else ''}, "
                f"but the board of {deal.rules.name} has no {compartment.value} compartment "
                f"(it has {', '.join(c.value for c in kept)}): give it as 0")


def deal_warnings(deal: Deal) -> list[str]:
    """One-line notes on a deal the ruleset would not deal; such a deal is still analysed."""
    rules = deal.rules
    start = deal.at_outset()
    n = deal.players
    sizes = [start.hands[s].bit_count() for s in range(n)]
    dead = deal.dead.bit_count()
    want = rules.cards_per_player(n)
    want_dead = rules.dead_hand_size(n)
    warnings = []
    if reachability(Game.from_deal(deal), deal.played_mask,
                    deal.leader).verdict is Verdict.UNDECIDED:
        warnings.append(f"could not confirm within {MAX_STEPS} positions that play reaches "
                        "this position: it is analysed as given")
    if len(set(sizes)) > 1:
        warnings.append(
            f"hands of unequal size ({', '.join(map(str, sizes))}): {rules.name} deals "
            f"{want} to each of {n} players"
        )
    elif rules.dead_hand is DeadHandRule.EQUAL_HANDS and (sizes[0], dead) != (want, want_dead):
        warnings.append(
            f"{rules.name} deals {want} cards to each of {n} players and {want_dead} to the dead "
            f"hand; this deal has {sizes[0]} each and {dead} dead"
        )
    elif rules.dead_hand is DeadHandRule.STOCK and (dead < rules.stock_size or sizes[0] != want):
        warnings.append(
            f"{rules.name} deals {want} cards to each of {n} players with a stock of "
            f"{want_dead}; this deal has {sizes[0]} each and {dead} in the stock"
        )
    return warnings


def shuffled_pack(seed: int | str, index: int = 0, pack: Mask = PACK) -> list[Card]:
    """The cards of ``pack`` in a shuffled order that depends only on ``seed`` and ``index``.

    The string seed is hashed by :class:`random.Random` with SHA-512, so the order is the same
    on every machine and Python version that keeps that documented behaviour.
    """
    rng = random.Random(f"popejoan:{seed}:{index}")
    cards = list(iter_mask(pack))
    rng.shuffle(cards)
    return cards


def _ruleset_argument(rules: Ruleset | str | None) -> Ruleset:
    """A ruleset given to the Python API: a :class:`Ruleset`, its name, or None (default)."""
    if rules is None:
        return get_ruleset(DEFAULT_RULESET)
    if isinstance(rules, str):
        return get_ruleset(rules)
    if not isinstance(rules, Ruleset):
        raise DealError(f"rules must be a Ruleset or its name, not {clip(repr(rules))}")
    return rules


def deal_random(
    players: int,
    seed: int | str,
    rules: Ruleset | str | None = None,
    index: int = 0,
    board: Board | None = None,
) -> Deal:
    """Deal a shuffled pack by the ruleset's dealing rule.

    One card at a time from eldest round to the dealer, with the dead hand last in each round;
    the over-cards (or the stock) go to the dead hand, and the last card, which lands there,
    is turned up. ``rules`` is a ruleset or its name (default hoyle-modernized); a wrong type
    of any argument is a :class:`DealError`.
    """
    rules = _ruleset_argument(rules)
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not "
                        f"{clip(repr(players))}")
    if type(seed) not in (int, str):  # 1.0, True and None would each seed another deal
        raise DealError(f"a deal's seed is a whole number or a string, not "
                        f"{clip(repr(seed))}")
    if type(index) is not int or index < 0:
        raise DealError(f"a deal's index is a whole number from 0, not {clip(repr(index))}")
    cards = shuffled_pack(seed, index, rules.pack)
    per = rules.cards_per_player(players)
    hands = [0] * players
    dead = 0
    position = 0
    if rules.dead_hand is DeadHandRule.EQUAL_HANDS:
        for _ in range(per):
            for seat in range(players + 1):
                bit = 1 << cards[position]
                if seat < players:
                    hands[seat] |= bit
                else:
                    dead |= bit
                position += 1
    else:
        for _ in range(per):
            for seat in range(players):
                hands[seat] |= 1 << cards[position]
                position += 1
    for card in cards[position:]:
        dead |= 1 << card
    return Deal.create(tuple(hands), dead, cards[-1], rules, board)
