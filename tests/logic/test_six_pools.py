"""The six-of-eight-pools theorem's example of the most pools one player collects: the line the
bounded search finds is replayed through the rules model, which must count every seat's pools."""

from __future__ import annotations

import pytest

from popejoan_solver.logic.encoding import DecodedDeal
from popejoan_solver.logic.prover import Found, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.model.cards import mask_of, parse_card, parse_cards
from popejoan_solver.model.rules import get_ruleset

LAST_SEAT_TAKES_SEVEN = DecodedDeal(
    tuple(mask_of(parse_cards(hand)) for hand in (
        "3C 5D 6D 7D KD 2H 3H 4H 6H 7H 4S KS",
        "AD 2D 3D 5H 9H JH QH KH 2S 9S TS JS",
        "4C 5C 6C 7C 8C 9C TC JC QC KC 9D TD")),
    mask_of(parse_cards("AC 2C 4D JD QD AH 8H TH AS 3S 5S 6S 7S 8S QS")), parse_card("2C"))
"""Clubs trumps: seat 1 leads 3♣ and seat 3 plays 4♣ to K♣ (the King, Queen and Jack,
Matrimony and Intrigue), then leads the Pope and 10♦ and is out (Game): seven pools, the Ace
dead. A line z3 once returned for "seven pools" at 3 players."""


def test_the_most_pools_example_counts_the_last_seat(monkeypatch: pytest.MonkeyPatch) -> None:
    """The line is asked for eight pools (none), then seven: the model must see seat 3 (the
    last seat) collect seven, not stop the proof with "does not do in the rules model what the
    encoding said" (seats counted from 0 missed it)."""
    asked: list[int] = []

    def search(_ws: Workspace, _reaches: object, max_depth: int) -> Found | None:
        asked.append(max_depth)
        if len(asked) == 1:
            return None
        return Found(3, LAST_SEAT_TAKES_SEVEN, (parse_card("3C"), parse_card("9D")))

    monkeypatch.setattr(Workspace, "search_settled_line", search)
    sem = PlaySemantics.of(get_ruleset("hoyle-modernized"))
    [result] = prove(sem, ["six-of-eight-pools"], workspace=Workspace(sem, players=(3,)))
    assert asked == [2, 2]
    assert any(d.startswith("the most pools one player can collect in one deal: 7 of 8")
               for d in result.details), result.details
