"""Deals and positions: who holds which card, the dead hand, the turn-up, what has been played,
checked to be a position play reaches (the structure alone: :mod:`.structure`).

Seats are numbered from 1 (eldest, the dealer's left) to ``n`` (the dealer) in every public
field, argument and result (``leader``, :meth:`holder`); ``hands[i]`` is seat ``i + 1``'s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .arguments import ErrorType
from .board import Board
from .cards import (
    PACK,
    Card,
    Mask,
    card_name,
    iter_mask,
)
from .errors import DealError, clip
from .play import Game, Position
from .reachability import MAX_STEPS, Verdict, reachability
from .rules import DEFAULT_RULESET, Ruleset, get_ruleset
from .rules import MAX_PLAYERS as MAX_PLAYERS
from .rules import MIN_PLAYERS as MIN_PLAYERS
from .structure import DealStructure, check_deal_type, check_structure, rule_facts


@dataclass(frozen=True)
class Deal(DealStructure):
    """A deal or a position within one, valid whenever it exists: built directly, by
    :meth:`create` or by ``dataclasses.replace``, it is checked (:func:`validate`) and a deal
    that breaks the game's logic is a :class:`DealError`.

    Its fields are its :class:`~.structure.DealStructure`'s: ``hands[i]`` holds the cards seat
    ``i + 1`` still has; ``played[i]`` the cards it has played. ``board`` is ``None`` for a
    freshly dressed board: the ruleset's layout for this number of players
    (:attr:`board_or_dressed`). ``leader`` is the seat to lead, from 1 (eldest, the default)
    to ``n`` (the dealer). ``hands`` and ``played`` may be given as lists (they are kept as
    tuples), and ``played`` with no card in it is ``()``.
    """

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
        leader: int = 1,
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

    def at_outset(self) -> Deal:
        """The same deal with every played card back in its hand and eldest to lead."""
        hands = tuple(self.dealt_hand(s) for s in range(self.players))
        return Deal.reached(hands, self.dead, self.turnup, self.rules, self.board, (), 1)

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


def check_position(deal: Deal, search: bool = True) -> None:
    """A position must be one play reaches from the outset: eldest leads a fresh deal; no card
    is played once the turn-up has ended the deal; and (``search``) the reachability search
    finds a way there. A structurally valid deal is assumed (:func:`check_structure`)."""
    if not deal.played:
        if deal.leader != 1:
            raise DealError("position cannot arise in play: with no card played, eldest "
                            "(seat 1) leads")
        return
    if deal.turnup == rule_facts(deal.rules).ends_deal_turnup:
        raise DealError(f"position cannot arise in play: the turn-up {card_name(deal.turnup)} "
                        f"ends the deal unplayed under {deal.rules.name}, so no card is played")
    if not search:
        return
    found = reachability(Game.from_deal(deal), deal.played_mask, deal.leader)
    if found.verdict is Verdict.UNREACHABLE:
        raise DealError(f"position cannot arise in play: {found.reason}")


def check_deal(value: object, what: str = "a Deal is needed here",
               error: ErrorType = DealError) -> None:
    """Refuse anything but a :class:`Deal`: every public function that takes a deal checks it
    here, so a wrong argument is ``error``, never an ``AttributeError``."""
    check_deal_type(value, Deal, what, error)


def deal_warnings(deal: Deal) -> list[str]:
    """One-line notes on a deal the ruleset would not deal; such a deal is still analysed."""
    check_deal(deal, "deal_warnings takes a Deal")
    rules = deal.rules
    start = deal.at_outset()
    n = deal.players
    sizes = [start.hands[s].bit_count() for s in range(n)]
    dead = deal.dead.bit_count()
    want = rules.table.cards_per_player(n)
    want_dead = rules.table.dead_hand_size(n)
    stock = rules.table.least_stock
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
    elif stock is None and (sizes[0], dead) != (want, want_dead):
        warnings.append(
            f"{rules.name} deals {want} cards to each of {n} players and {want_dead} to the dead "
            f"hand; this deal has {sizes[0]} each and {dead} dead"
        )
    elif stock is not None and (dead < stock or sizes[0] != want):
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
    cards = shuffled_pack(seed, index, rules.table.pack)
    per = rules.table.cards_per_player(players)
    hands = [0] * players
    dead = 0
    position = 0
    if rules.table.least_stock is None:  # the dead hand dealt a card a round, as a hand
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
