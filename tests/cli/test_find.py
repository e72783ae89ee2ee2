"""``popejoan find`` (and ``prove``, ``graph``) against bad input: one ``error:`` line and status 2;
``--count`` bounded; Ctrl-C is status 130. The bad input runs in-process (``run_main``: the
same message and status as a child's); Ctrl-C in a child process of its own."""

from __future__ import annotations

import pytest

from tests.contract import (
    assert_contract,
    assert_interrupted_past_warnings,
    interrupt_cli,
    run_main,
)


@pytest.mark.parametrize("count", ["1001", "99999999999"])
def test_find_count_is_bounded(count: str) -> None:
    """``find --count`` past 1,000 is refused: every deal found is kept and blocked in the SAT
    instance, so an unbounded count is unbounded memory. (Run under the contract's time bound.)"""
    outcome = run_main(["find", "forced-win", "--players", "3", "--count", count], timeout=30)
    assert_contract(outcome, 2)
    assert outcome.stderr.startswith("error: --count must be from 1 to 1,000")


GRAPH_DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
              "A589K.2349Q.A34689TJK.A345678Q ^3D")
"""A deal of six cards a hand: 565 states, about 100 KB of DOT, built in a moment."""


BAD: list[tuple[str, list[str], str]] = [
    # (what, argv, a word the one error line must contain)
    ("--hold of the 8D, not in the pack", ["find", "first-lead-out", "--hold", "1:8D"], "8D"),
    ("--hold of a seat out of range", ["find", "first-lead-out", "--hold", "9:AC"], "seat 9"),
    ("--hold of no cards", ["find", "first-lead-out", "--hold", "1:"], "no cards"),
    ("--hold of no seat", ["find", "first-lead-out", "--hold", "x:AC"], "SEAT:CARDS"),
    ("--hold of a superscript seat", ["find", "first-lead-out", "--hold", "\u00b2:AC"],
     "SEAT:CARDS"),
    ("--dead of the 8D", ["find", "first-lead-out", "--dead", "8D"], "8D"),
    ("--dead of no cards", ["find", "first-lead-out", "--dead", ","], "no cards"),
    ("a card both held and dead",
     ["find", "first-lead-out", "--hold", "1:AC", "--dead", "AC"], "AC"),
    ("one card held by two seats",
     ["find", "first-lead-out", "--hold", "1:AC", "--hold", "2:AC"], "two seats"),
    ("more cards held than a hand has",
     ["find", "first-lead-out", "--hold", "1:AC,2C,3C,4C,5C,6C,7C,8C,9C,TC,JC"], "11 cards"),
    ("more cards dead than the dead hand has",
     ["find", "first-lead-out", "--players", "4", "--dead", "AC,2C,3C,4C,5C,6C,7C,8C,9C,TC,JC,QC"],
     "12 cards"),
    ("--time-limit nan", ["find", "forced-win", "--time-limit", "nan"], "time-limit"),
    ("--time-limit inf", ["find", "forced-win", "--time-limit", "inf"], "time-limit"),
    ("--time-limit -1", ["find", "forced-win", "--time-limit", "-1"], "time-limit"),
    ("--time-limit 1e400", ["find", "forced-win", "--time-limit", "1e400"], "time-limit"),
    ("--players 2", ["find", "forced-win", "--players", "2"], "players"),
    ("--seat 9 of 4", ["find", "forced-win", "--seat", "9", "--players", "4"], "seat"),
    ("an unknown theorem", ["prove", "--theorem", "nonexistent"], "nonexistent"),
    ("a ruleset ending in +", ["prove", "--rules", "parlett+"], "parlett+"),
    ("graph --output without --format", ["graph", GRAPH_DEAL, "--output", "g.dot"],
     "--format"),
]


@pytest.mark.parametrize(("what", "argv", "word"), BAD, ids=[b[0] for b in BAD])
def test_bad_input_is_one_error_line_and_status_2(what: str, argv: list[str],
                                                  word: str) -> None:
    outcome = run_main(argv, timeout=60)
    assert_contract(outcome, 2, within=30)
    assert word in outcome.stderr, (what, outcome.stderr)
    assert outcome.stdout == ""


def test_ctrl_c_during_find_is_status_130() -> None:
    """Ctrl-C during ``find`` is status 130 and one line, never python-sat's own "Caught
    keyboard interrupt" error and a traceback."""
    for after in (1.5, 4.0):
        assert_interrupted_past_warnings(interrupt_cli(
            ["find", "forced-win", "--players", "8", "--count", "50", "--json"], after=after))
