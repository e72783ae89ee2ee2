"""A deal's structure: where every card lies (the hands, the dead hand with its turn-up, each
seat's played cards), its ruleset and board, and the seat to lead, checked for everything but
whether play reaches it.

A :class:`~.deal.Deal` is a structure that play reaches. The play (:mod:`.play`) reads only the
structure, so the deal's own check can search the play (:mod:`.reachability`) and the imports
go one way: structure, play, reachability, deal.

Seats are numbered from 1 (eldest, the dealer's left) to ``n`` (the dealer) in every public
field, argument and result; ``hands[i]`` and ``played[i]`` are seat ``i + 1``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .arguments import ErrorType, is_whole, shown
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
from .errors import DealError
from .rules import DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, Ruleset, get_ruleset


@dataclass(frozen=True)
class DealStructure:
    """The cards of a deal or a position where they lie, and the seat to lead, structurally
    valid whenever it exists (:func:`check_structure`); :class:`~.deal.Deal` adds that play
    reaches it, and is what every public function takes.

    ``hands[i]`` holds the cards seat ``i + 1`` still has; ``played[i]`` the cards it has
    played. ``board`` is ``None`` for a freshly dressed board: the ruleset's layout for this
    number of players (:attr:`board_or_dressed`).
    """

    hands: tuple[Mask, ...]
    dead: Mask
    turnup: Card
    rules: Ruleset = field(default_factory=lambda: get_ruleset(DEFAULT_RULESET))
    board: Board | None = None
    played: tuple[Mask, ...] = ()
    leader: int = 1
    """Seat to lead next, from 1 (eldest) to ``n`` (the dealer)."""

    def __post_init__(self) -> None:
        check_structure(self)

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

    def played_by(self, index: int) -> Mask:
        """The cards played from ``hands[index]`` (seat ``index + 1``), like ``played[index]``
        (an index into the tuples, not a seat)."""
        return self.played[index] if self.played else 0

    @property
    def in_play(self) -> Mask:
        """Cards dealt to the players (held or already played): the cards a run can reach."""
        return self.rules.table.pack & ~self.dead

    def dealt_hand(self, index: int) -> Mask:
        """Every card dealt to seat ``index + 1``, held now or played (an index into
        ``hands``, not a seat)."""
        return self.hands[index] | self.played_by(index)

    def holder(self, card: Card) -> int | None:
        """The seat that was dealt ``card``; None for a dead or absent card."""
        bit = 1 << card
        for index in range(self.players):
            if self.dealt_hand(index) & bit:
                return index + 1
        return None

    @property
    def is_fresh(self) -> bool:
        """True before any card is played."""
        return not self.played

    @property
    def board_or_dressed(self) -> Board:
        """The board as play starts: the one given, or the ruleset's fresh dressing."""
        if self.board is not None:
            return self.board
        return self.rules.table.dressing(self.players).layout


def check_deal_type(value: object, kind: type[DealStructure], what: str,
                    error: ErrorType) -> None:
    """Refuse anything but a ``kind`` (a :class:`~.deal.Deal` wherever a public function takes
    one), saying how to get one."""
    if not isinstance(value, kind):
        raise error(f"{what} (parse_deal_text, deal_random or Deal(...) gives one), not "
                    f"{type(value).__name__}")


def check_structure(deal: DealStructure) -> None:
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
    _check_partition(rules.table.pack, hands, dead, played)
    turnup = deal.turnup
    if type(turnup) is not int or not 0 <= turnup < NUM_CARDS:
        check_card(turnup, "the turn-up", DealError)
    if not dead >> turnup & 1:
        raise DealError(f"the turn-up {card_name(turnup)} is not in the dead hand")
    if deal.board is not None:
        _check_board(deal)
    leader = deal.leader
    if type(leader) is not int and not is_whole(leader):
        raise DealError(f"leader must be a whole number (the seat to lead, from 1), not "
                        f"{shown(leader)}")
    if not 0 < leader <= n:
        raise DealError(f"the seat to lead (leader; to_lead in a deal file) must be from 1 "
                        f"to {n}, not {leader}")
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


def _check_board(deal: DealStructure) -> None:
    """A board is a :class:`Board` (or None) with counters only in the compartments the
    ruleset's board has."""
    board = deal.board
    if board is None:
        return
    if not isinstance(board, Board):
        raise DealError(f"board must be a Board or None, not {shown(board)}")
    facts = rule_facts(deal.rules)
    for compartment in facts.lacking:
        count = board[compartment]
        if count:
            kept = ", ".join(c.value for c in Compartment if c not in facts.lacking)
            raise DealError(
                f"board: {compartment.value} holds {count} counter{'s' if count > 1 else ''}, "
                f"but the board of {deal.rules.name} has no {compartment.value} compartment "
                f"(it has {kept}): give it as 0")


@dataclass(frozen=True)
class RuleFacts:
    """What a deal's checks read of its ruleset's tables."""

    lacking: tuple[Compartment, ...]
    """The compartments its board does not have."""
    ends_deal_turnup: Card | None


_FACTS: dict[int, tuple[Ruleset, RuleFacts]] = {}


def rule_facts(rules: Ruleset) -> RuleFacts:
    """:class:`RuleFacts` of ``rules``, from its compiled tables, looked up by identity: every
    deal built reads them. The entry holds the ruleset, so its id is not reused."""
    found = _FACTS.get(id(rules))
    if found is not None and found[0] is rules:
        return found[1]
    table = rules.table
    facts = RuleFacts(tuple(c for c in Compartment if c not in table.compartments),
                       table.ends_deal_turnup)
    if len(_FACTS) >= 64:
        _FACTS.clear()
    _FACTS[id(rules)] = (rules, facts)
    return facts
