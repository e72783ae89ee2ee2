"""Deals and positions: who holds which card, the dead hand, the turn-up, what has been played.

Seats are numbered from 1 (eldest, the dealer's left) to ``n`` (the dealer) in every interface;
inside the package a seat is its 0-based index.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .arguments import check_deal, is_whole, shown
from .board import Board, Compartment
from .cards import (
    FULL_MASK,
    NUM_CARDS,
    PACK,
    Card,
    Mask,
    card_name,
    card_suit,
    check_card,
    check_mask,
    format_cards,
    iter_mask,
    union,
)
from .errors import DealError, clip
from .play import Game, Position
from .reachability import MAX_STEPS, Verdict, reachability
from .rules import DEFAULT_RULESET, DeadHandRule, Ruleset, get_ruleset
from .rules import MAX_PLAYERS as MAX_PLAYERS
from .rules import MIN_PLAYERS as MIN_PLAYERS
from .table import compile_rules


@dataclass(frozen=True)
class Deal:
    """A deal or a position within one, valid whenever it exists: built directly, by
    :meth:`create` or by ``dataclasses.replace``, it is checked (:func:`validate`) and a deal
    that breaks the game's logic is a :class:`DealError`.

    ``hands[i]`` holds the cards seat ``i + 1`` still has; ``played[i]`` the cards it has
    played. ``board`` is ``None`` for a freshly dressed board: the ruleset's layout for this
    number of players (:meth:`board_or_dressed`). ``hands`` and ``played`` may be given as
    lists (they are kept as tuples), and ``played`` with no card in it is ``()``.
    """

    hands: tuple[Mask, ...]
    dead: Mask
    turnup: Card
    rules: Ruleset = field(default_factory=lambda: get_ruleset(DEFAULT_RULESET))
    board: Board | None = None
    played: tuple[Mask, ...] = ()
    leader: int = 0
    """0-based seat to lead next (``to_lead - 1``)."""

    def __post_init__(self) -> None:
        check_structure(self)
        check_position(self)

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
        """Build a deal (``rules`` None: the default ruleset; ``played`` None: a fresh deal);
        raises :class:`DealError` if it breaks the game's logic."""
        hands_t = tuple(hands) if isinstance(hands, list) else hands
        played_t = () if played is None else tuple(played) if isinstance(played, list) else played
        return cls(hands_t, dead, turnup,
                   rules if rules is not None else get_ruleset(DEFAULT_RULESET), board, played_t,
                   leader)

    @classmethod
    def reached(
        cls,
        hands: tuple[Mask, ...],
        dead: Mask,
        turnup: Card,
        rules: Ruleset,
        board: Board | None,
        played: tuple[Mask, ...],
        leader: int,
    ) -> Deal:
        """A position the caller reached by legal play from a valid deal (or a deal that
        agrees with such play: a seat's sampled deal): every check but the search that proves
        play reaches it, for which the play is the proof (:func:`position_deal`). The
        package's hot paths build their positions here (a sample of advice, a bot's decision);
        everything else builds a :class:`Deal`, which checks everything."""
        deal = object.__new__(cls)
        deal.__dict__.update(hands=hands, dead=dead, turnup=turnup, rules=rules, board=board,
                             played=played, leader=leader)  # the fields, as __init__ sets them
        check_structure(deal)
        check_position(deal, search=False)
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
        return Deal.reached(hands, self.dead, self.turnup, self.rules, self.board, (), 0)

    def with_board(self, board: Board | None) -> Deal:
        """The same deal or position on another board (play does not read the board)."""
        return Deal.reached(self.hands, self.dead, self.turnup, self.rules, board, self.played,
                            self.leader)

    def with_rules(self, rules: Ruleset) -> Deal:
        """The same cards under another ruleset, checked again (its play may not reach the
        position)."""
        return Deal(self.hands, self.dead, self.turnup, rules, self.board, self.played,
                    self.leader)


