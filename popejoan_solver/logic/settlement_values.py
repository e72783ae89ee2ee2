"""The z3 settlement evaluated on one concrete deal and end of play: what the encoding says
each seat pays or receives and what leaves each compartment, to set beside the rules model's
settlement and beside a hand-worked example (the conformance suite, ``studies/conformance``).

The deal and the cards played are fixed by literals, so the settlement's definitions have one
solution; its counts are read from that model. The board is the deal's own (carried-over
counters above the dressing) or the ruleset's fresh dressing.
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from ..model.board import Compartment
from ..model.cards import Mask
from ..model.deal import Deal
from ..model.errors import RulesError
from ..model.table import compile_rules
from .encoding import SymbolicDeal, SymbolicPosition, negated
from .prover import check_sat
from .semantics import PlaySemantics
from .settlement_encoding import SymbolicSettlement


@dataclass(frozen=True)
class EncodedSettlement:
    """The encoding's settlement of one deal: each seat's net (0-based seats) for the dressing,
    the turn-up and the play, and the counters each compartment paid out after the dressing."""

    dressing: tuple[int, ...]
    turnup: tuple[int, ...]
    play: tuple[int, ...]
    paid_out: dict[Compartment, int]


def encoded_settlement(deal: Deal, played: Mask,
                       semantics: PlaySemantics | None = None) -> EncodedSettlement:
    """The z3 settlement of ``deal`` once ``played`` has been played (nothing played when the
    turn-up ends the deal), read from its one model. Raises :class:`RulesError` when the
    board lies below the fresh dressing (the encoding adds carried-over counters to it) or
    the encoding admits no settlement of this end."""
    semantics = semantics or PlaySemantics.of(deal.rules)
    symbolic = SymbolicDeal(semantics, deal.players, "deal")
    final = SymbolicPosition.fresh(symbolic, "end")
    settlement = SymbolicSettlement(symbolic, final)
    layout = compile_rules(deal.rules).dressing(deal.players).layout
    board = deal.board_or_dressed
    if any(board[c] < layout[c] for c in Compartment):
        raise RulesError("the z3 settlement starts from the dressing: a board below it cannot "
                         "be encoded")
    literals = [settlement.carried[c] == board[c] - layout[c] for c in Compartment]
    for card in symbolic.cards:
        literals += [_literal(symbolic.hold[card, s], deal.holder(card) == s + 1)
                     for s in range(deal.players)]
        literals += [_literal(symbolic.dead[card], bool(deal.dead >> card & 1)),
                     _literal(symbolic.turnup[card], card == deal.turnup),
                     _literal(final.played[card], bool(played >> card & 1))]
    solver = z3.Solver()
    solver.add(*settlement.constraints, *literals)
    if check_sat(solver) != z3.sat:
        raise RulesError("the z3 settlement admits no settlement of this end of play")
    model = solver.model()

    def value(term: z3.ArithRef) -> int:
        return int(model.eval(term, model_completion=True).as_long())

    seats = range(deal.players)
    return EncodedSettlement(
        tuple(value(settlement.dressing_net[s]) for s in seats),
        tuple(value(settlement.turnup_net[s]) for s in seats),
        tuple(value(settlement.play_net[s]) for s in seats),
        {c: board[c] - value(settlement.board_after[c]) for c in Compartment})


def _literal(var: z3.BoolRef, value: bool) -> z3.BoolRef:
    return var if value else negated(var)


__all__ = ["EncodedSettlement", "encoded_settlement"]
