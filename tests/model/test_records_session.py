"""Sessions: the board carried from deal to deal, the dealer rotating and re-dressing it, the
final round, totals checked against a session worked by hand and conserved over random ones;
golden files of the text form; records of the worked examples that describe play."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import parse_card
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.errors import NotationError
from popejoan_solver.model.record import (
    Record,
    RecordedDeal,
    plays_of_run,
    record_from_json,
    record_from_text,
    record_to_json,
    record_to_text,
)
from popejoan_solver.model.referee import Breach, replay
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.studies.case_records import case_record
from popejoan_solver.studies.cases import load_cases
from tests.conftest import ROOT
from tests.model.test_records import CHOICE_RULESETS, random_line

GOLDEN = ROOT / "tests" / "golden"
SESSION = GOLDEN / "record-session.txt"


def _golden(path: Path, text: str, update: bool) -> None:
    if update:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_a_session_worked_by_hand(update_golden: bool) -> None:
    """Three players, dealer Cat then Ann, each dressing 15 (docs/records.md works it)."""
    text = SESSION.read_text(encoding="utf-8")
    record = record_from_text(text)
    result = replay(record)
    assert result.legal, result.error
    assert [d.values for d in result.deals] == [(-1, 4, -17), (7, 4, -15)]
    assert [d.players for d in result.deals] == [(1, 2, 3), (2, 3, 1)]  # players from 1
    assert [d.dealer for d in result.deals] == [record.first_dealer, 1] == [3, 1]
    assert [record.player_name(record.dealer_of(i)) for i in range(3)] == ["Cat", "Ann", "Bob"]
    assert record.player_name(record.player_at(1, 1)) == "Bob"  # seat 1 of the second deal
    assert result.deals[0].board_after == Board(6, 2, 2, 1, 1, 1, 1, 0)
    assert result.deals[1].board_before == result.deals[0].board_after
    assert result.deals[1].settlement.board_before == Board(12, 4, 4, 2, 2, 2, 2, 1)
    assert result.deals[1].board_after == Board(12, 4, 0, 2, 0, 0, 0, 0)
    # Final round, dealt by Bob: Cat holds Pope and the ace (12 + 2), Ann the queen and king
    # (both halves of Matrimony, 2 + 2).
    assert result.totals == (-16 + 4, 11, -13 + 14)
    assert result.board == Board(0, 0, 0, 0, 0, 0, 0, 0)
    assert record_to_text(record) == text
    _golden(GOLDEN / "record-session.json",
            json.dumps(record_to_json(record), indent=2, ensure_ascii=False) + "\n",
            update_golden)
    assert record_from_json(json.loads((GOLDEN / "record-session.json").read_text())) == record
    _golden(GOLDEN / "record-session-check.json",
            json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", update_golden)


def test_a_board_not_carried_forward_and_a_dealer_out_of_turn() -> None:
    record = record_from_text(SESSION.read_text(encoding="utf-8"))
    second = record.deals[1]
    carried = Board(12, 4, 4, 2, 2, 2, 2, 1)
    right = replace(second, deal=second.deal.with_board(carried))
    assert replay(replace(record, deals=(record.deals[0], right))).legal
    fresh = replace(second, deal=second.deal.with_board(Board()))
    result = replay(replace(record, deals=(record.deals[0], fresh)))
    assert result.error is not None
    assert (result.error.breach, result.error.deal, result.error.play) == (Breach.BOARD, 1, None)
    assert result.totals == (-1, 4, -17)
    wrong_dealer = replace(second, dealer=3)
    result = replay(replace(record, deals=(record.deals[0], wrong_dealer)))
    assert result.error is not None
    assert result.error.breach is Breach.DEALER
    assert replay(replace(record, deals=(record.deals[0], replace(second, dealer=1)))).legal


def test_a_claimed_board_and_a_final_round_that_misses_a_card() -> None:
    text = SESSION.read_text(encoding="utf-8")
    wrong = text.replace('[ClaimedBoard "12 4 0 2 0 0 0 0"]', '[ClaimedBoard "12 4 4 2 0 0 0 0"]')
    result = replay(record_from_text(wrong))
    assert result.error is not None
    assert (result.error.breach, result.error.deal) == (Breach.CLAIM, 1)
    with pytest.raises(NotationError, match="final round"):
        record_from_text(text.replace(".234567TJ..", ".234567T.."))


@st.composite
def sessions(draw: st.DrawFn) -> Record:
    """Sessions of random deals, each played by random legal leads and choices."""
    name = draw(st.sampled_from([*RULESETS, *CHOICE_RULESETS]))
    rules = get_ruleset(name)
    players = draw(st.integers(3, 8))
    seed = draw(st.integers(0, 1 << 30))
    rng = random.Random(seed)
    deals = []
    for index in range(draw(st.integers(1, 4))):
        deal = deal_random(players, seed, rules, index)
        plays = tuple(p for run in random_line(deal, rng) for p in plays_of_run(run))
        deals.append(RecordedDeal(deal, plays))
    return Record(rules, tuple(deals), dealer=draw(st.none() | st.integers(1, players)))


@given(sessions())
@settings(max_examples=25, deadline=None)
def test_random_sessions_conserve_counters(record: Record) -> None:
    result = replay(record)
    assert result.legal, result.error
    board = Board(*[0] * 8)
    for replayed in result.deals:
        assert replayed.board_before == board
        assert sum(replayed.values) == replayed.board_before.total() \
            - replayed.board_after.total()
        board = replayed.board_after
    assert result.board is not None
    assert sum(result.totals) + result.board.total() == 0
    dealers = [d.dealer for d in result.deals]
    assert all((b - a) % record.seats == 1 for a, b in itertools.pairwise(dealers))


@pytest.mark.parametrize("case", [c for c in load_cases() if c.data.get("leads")],
                         ids=lambda c: c.name)
def test_a_record_of_each_worked_example_that_describes_play(case: object,
                                                              update_golden: bool) -> None:
    from popejoan_solver.studies.cases import Case
    assert isinstance(case, Case)
    record = case_record(case)
    assert record is not None
    result = replay(record)
    assert result.legal, result.error
    text = record_to_text(record)
    _golden(GOLDEN / "record-cases" / f"{case.name}.txt", text, update_golden)
    assert record_from_text(text) == record


def test_a_session_goes_on_past_a_deal_that_the_turned_up_pope_ends() -> None:
    """early-hoyle: a Pope turned up ends the deal unplayed (the dealer takes Pope, Game and a
    stake a card); the session carries the board on (hypothesis found this shape)."""
    rules = get_ruleset("early-hoyle")
    ended, next_deal = deal_random(3, 1, rules, 92), deal_random(3, 1, rules, 93)
    assert ended.turnup == parse_card("9D")
    rng = random.Random(0)
    deals = tuple(RecordedDeal(d, tuple(p for run in random_line(d, rng)
                                        for p in plays_of_run(run)))
                  for d in (ended, next_deal))
    assert not deals[0].plays
    result = replay(Record(rules, deals))
    assert result.legal, result.error
    first = result.deals[0]
    dealer = first.dealer
    # the dealer takes the dressed board's Pope and Game, and a stake a card from the others
    assert [t.reason for t in first.settlement.turnup].count("a stake per card dealt") == 2
    assert first.values[dealer - 1] > 0  # the dealer sits at seat 3 of the first deal
    assert result.board is not None
    assert sum(result.totals) + result.board.total() == 0
