from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from popejoan_solver.model.cards import (
    EIGHT_OF_DIAMONDS,
    PACK,
    POPE,
    CardSet,
    card_name,
    card_symbol_name,
    format_cards,
    parse_card,
    parse_cards,
)
from popejoan_solver.model.errors import CardError

cards = st.integers(min_value=0, max_value=51)
masks = st.integers(min_value=0, max_value=(1 << 52) - 1)


def test_pack_has_51_cards_without_the_eight_of_diamonds() -> None:
    assert PACK.bit_count() == 51
    assert not PACK >> EIGHT_OF_DIAMONDS & 1
    assert card_name(POPE) == "9D"


@given(cards)
def test_card_name_round_trips(card: int) -> None:
    assert parse_card(card_name(card)) == card
    assert parse_card(card_symbol_name(card)) == card
    assert parse_card(card_name(card).lower()) == card


@given(masks)
def test_card_list_round_trips(mask: int) -> None:
    assert CardSet.parse(format_cards(mask)).mask == mask


@pytest.mark.parametrize(("text", "name"), [("10d", "TD"), ("9♦", "9D"), ("a♠", "AS"),
                                            ("Kc", "KC"), ("t♥", "TH")])
def test_accepted_spellings(text: str, name: str) -> None:
    assert card_name(parse_card(text)) == name


@pytest.mark.parametrize("bad", ["", "X", "1C", "11D", "AX", "KCC", "ZZ"])
def test_bad_cards_are_refused(bad: str) -> None:
    with pytest.raises(CardError):
        parse_card(bad)


def test_duplicates_are_refused_in_a_card_set() -> None:
    with pytest.raises(CardError, match="twice"):
        CardSet.parse("AC 2C ac")


def test_parse_cards_accepts_commas() -> None:
    assert [card_name(c) for c in parse_cards("AC,2C 3c")] == ["AC", "2C", "3C"]


def test_card_set_operations() -> None:
    a, b = CardSet.parse("AC 2C"), CardSet.parse("2C 3C")
    assert str(a | b) == "AC 2C 3C"
    assert str(a & b) == "2C"
    assert str(a - b) == "AC"
    assert len(a) == 2
    assert a
    assert not CardSet()
    assert a == CardSet.parse("2C AC")
    assert hash(a) == hash(CardSet.parse("2C AC"))
