"""Checks added where a mutant of ``tools/mutants.py`` got through every other check. Each
tests behaviour against the rules model or the sources, not the mutant: the prover finds
counterexamples more than one lead deep, and the engines agree where a run meets the top of
a suit."""

from __future__ import annotations

import pytest
import z3

from popejoan_solver.logic.encoding import SymbolicDeal, SymbolicPosition, SymbolicStep, any_of
from popejoan_solver.logic.prover import Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import card_name, make_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Game, Run, StopReason
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import Goal, Objective
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.reference import ReferenceEngine
from tests.model.test_play_and_settlement import composed


def test_the_line_search_finds_a_counterexample_two_leads_deep() -> None:
    """"A run never stops at a played card" is false, but only from the second lead on
    (nothing is played at the outset): the bounded search must find and replay that line."""
    rules = get_ruleset("hoyle-modernized")
    successor = rules.successor
    ws = Workspace(PlaySemantics.of(rules), players=(3,))

    def stops_at_played(_d: SymbolicDeal, position: SymbolicPosition,
                        step: SymbolicStep) -> z3.BoolRef:
        return any_of([z3.And(step.stop(c), position.is_played(successor[c]))
                    for c in step.deal.cards if successor[c] >= 0])

    found = ws.search_line(stops_at_played)
    assert found is not None
    assert len(found.leads) == 2

    def seen(_deal: Deal, runs: list[Run]) -> bool:
        return runs[-1].reason is StopReason.PLAYED
    example = ws.replay(found, seen)
    assert example.replayed
    assert example.line[-1]["reason"] == StopReason.PLAYED.value


def _suit_tops(rules_name: str) -> list[Deal]:
    """Three-player deals in which a run can reach the top card of a suit while the bottom
    card of the next suit is in play (the top is a stop: "The four kings ... are always fixed
    stops", Hoyle's Games, early edition; the ace under ace high)."""
    rules = get_ruleset(rules_name)
    order = rules.suit_order
    deals = []
    for suit in range(3):
        below, top = (card_name(make_card(suit, r)) for r in order[-2:])
        bottom = card_name(make_card(suit + 1, order[0]))
        filler = [card_name(make_card(3 if suit < 2 else 0, r)) for r in (3, 6, 9)]
        hands = [f"{below} {filler[0]}", f"{top} {filler[1]}", f"{bottom} {filler[2]}"]
        deals.append(composed(hands, card_name(make_card(suit, order[0])), rules_name))
    return deals


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.skipif(
    not COMPILED, reason="compiled core not built"))])
@pytest.mark.parametrize("rules_name", ["hoyle-modernized", "parlett"])
def test_the_engines_agree_where_a_run_meets_the_top_of_a_suit(rules_name: str,
                                                               compiled: bool) -> None:
    for deal in _suit_tops(rules_name):
        game = Game.from_deal(deal)
        board = Board(3, 2, 2, 1, 1, 1, 1, 2)
        fast = FastEngine(game, board, compiled=compiled)
        reference = ReferenceEngine(game, board)
        for seat in range(deal.players):
            for goal in Goal:
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 0) == reference.value(objective, 0, 0), (
                    rules_name, [card_name(c) for c in deal.hands], seat, goal)
