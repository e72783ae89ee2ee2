"""Cards, suits, ranks and card masks.

A card is a plain ``int`` from 0 to 51: ``suit * 13 + rank`` with suits in the order
clubs, diamonds, hearts, spades and ranks from ace (0) to king (12). A set of cards is an
``int`` bit mask. Both are what the solver's hot path uses; :class:`CardSet` wraps a mask
for users.

>>> card_name(parse_card("10♦"))
'TD'
>>> str(CardSet.parse("kc 2s AC"))
'AC KC 2S'
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final

from .arguments import ErrorType, is_whole, shown
from .errors import CardError, DealError, clip

Card = int
"""A card index, ``suit * 13 + rank`` (see module docstring)."""

Mask = int
"""A set of cards as a bit mask: bit ``c`` is set when card ``c`` is in the set."""


class Suit(IntEnum):
    """The four suits, in the order used for card indices and for printing."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]


class Rank(IntEnum):
    """The thirteen ranks; the value is the ace-low position (ace 0 ... king 12)."""

    ACE = 0
    TWO = 1
    THREE = 2
    FOUR = 3
    FIVE = 4
    SIX = 5
    SEVEN = 6
    EIGHT = 7
    NINE = 8
    TEN = 9
    JACK = 10
    QUEEN = 11
    KING = 12

    @property
    def letter(self) -> str:
        return RANK_LETTERS[self]


RANK_LETTERS: Final = "A23456789TJQK"
SUIT_LETTERS: Final = "CDHS"
_SUIT_ALIASES: Final = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                        "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_ALIASES: Final = {letter: i for i, letter in enumerate(RANK_LETTERS)} | {"10": 9}

NUM_CARDS: Final = 52


def make_card(suit: int, rank: int) -> Card:
    """The card of ``suit`` and ace-low ``rank``."""
    return suit * 13 + rank


def card_suit(card: Card) -> int:
    return card // 13


def card_rank(card: Card) -> int:
    return card % 13


def card_name(card: Card) -> str:
    """The card in the deal notation: rank letter then suit letter, e.g. ``'TD'``; a
    :class:`CardError` for anything but a card index from 0 to 51."""
    if type(card) is not int or not 0 <= card < NUM_CARDS:  # -1 is not the KS
        check_card(card)
    return RANK_LETTERS[card % 13] + SUIT_LETTERS[card // 13]


def card_symbol_name(card: Card) -> str:
    """The card with a suit symbol and ``10`` for the ten, e.g. ``'10♦'``, for prose."""
    rank = "10" if card % 13 == 9 else RANK_LETTERS[card % 13]
    return rank + "♣♦♥♠"[card // 13]


EIGHT_OF_DIAMONDS: Final = make_card(Suit.DIAMONDS, Rank.EIGHT)
POPE: Final = make_card(Suit.DIAMONDS, Rank.NINE)
"""The nine of diamonds, "Pope"."""

FULL_MASK: Final = (1 << NUM_CARDS) - 1
PACK: Final = FULL_MASK & ~(1 << EIGHT_OF_DIAMONDS)
"""The 51-card Pope Joan pack: 52 cards less the eight of diamonds."""


def check_mask(value: object, where: str, error: ErrorType = DealError) -> Mask:
    """A set of cards as a bit mask: a whole number from 0 with no bit past the 52 cards."""
    if not is_whole(value) or not 0 <= value <= FULL_MASK:
        raise error(f"{where} must be a set of cards (a mask: a whole number from 0 to "
                    f"2**52 - 1), not {shown(value)}")
    return value


def check_card(value: object, where: str = "a card", error: ErrorType = CardError) -> Card:
    """A card index: a whole number from 0 to 51 (``parse_card`` reads one from text)."""
    if not is_whole(value) or not 0 <= value < NUM_CARDS:
        raise error(f"{where} must be a card index from 0 to {NUM_CARDS - 1} (parse_card('TD') "
                    f"gives one), not {shown(value)}")
    return value


def parse_card(text: str) -> Card:
    """Parse one card: rank ``A 2-9 T J Q K`` (or ``10``) then suit ``C D H S`` or a symbol.

    >>> card_name(parse_card("qh")), card_name(parse_card("10♠"))
    ('QH', 'TS')
    """
    if not isinstance(text, str):
        raise CardError(f"a card is written as text, like 'TD' or '10♦', not "
                        f"{type(text).__name__}")
    token = text.strip().upper()
    if len(token) < 2:
        raise CardError(f"not a card: {clip(text)!r}")
    rank = _RANK_ALIASES.get(token[:-1])
    suit = _SUIT_ALIASES.get(token[-1])
    if rank is None or suit is None:
        raise CardError(f"not a card: {clip(text)!r} (write rank A 2-9 T J Q K, then suit C D H S)")
    return make_card(suit, rank)


def parse_cards(text: str) -> list[Card]:
    """Parse a space- or comma-separated list of cards, in the order written."""
    if not isinstance(text, str):
        raise CardError(f"cards are written as text, like 'TD 9D', not {type(text).__name__}")
    return [parse_card(token) for token in text.replace(",", " ").split()]


def mask_of(cards: Iterable[Card]) -> Mask:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def union(masks: Iterable[Mask]) -> Mask:
    """Every card in any of ``masks`` (e.g. the cards all seats have played)."""
    mask = 0
    for cards in masks:
        mask |= cards
    return mask


def iter_mask(mask: Mask) -> Iterator[Card]:
    """The cards of a mask in index order (clubs ace first)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def format_cards(mask: Mask) -> str:
    """The cards of a mask in the deal notation, in index order, separated by spaces."""
    return " ".join(card_name(c) for c in iter_mask(mask))


class CardSet:
    """An immutable, set-like view of a card mask.

    >>> hand = CardSet.parse("2S 5S 9S")
    >>> len(hand), parse_card("5S") in hand
    (3, True)
    >>> str(hand | CardSet.parse("KC"))
    'KC 2S 5S 9S'
    >>> CardSet.parse("2S 2S")
    Traceback (most recent call last):
    ...
    popejoan_solver.model.errors.CardError: card 2S is written twice
    """

    __slots__ = ("mask",)

    def __init__(self, mask: Mask = 0) -> None:
        self.mask = check_mask(mask, "a CardSet's mask", CardError)

    @classmethod
    def parse(cls, text: str) -> CardSet:
        """Parse a list of cards, refusing a card written twice."""
        mask = 0
        for card in parse_cards(text):
            bit = 1 << card
            if mask & bit:
                raise CardError(f"card {card_name(card)} is written twice")
            mask |= bit
        return cls(mask)

    @classmethod
    def of(cls, cards: Iterable[Card]) -> CardSet:
        return cls(mask_of(cards))

    def __contains__(self, card: object) -> bool:
        return isinstance(card, int) and 0 <= card < NUM_CARDS and bool(self.mask >> card & 1)

    def __iter__(self) -> Iterator[Card]:
        return iter_mask(self.mask)

    def __len__(self) -> int:
        return self.mask.bit_count()

    def __bool__(self) -> bool:
        return self.mask != 0

    def __or__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask | other.mask)

    def __and__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & other.mask)

    def __sub__(self, other: CardSet) -> CardSet:
        return CardSet(self.mask & ~other.mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __str__(self) -> str:
        return format_cards(self.mask)

    def __repr__(self) -> str:
        return f"CardSet.parse({str(self)!r})"