def position_deal(deal: Deal, position: Position, board: Board | None) -> Deal:
    """The position ``position`` of ``deal``'s play as a deal with its played cards, on
    ``board`` (``deal`` itself, as given, until a run is played). ``position`` must have been
    reached by playing runs from ``deal`` (:meth:`Position.after` of its outcomes): that play
    is the proof that it arises, so the reachability search is not run again."""
    if position.played == deal.played_mask:
        return deal
    game = position.game
    n = deal.players
    return Deal.reached(tuple(game.dealt[s] & ~position.played for s in range(n)), deal.dead,
                        deal.turnup, deal.rules, board,
                        tuple(game.dealt[s] & position.played for s in range(n)),
                        position.leader)


def validate(deal: Deal) -> None:
    """Raise :class:`DealError` for anything that breaks the game's logic: every check a
    :class:`Deal` makes when built, the reachability search included (for a deal built by
    :meth:`Deal.reached`, to check it as a user's deal is checked)."""
    check_structure(deal)
    check_position(deal)


def check_structure(deal: Deal) -> None:
    """The checks that cost next to nothing (a few microseconds: the common case is a few
    type tests and one union of masks): types, the cards partitioning the pack, the turn-up
    in the dead hand, the board, the seat to lead, empty hands. Lists of masks are kept as
    tuples, and ``played`` with no card in it as ``()``."""
    rules = deal.rules
    if not isinstance(rules, Ruleset):
        raise DealError(f"rules must be a Ruleset (get_ruleset(name) gives one), not "
                        f"{shown(rules)}")
    hands = _masks(deal.hands, "hands", "hand {}")
    n = len(hands)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise DealError(f"{n} hands given: Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players")
    played = _masks(deal.played, "played", "seat {}'s played cards")
    if played and not any(played):
        played = ()
    elif played and len(played) != n:
        raise DealError(f"played lists {len(played)} seat{'s' if len(played) != 1 else ''} but "
                        f"there are {n} hands")
    if hands is not deal.hands:
        object.__setattr__(deal, "hands", hands)
    if played is not deal.played:
        object.__setattr__(deal, "played", played)
    dead = deal.dead
    if type(dead) is not int or not 0 <= dead <= FULL_MASK:
        check_mask(dead, "the dead hand")
    _check_partition(rules.pack, hands, dead, played)
    turnup = deal.turnup
    if type(turnup) is not int or not 0 <= turnup < NUM_CARDS:
        check_card(turnup, "the turn-up", DealError)
    if not dead >> turnup & 1:
        raise DealError(f"the turn-up {card_name(turnup)} is not in the dead hand")
    if deal.board is not None:
        _check_board(deal)
    leader = deal.leader
    if type(leader) is not int and not is_whole(leader):
        raise DealError(f"leader must be a whole number (the seat to lead less 1), not "
                        f"{shown(leader)}")
    if not 0 <= leader < n:
        raise DealError(f"to_lead must be a seat from 1 to {n}, not {leader + 1}")
    if not all(hands):
        _check_empty_hands(hands, played)


def _masks(value: object, name: str, each: str) -> tuple[Mask, ...]:
    """A tuple (or list) of card masks, one a seat, as a tuple (``each``: a mask's name, with
    ``{}`` for the seat from 1)."""
    if type(value) is not tuple:
        if not isinstance(value, (tuple, list)):
            raise DealError(f"{name} must be a tuple of card masks, one a seat, not "
                            f"{type(value).__name__}")
        value = tuple(value)
    for seat, mask in enumerate(value):
        if type(mask) is not int or not 0 <= mask <= FULL_MASK:
            check_mask(mask, each.format(seat + 1))
    return value


def _check_partition(pack: Mask, hands: tuple[Mask, ...], dead: Mask,
                     played: tuple[Mask, ...]) -> None:
    """Every card of the ruleset's pack in exactly one place: a hand, the dead hand or a
    seat's played cards. When the places hold the pack's cards and no more than them, no card
    is in two places; otherwise :func:`_partition_fault` names the first fault."""
    seen = dead
    count = dead.bit_count()
    for mask in (*hands, *played):
        seen |= mask
        count += mask.bit_count()
    if seen != pack or count != pack.bit_count():
        _partition_fault(pack, hands, dead, played)


