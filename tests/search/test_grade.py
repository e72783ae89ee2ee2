"""Grading a line of play: each lead's kept value against the best lead's (search/grade.py)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import solve
from popejoan_solver.search.grade import grade_line, summary
from tests.conftest import short_deal
from tests.model.test_play_and_settlement import VARIANTS, composed
from tests.model.test_records import random_line


def test_the_hand_checked_deal_grades_each_lead() -> None:
    # tests/search/test_solver.py, test_hand_checked_three_card_deal: seat 1 holds 2C 5H. Leading 2C
    # lets seat 2 out at once (seat 1 ends on -1); leading 5H first, seat 1 leads again and goes
    # out with its 2C (+4). So 2C costs 5, and 5H then 2C costs nothing.
    deal = composed(["2C 5H", "3C", "AD 2D"], "KS")
    start = Position.from_deal(deal)
    bad = grade_line(deal, [start.play(parse_card("2C"))[0]])
    assert [(g.seat, card_name(g.card), g.kept.lower, g.best.lower, g.cost.lower, g.optimal)
            for g in bad] == [(1, "2C", -1, 4, 5, False)]
    first, after = start.play(parse_card("5H"))
    good = grade_line(deal, [first, after.play(parse_card("2C"))[0]])
    assert [(card_name(g.card), g.kept.lower, g.best.lower, g.optimal) for g in good] == [
        ("5H", 4, 4, True), ("2C", 4, 4, True)]
    assert summary(bad, 3)[0] == {"seat": 1, "leads": 1, "errors": 1, "cost": 5}
    assert bad[0].to_json() == {"lead": 1, "seat": 1, "card": "2C", "kept": -1, "best": 4,
                                "cost": 5, "optimal": False}


def test_the_line_seat_of_a_solved_line_never_loses_value() -> None:
    for seed in range(4):
        deal = short_deal(4, 4, seed, get_ruleset("hoyle-modernized"))
        solution = solve(deal, threads=1)
        grades = grade_line(deal, [step.run for step in solution.line])
        line_seat = solution.line_seat
        assert all(g.optimal for g in grades if g.seat == line_seat)
        # the first lead's best value is the seat on lead's guaranteed value
        assert grades[0].best == solution.seat(grades[0].seat).guaranteed


def test_a_deal_the_turnup_ends_has_nothing_to_grade() -> None:
    deal = composed(["2C 5H", "3C", "AD 2D"], "9D", "early-hoyle")
    assert grade_line(deal, []) == []
    with pytest.raises(IllegalPlayError, match="not played: Pope was turned up"):
        grade_line(deal, [Position.from_deal(deal).play(parse_card("5H"))[0]])


def test_a_run_that_is_not_an_outcome_is_refused() -> None:
    deal = composed(["2C 5H", "3C", "AD 2D"], "KS")
    start = Position.from_deal(deal)
    run = start.play(parse_card("5H"))[0]
    with pytest.raises(IllegalPlayError, match="may not lead 5H"):
        grade_line(deal, [run, run])
    other = Position.from_deal(composed(["2C 5H", "3C", "AD 2D"], "KS")).play(
        parse_card("2C"))[0]
    with pytest.raises(IllegalPlayError, match="lead 2: the deal is over"):
        grade_line(deal, [other, run])


def test_a_choice_inside_the_run_is_graded_with_its_lead() -> None:
    # Peel's example: seat 1 leads 8S 9S; seat 2 may play Pope in lieu of the dead 10S.
    deal = composed(["8S 9S 3C", "9D JS QS 4H", "KS 5H 6H"], "KC",
                    "hoyle-modernized+pope_in_lieu=run-continues")
    start = Position.from_deal(deal)
    declined, in_lieu = start.outcomes(parse_card("8S"))
    for run in (declined, in_lieu):
        (grade,) = grade_line(deal, [run])
        # the lead is graded by its tree (seat 2's choice taken against seat 1), whichever
        # outcome seat 2 then chose
        assert grade.kept == grade_line(deal, [declined])[0].kept


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from(VARIANTS))
def test_no_lead_keeps_more_than_the_best(seed: int, variant: str) -> None:
    deal = short_deal(3, 4, seed, get_ruleset(variant))
    runs = random_line(deal, random.Random(seed))  # none when the turned-up Pope ends it
    grades = grade_line(deal, runs)
    assert len(grades) == len(runs)
    for grade in grades:
        assert grade.kept.lower <= grade.best.lower
        assert grade.cost.lower == grade.best.lower - grade.kept.lower
