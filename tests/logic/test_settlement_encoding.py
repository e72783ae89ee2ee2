"""The z3 settlement against the rules model's, on random finished deals of many rulesets.

Both are generated from the same compiled rule table; this checks that the encoding computes
what the model computes: every seat's dressing, turn-up award and play payments, and the
board left after the deal, for deals played to their end by random legal leads (the deal and
the line are fixed in the solver, so the settlement has exactly one value to take).
"""

from __future__ import annotations

import random

import pytest
import z3

from popejoan_solver.logic.encoding import SymbolicDeal, SymbolicPosition
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.settlement_encoding import SymbolicSettlement
from popejoan_solver.model.board import Compartment
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset, variant_matrix
from popejoan_solver.model.settlement import net, settle

RULESETS = sorted({r.name for r in variant_matrix()} | {
    "peel", "cassell", "britannica-1911", "early-hoyle", "hoyle-modernized+pools=five",
    "britannica-1911+pools=five,pairs=divided", "peel+dressing=players,pools=five"})


def _played_out(deal: Deal, rng: random.Random) -> tuple[int, int | None]:
    """Random legal leads to the end: the cards played and the seat out."""
    position = Position.from_deal(deal)
    while not position.is_over:
        position = position.play(rng.choice(position.legal_leads()))[1]
    return position.played, position.winner


def _fix(deal: Deal, symbolic: SymbolicDeal, final: SymbolicPosition,
         played: int) -> list[z3.BoolRef]:
    """Constraints that make the symbolic deal and final position this deal and line."""
    fixed = []
    for card in symbolic.cards:
        holder = deal.holder(card)
        fixed += [symbolic.hold[card, s] == (holder == s + 1) for s in range(deal.players)]
        fixed += [symbolic.dead[card] == bool(deal.dead >> card & 1),
                  symbolic.turnup[card] == (card == deal.turnup),
                  final.played[card] == bool(played >> card & 1)]
    return fixed


@pytest.mark.parametrize("name", RULESETS)
def test_the_encoding_settles_as_the_model_does(name: str) -> None:
    rules = get_ruleset(name)
    rng = random.Random(name)
    # The encoding of a player count is built once (its terms are the same for every deal:
    # the deal and the line are fixed only in each deal's own solver).
    encodings: dict[int, tuple[SymbolicDeal, SymbolicPosition, SymbolicSettlement]] = {}
    for index in range(8):
        players = 3 + (index * 5) % 6
        deal = deal_random(players, 77, rules, index)
        played, winner = _played_out(deal, rng) if deal.turnup != _ends(deal) else (0, None)
        expected = settle(deal, played, winner)
        if players not in encodings:
            symbolic = SymbolicDeal(PlaySemantics.of(rules), players)
            final = SymbolicPosition.fresh(symbolic, "final")
            encodings[players] = symbolic, final, SymbolicSettlement(symbolic, final)
        symbolic, final, settlement = encodings[players]
        solver = z3.Solver()
        solver.add(*_fix(deal, symbolic, final, played), *settlement.constraints,
                   *[v == 0 for v in settlement.carried.values()])
        assert solver.check() == z3.sat, (name, index)
        model = solver.model()

        def value(term: z3.ArithRef, model: z3.ModelRef = model) -> int:
            return int(model.eval(term, model_completion=True).as_long())

        for seat in range(players):  # the encoding's seats count from 0, the model's from 1
            assert value(settlement.dressing_net[seat]) == net(expected.dressing, seat + 1)
            assert value(settlement.turnup_net[seat]) == net(expected.turnup, seat + 1)
            assert value(settlement.play_net[seat]) == net(expected.play, seat + 1), (
                name, index, seat)
        assert {c: value(settlement.board_after[c]) for c in Compartment} == dict(
            expected.board_after.items())


def _ends(deal: Deal) -> int | None:
    from popejoan_solver.model.table import compile_rules
    return compile_rules(deal.rules).ends_deal_turnup