def _partition_fault(pack: Mask, hands: tuple[Mask, ...], dead: Mask,
                     played: tuple[Mask, ...]) -> None:
    """Raise the :class:`DealError` naming the first card out of the pack, dealt twice or
    missing, place by place (hands, the dead hand, played cards)."""
    places: list[tuple[str, Mask]] = [(f"hand {s + 1}", hands[s]) for s in range(len(hands))]
    places.append(("the dead hand", dead))
    places += [(f"seat {s + 1}'s played cards", played[s]) for s in range(len(played))]
    seen = 0
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
    count = missing.bit_count()
    raise DealError(
        f"{count} card{'s' if count > 1 else ''} missing from the deal: {format_cards(missing)}"
    )


def _check_empty_hands(hands: tuple[Mask, ...], played: tuple[Mask, ...]) -> None:
    """A fresh deal has no empty hand; a position at most one (the seat that went out)."""
    empty = [s for s in range(len(hands)) if not hands[s]]
    if not played:
        raise DealError(f"seat {empty[0] + 1} holds no cards")
    if len(empty) > 1:
        raise DealError(
            f"seats {empty[0] + 1} and {empty[1] + 1} both hold no cards: only one player goes out"
        )


def check_position(deal: Deal, search: bool = True) -> None:
    """A position must be one play reaches from the outset: eldest leads a fresh deal; no card
    is played once the turn-up has ended the deal; and (``search``) the reachability search
    finds a way there. A structurally valid deal is assumed (:func:`check_structure`)."""
    if not deal.played:
        if deal.leader != 0:
            raise DealError("position cannot arise in play: with no card played, eldest "
                            "(seat 1) leads")
        return
    if deal.turnup == _facts(deal.rules).ends_deal_turnup:
        raise DealError(f"position cannot arise in play: the turn-up {card_name(deal.turnup)} "
                        f"ends the deal unplayed under {deal.rules.name}, so no card is played")
    if not search:
        return
    found = reachability(Game.from_deal(deal), deal.played_mask, deal.leader)
    if found.verdict is Verdict.UNREACHABLE:
        raise DealError(f"position cannot arise in play: {found.reason}")


def _check_board(deal: Deal) -> None:
    """A board is a :class:`Board` (or None) with counters only in the compartments the
    ruleset's board has."""
    board = deal.board
    if board is None:
        return
    if not isinstance(board, Board):
        raise DealError(f"board must be a Board or None, not {shown(board)}")
    facts = _facts(deal.rules)
    for compartment in facts.lacking:
        count = board[compartment]
        if count:
            kept = ", ".join(c.value for c in Compartment if c not in facts.lacking)
            raise DealError(
                f"board: {compartment.value} holds {count} counter{'s' if count > 1 else ''}, "
                f"but the board of {deal.rules.name} has no {compartment.value} compartment "
                f"(it has {kept}): give it as 0")


@dataclass(frozen=True)
class _RuleFacts:
    """What a deal's checks read of its ruleset's tables."""

    lacking: tuple[Compartment, ...]
    """The compartments its board does not have."""
    ends_deal_turnup: Card | None


_FACTS: dict[int, tuple[Ruleset, _RuleFacts]] = {}


def _facts(rules: Ruleset) -> _RuleFacts:
    """:class:`_RuleFacts` of ``rules``, from its compiled tables, looked up by identity: every
    deal built reads them, and hashing a ruleset (``compile_rules``'s cache) takes longer than
    the rest of a deal's checks. The entry holds the ruleset, so its id is not reused."""
    found = _FACTS.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    table = compile_rules(rules)
    facts = _RuleFacts(tuple(c for c in Compartment if c not in table.compartments),
                       table.ends_deal_turnup)
    if len(_FACTS) >= 64:
        _FACTS.clear()
    _FACTS[id(rules)] = (rules, facts)
    return facts


def deal_warnings(deal: Deal) -> list[str]:
    """One-line notes on a deal the ruleset would not deal; such a deal is still analysed."""
    check_deal(deal, "deal_warnings takes a Deal")
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
