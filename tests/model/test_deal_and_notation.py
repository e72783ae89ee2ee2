from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import CardSet, parse_card
from popejoan_solver.model.deal import Deal, deal_random, deal_warnings
from popejoan_solver.model.errors import DealError, NotationError, PopeJoanError
from popejoan_solver.model.examples import hoyle_dead_hand
from popejoan_solver.model.notation import (
    deal_from_json,
    deal_from_line,
    deal_to_json,
    deal_to_line,
    deal_to_toml,
    parse_deal_text,
)
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.model.table import compile_rules


@st.composite
def deals(draw: st.DrawFn) -> Deal:
    """Seeded standard deals, sometimes with a board and some leads already played."""
    rules = get_ruleset(draw(st.sampled_from(list(RULESETS))))
    deal = deal_random(draw(st.integers(3, 8)), draw(st.integers(0, 10**6)), rules)
    leads = draw(st.integers(0, 6))
    if deal.turnup == compile_rules(rules).ends_deal_turnup:
        leads = 0  # the turn-up (the Pope, under some rulesets) ends the deal unplayed
    position = Position.from_deal(deal)
    for _ in range(leads):
        options = position.legal_leads()
        if not options:
            break
        _, position = position.play(options[draw(st.integers(0, len(options) - 1))])
    kept = compile_rules(rules).compartments
    board = draw(st.none() | st.builds(Board, *[st.integers(0, 40) if c in kept else st.just(0)
                                                for c in Compartment]))
    game = position.game
    return Deal.create(
        tuple(game.held(position.played, s) for s in range(1, deal.players + 1)), deal.dead,
        deal.turnup, rules, board,
        tuple(game.dealt[s] & position.played for s in range(deal.players)),
        position.winner if position.is_over else position.leader)


@settings(max_examples=60, deadline=None)
@given(deals())
def test_json_toml_and_line_round_trip(deal: Deal) -> None:
    assert deal_from_json(json.loads(json.dumps(deal_to_json(deal)))) == deal
    assert parse_deal_text(deal_to_toml(deal)) == deal
    assert deal_from_line(deal_to_line(deal)) == deal
    assert parse_deal_text(deal_to_line(deal)) == deal


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 8), st.integers(0, 10**6), st.sampled_from(list(RULESETS)))
def test_random_deals_follow_the_dealing_rule(players: int, seed: int, name: str) -> None:
    rules = get_ruleset(name)
    deal = deal_random(players, seed, rules)
    assert [h.bit_count() for h in deal.hands] == [rules.table.cards_per_player(players)] * players
    assert deal.dead.bit_count() == rules.table.dead_hand_size(players)
    assert deal.dead >> deal.turnup & 1
    assert deal_warnings(deal) == []
    assert deal_random(players, seed, rules) == deal


@given(deals())
@settings(max_examples=40, deadline=None)
def test_holder_is_the_seat_dealt_a_card_or_none(deal: Deal) -> None:
    """``holder`` is the seat (from 1) dealt a card (held or played), None for the dead hand's
    cards, the turn-up and the cards out of the pack; the game's agrees, and the engines'
    internal table holds the 0-based index (-1 there)."""
    from popejoan_solver.model.play import Game
    game = Game.from_deal(deal)
    for card in range(52):
        dealt = [s for s in range(deal.players) if deal.dealt_hand(s) >> card & 1]
        assert deal.holder(card) == (dealt[0] + 1 if dealt else None)
        assert game.holder(card) == deal.holder(card)
        assert game.holder_index[card] == (dealt[0] if dealt else -1)
    assert deal.holder(deal.turnup) is None
    assert all(deal.holder(c) is None for c in range(52) if deal.dead >> c & 1)


def test_random_deals_depend_on_index() -> None:
    assert deal_random(4, 1, index=0) != deal_random(4, 1, index=1)


def test_example_deal_and_its_warning() -> None:
    deal = hoyle_dead_hand()
    assert str(CardSet(deal.dead)) == "KC JD 6H TH 2S 5S 9S"
    assert [h.bit_count() for h in deal.hands] == [11] * 4
    (warning,) = deal_warnings(deal)
    assert "10 cards to each of 4 players and 11 to the dead hand" in warning
    assert deal_warnings(deal.with_rules(get_ruleset("early-hoyle"))) == []


def _json(**changes: object) -> dict[str, object]:
    data = deal_to_json(hoyle_dead_hand())
    data.update(changes)
    return data


