"""The dealing frame admits exactly the deals the rules model deals (``logic/deal_shapes.py``):
the check passes for the rules as written, and each slip planted in the frame (looser or
stricter than the model) is refused with a decoded deal and what the model says of it."""

from __future__ import annotations

import pytest
import z3

from popejoan_solver.logic.deal_shapes import (
    DealMasks,
    ShapeError,
    check_deal_shapes,
    model_shapes,
)
from popejoan_solver.logic.encoding import SymbolicDeal
from popejoan_solver.logic.prover import ProofError, Workspace
from popejoan_solver.logic.semantics import PlaySemantics, mutant
from popejoan_solver.logic.theorems import prove
from popejoan_solver.logic.vacuity import deal_literals
from popejoan_solver.model.cards import POPE, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import get_ruleset

HOYLE = get_ruleset("hoyle-modernized")


@pytest.mark.parametrize(("name", "players"), [("hoyle-modernized", 3), ("early-hoyle", 4),
                                               ("spinado", 5)])
def test_the_frame_admits_exactly_the_models_deals(name: str, players: int) -> None:
    rules = get_ruleset(name)
    assert check_deal_shapes(rules, SymbolicDeal(PlaySemantics.of(rules), players)) > players


def _holds(rules_name: str, deal: Deal, players: int) -> bool:
    """The model's shapes, as :func:`model_shapes` states them, evaluated on ``deal``."""
    rules = get_ruleset(rules_name)
    sym = SymbolicDeal(PlaySemantics.of(rules), players)
    solver = z3.Solver()
    solver.add(*deal_literals(sym, deal),
               *[term for _, term in model_shapes(rules, DealMasks.of(sym))])
    return solver.check() == z3.sat


@pytest.mark.parametrize("name", ["hoyle-modernized", "early-hoyle", "spinado"])
def test_the_models_shapes_as_stated_hold_of_the_models_deals(name: str) -> None:
    """The second statement is the model's: its random deals satisfy it, and a deal with one
    card moved from a hand to another (which the model warns it would not deal) does not."""
    for players in (3, 8):
        deal = deal_random(players, "shapes", name)
        assert _holds(name, deal, players)
        card = deal.hands[0] & -deal.hands[0]
        moved = Deal.create((deal.hands[0] & ~card, deal.hands[1] | card, *deal.hands[2:]),
                            deal.dead, deal.turnup, deal.rules)
        assert not _holds(name, moved, players)


def test_the_eight_of_diamonds_in_the_frame_is_refused() -> None:
    """The ``eight-in-pack`` mutant's frame deals the 8♦: a deal the model refuses."""
    sem = mutant(HOYLE, "eight-in-pack")
    with pytest.raises(ShapeError, match=r"leaves out a deal the rules model deals .*; and "
                       r"the encoding's dealing frame admits a deal the rules model does not "
                       r"deal \(hoyle-modernized, 3 players\).*8D.*the model: .*8D"):
        check_deal_shapes(HOYLE, SymbolicDeal(sem, 3))


def _drop(monkeypatch: pytest.MonkeyPatch, keep: object) -> None:
    """Plant a slip: the frame's constraints filtered by ``keep(deal, term)``, or extended
    when ``keep`` returns a list."""
    real = SymbolicDeal.constraints

    def slipped(self: SymbolicDeal) -> list[z3.BoolRef]:
        return keep(self, real(self))  # type: ignore[operator, no-any-return]

    monkeypatch.setattr(SymbolicDeal, "constraints", slipped)


def test_a_turnup_not_tied_to_the_dead_hand_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _drop(monkeypatch, lambda deal, terms: [t for t in terms if not z3.is_implies(t)])
    with pytest.raises(ShapeError, match=r"admits a deal the rules model does not deal.*"
                       r"the model: the turn-up .* is not in the dead hand.*it breaks: the "
                       r"turn-up in the dead hand"):
        check_deal_shapes(HOYLE, SymbolicDeal(PlaySemantics.of(HOYLE), 4))


def test_a_frame_stricter_than_the_model_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """A frame that never deals the Pope to the dealer leaves out deals the model deals: the
    deal found is one the model accepts."""
    _drop(monkeypatch, lambda deal, terms: [*terms, z3.Not(deal.hold[POPE, deal.players - 1])])
    with pytest.raises(ShapeError, match=r"leaves out a deal the rules model deals "
                       r"\(hoyle-modernized, 5 players\): hands .*9D.*; the model deals it"):
        check_deal_shapes(HOYLE, SymbolicDeal(PlaySemantics.of(HOYLE), 5))


def test_a_frame_that_never_turns_up_one_card_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The turn-up is a shape parameter too: the J♣ never turned up is a stricter frame."""
    knave = parse_card("JC")
    _drop(monkeypatch, lambda deal, terms: [*terms, z3.Not(deal.turnup[knave])])
    with pytest.raises(ShapeError, match=r"leaves out a deal .*turn-up JC; the model deals"):
        check_deal_shapes(HOYLE, SymbolicDeal(PlaySemantics.of(HOYLE), 3))


def test_prove_refuses_a_frame_that_is_not_the_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """``prove`` runs the check before any theorem: a frame that never deals the Pope to the
    dealer is an internal error (status 4), with the deal it leaves out."""
    _drop(monkeypatch, lambda deal, terms: [*terms, z3.Not(deal.hold[POPE, deal.players - 1])])
    sem = PlaySemantics.of(HOYLE)

    def refuse(*_args: object, **_kwargs: object) -> z3.CheckSatResult:
        raise AssertionError("a proof query ran before the deal shapes were checked")

    monkeypatch.setattr(Workspace, "check_step", refuse)
    with pytest.raises(ProofError, match="leaves out a deal the rules model deals"):
        prove(sem, ["kings-are-stops"], Workspace(sem, players=(3,)))


def test_an_undecided_query_is_an_error() -> None:
    with pytest.raises(ShapeError, match="was not decided within 20 s"):
        check_deal_shapes(HOYLE, SymbolicDeal(PlaySemantics.of(HOYLE), 3),
                          lambda _solver: z3.unknown)