@pytest.mark.parametrize(("data", "message"), [
    (_json(dead="KC JD 6H TH 2S 5S 9S 3C"), "dealt twice"),
    (_json(dead="KC JD 6H TH 2S 5S"), "missing from the deal: 9S"),
    (_json(dead="KC JD 6H TH 2S 5S 9S 8D"), "8D"),
    (_json(turnup="AS"), "not in the dead hand"),
    (_json(turnup="AS KC"), "exactly one card"),
    (_json(hands=["3C 7C"]), "Pope Joan is for 3 to 8 players"),
    (_json(hands=["AC"] * 9), "Pope Joan is for 3 to 8 players"),
    (_json(rules="whist"), "unknown ruleset"),
    (_json(board={"pope": -1}), "pope must be a whole number"),
    (_json(board={"popes": 1}), "unknown compartment"),
    (_json(trumps="C"), "unknown key 'trumps'"),
    (_json(hands="3C 7C"), "hands must be a list"),
    (_json(to_lead=9), "to_lead in a deal file\\) must be from 1 to 4"),
    (_json(to_lead="1"), "to_lead must be a seat number"),
    (_json(played=["3C", "", "", ""]), "needs \"to_lead\""),
    ({"hands": []}, "no 'dead'"),
    ([], "must be an object"),
])
def test_bad_deals_are_refused(data: object, message: str) -> None:
    with pytest.raises(PopeJoanError, match=message):
        deal_from_json(data)


def test_unreachable_position_is_refused() -> None:
    data = _json()
    hands = list(data["hands"])  # type: ignore[arg-type]
    hands[0] = hands[0].replace("3C ", "")
    data.update(hands=hands, played=["3C", "", "", ""], to_lead=1)
    with pytest.raises(DealError, match="cannot arise in play: 3C has been played but 4C"):
        deal_from_json(data)


def test_a_seat_without_cards_is_refused_at_the_outset() -> None:
    deal = hoyle_dead_hand()
    hands = list(deal.hands)
    hands[1] |= hands[0]
    hands[0] = 0
    with pytest.raises(DealError, match="seat 1 holds no cards"):
        Deal.create(hands, deal.dead, deal.turnup)


def test_composed_deals_are_accepted_with_a_warning() -> None:
    deal = hoyle_dead_hand()
    hands = list(deal.hands)
    card = parse_card("3C")
    hands[0] &= ~(1 << card)
    hands[1] |= 1 << card
    odd = Deal.create(hands, deal.dead, deal.turnup)
    assert "unequal size (10, 12, 11, 11)" in deal_warnings(odd)[0]


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("{\"hands\": [", "broken JSON"),
    ("hands = [", "broken TOML"),
    ("A.B.C.D | x ^KC", "not a rank"),
    ("3C.7C | K.J.6T.259 ^KC", "not four suits"),
    ("37J.37K.49.A7Q | K.J.6T.259", "DEAD ^TURNUP"),
    ("37J.37K.49.A7Q | K.J.6T.259 ^KC | colour red", "unknown section"),
    ("37J.37K.49.A7Q | K.J.6T.259 ^KC | board 1 2", "8 counts"),
    ("33.4.5.6 | K.J.6T.259 ^KC", "written twice"),
])
def test_bad_text(text: str, message: str) -> None:
    with pytest.raises((NotationError, DealError), match=re.escape(message)):
        parse_deal_text(text)


def test_line_notation_of_the_example() -> None:
    assert deal_to_line(hoyle_dead_hand()) == (
        "hoyle-modernized: 37J.37K.49.A7Q 48Q.49.A5J.38K A59.A5T.27Q.4T 26T.26Q.38K.6J"
        " | K.J.6T.259 ^KC")
    assert deal_from_line("hoyle-modernized: 37j.37k.49.a7q 48q.49.a5j.38k a59.a5t.27q.4t "
                          "26t.26q.38k.6j | k.j.6t.259 ^kc") == hoyle_dead_hand()


def test_a_key_written_twice_says_broken_json_once() -> None:
    """A JSON key written twice is one "broken JSON" message, not wrapped twice."""
    with pytest.raises(PopeJoanError) as caught:
        parse_deal_text('{"hands": ["2C"], "hands": ["3C"], "dead": "", "turnup": "2S"}')
    assert str(caught.value) == "broken JSON: the key 'hands' is written twice"
