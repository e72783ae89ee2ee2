"""The prover and the deal search: the encoding against the rules model, theorems that must be
proved, claims that must be refuted with a replayed line, and mutants that must be caught."""

from __future__ import annotations

import json
import random

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic.encoding import SymbolicDeal, SymbolicPosition, SymbolicStep
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.logic.lines import find_line
from popejoan_solver.logic.prover import Status, Workspace
from popejoan_solver.logic.semantics import PlaySemantics, mutant
from popejoan_solver.logic.theorems import THEOREMS, prove
from popejoan_solver.model.cards import Rank, card_name, make_card, parse_card
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_from_json
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import solve

HOYLE = get_ruleset("hoyle-modernized")
PARLETT = get_ruleset("parlett")


@pytest.mark.parametrize(("rules_name", "players"), [("hoyle-modernized", 3), ("parlett", 5),
                                                     ("early-hoyle", 8)])
def test_encoded_run_is_the_models_run(rules_name: str, players: int) -> None:
    """Fix a deal, a reachable position and a lead: the z3 run equals the model's, card by card."""
    rules = get_ruleset(rules_name)
    sym = SymbolicDeal(PlaySemantics.of(rules), players)
    position = SymbolicPosition.fresh(sym, "p")
    step = SymbolicStep(position, "s")
    solver = z3.Solver()
    solver.add(*sym.constraints(), *position.well_formed(), *step.constraints)
    rng = random.Random(7)
    checked = 0
    for index in range(4):
        deal = deal_random(players, seed=11, rules=rules, index=index)
        game = Game.from_deal(deal)
        pos = Position.from_deal(deal)
        while not pos.is_over and checked < 40:
            fixed = [sym.hold[c, s] if deal.holder(c) == s else z3.Not(sym.hold[c, s])
                     for c in sym.cards for s in range(players)]
            fixed += [position.played[c] if pos.played >> c & 1 else z3.Not(position.played[c])
                      for c in sym.cards]
            fixed += [v if s == pos.leader else z3.Not(v) for s, v in enumerate(position.leader)]
            fixed.append(sym.turnup[deal.turnup])
            leads = pos.legal_leads()
            for lead in rng.sample(leads, min(3, len(leads))):
                assert solver.check(*fixed, step.lead[lead]) == z3.sat
                model = solver.model()
                run = game.forced_run(pos.played, pos.leader, lead)
                ran = {c for c in sym.cards if z3.is_true(model.eval(step.run[c]))}
                assert ran == set(run.cards)
                stops = [c for c in sym.cards if z3.is_true(model.eval(step.stop(c)))]
                assert stops == [run.stop_card]
                emptied = z3.is_true(model.eval(step.empties[run.stop_card]))
                assert emptied == (run.winner >= 0)
                checked += 1
            # Illegal leads are refused by the encoding.
            for card in sym.cards:
                if card not in leads:
                    assert solver.check(*fixed, step.lead[card]) == z3.unsat
                    break
            _, pos = pos.play(rng.choice(leads))
    assert checked >= 20


@pytest.fixture(scope="module")
def hoyle_results() -> dict[str, object]:
    # Two quick theorems in process (the result's shape); tests/test_catalogue.py proves the
    # whole catalogue of every named ruleset through the command line.
    names = ["kings-are-stops", "matrimony-needs-one-hand"]
    return {r.name: r for r in prove(HOYLE, names)}


def test_hoyle_theorems_are_proved(hoyle_results: dict[str, object]) -> None:
    for name, result in hoyle_results.items():
        assert result.status is Status.PROVED, (name, result.method)  # type: ignore[attr-defined]
        data = result.to_json()  # type: ignore[attr-defined]
        assert set(data) == {"name", "statement", "source", "status", "method",
                             "counterexample", "seconds"}


def test_parlett_kings_are_not_stops_with_a_replayed_line() -> None:
    (result,) = prove(PARLETT, ["kings-are-stops"])
    assert result.status is Status.REFUTED
    example = result.counterexample
    assert example is not None
    assert example.replayed
    deal = deal_from_json(example.deal)
    pos = Position.from_deal(deal)
    for step in example.line:
        run, pos = pos.play(parse_card(step["lead"]))
        assert step["run"] == [card_name(c) for c in run.cards]
    kings = [c for c in run.cards[:-1] if c % 13 == Rank.KING]
    assert kings, "the last run must pass a king"


def test_divided_pairs_pay_matrimony_across_hands() -> None:
    rules = HOYLE.with_options({"pairs": "divided"})
    (result,) = prove(rules, ["matrimony-needs-one-hand"])
    assert result.status is Status.REFUTED
    assert result.counterexample is not None
    assert result.counterexample.replayed


@pytest.mark.parametrize(("name", "theorems"), [
    ("eight-in-pack", ["pope-only-led", "seven-of-diamonds-stop"]),
    ("run-jumps-dead", ["below-dead-is-stop"]),
    ("halves-round-up", ["counters-conserved"]),
])
def test_mutants_are_refuted(name: str, theorems: list[str]) -> None:
    ws = Workspace(mutant(HOYLE, name), players=(3, 4))
    for result in prove(mutant(HOYLE, name), theorems, ws):
        assert result.status is Status.REFUTED, (name, result.name, result.method)
        assert result.counterexample is not None


def test_run_jumping_played_cards_changes_nothing_reachable() -> None:
    """The jump mutant differs from the rules only at positions play never reaches (Fact 1):
    the theorems about play stay proved, yet its one-step encoding does differ at a position
    that breaks Fact 1 (the symbolic translation validation catches it: test_validation)."""
    sem = mutant(HOYLE, "run-jumps-played")
    ws = Workspace(sem, players=(3,))
    results = {r.name: r.status for r in prove(sem, ["played-on-top", "pope-only-led"], ws)}
    assert results == {"played-on-top": Status.PROVED, "pope-only-led": Status.PROVED}
    # Without Fact 1, a position with a gap under a played card makes the two rules differ.
    deal = SymbolicDeal(sem, 3)
    position = SymbolicPosition.fresh(deal, "p")
    step = SymbolicStep(position, "s")
    solver = z3.Solver()
    solver.add(*deal.constraints(), *position.well_formed(), z3.Not(position.over()),
               *step.constraints)
    two, three, four = (make_card(0, r) for r in (Rank.TWO, Rank.THREE, Rank.FOUR))
    assert solver.check(position.played[three], z3.Not(position.played[four]),
                        deal.in_play(four), step.lead[two], step.run[four]) == z3.sat
    solver.add(position.stretch_invariant())
    assert solver.check(position.played[three], step.lead[two], step.run[four]) == z3.unsat


def test_find_first_lead_out_and_a_proof_of_none() -> None:
    result = find_deals(FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 4, count=2, seed=3))
    assert len(result.deals) == 2
    for deal in result.deals:
        game = Game.from_deal(deal)
        assert any(game.forced_run(0, 0, lead).winner == 0 for lead in game.legal_leads(0, 0))
    none = find_deals(FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 3,
                                hold={0: 1 << parse_card("2C") | 1 << parse_card("KC")},
                                dead=1 << parse_card("5C")))
    assert none.proved_none


def test_find_matrimony_never_paid_is_verified_independently() -> None:
    result = find_deals(FindQuery(Property.MATRIMONY_NEVER_PAID, HOYLE, 8, seed=1))
    (deal,) = result.deals
    game = Game.from_deal(deal)
    king, queen = make_card(deal.trumps, Rank.KING), make_card(deal.trumps, Rank.QUEEN)
    assert deal.holder(king) == deal.holder(queen) >= 0
    from popejoan_solver.logic.lines import Verdict
    both = 1 << king | 1 << queen

    def pays(played: int, winner: int) -> Verdict:
        if played & both == both:
            return Verdict.REACHED
        return Verdict.FAILED if winner >= 0 else Verdict.OPEN
    assert find_line(game, 0, 0, pays) is None


def test_find_forced_win_agrees_with_the_solver() -> None:
    result = find_deals(FindQuery(Property.FORCED_WIN, PARLETT, 8, seed=2, time_limit=120))
    (deal,) = result.deals
    seat = solve(deal, seats=[1]).seats[0]
    assert seat.forced_win.lower == 1


def test_prove_cli_json_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["prove", "--rules", "parlett", "--theorem", "seven-of-diamonds-stop", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    (entry,) = data["theorems"]
    assert entry["status"] == "proved"
    assert entry["counterexample"] is None
    assert main(["prove", "--theorem", "no-such-theorem"]) == 2
    assert capsys.readouterr().err.startswith("error: ")
    assert set(THEOREMS) >= {"pope-only-led", "kings-are-stops", "seven-of-diamonds-stop",
                             "below-dead-is-stop", "unreachable-at-outset", "terminates",
                             "counters-conserved", "six-of-eight-pools",
                             "matrimony-needs-one-hand"}


def test_find_cli_contract(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["find", "first-lead-out", "--players", "5", "--json", "--seed", "4"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(data) == {"deals", "stats"}
    assert len(data["deals"]) == 1
    assert main(["find", "first-lead-out", "--players", "3", "--hold", "1:2C,KC",
                 "--dead", "5C"]) == 1
    assert "no such deal exists" in capsys.readouterr().out
    for bad in (["--hold", "9:2C"], ["--hold", "1-2C"], ["--players", "2"], ["--dead", "XX"]):
        assert main(["find", "forced-win", *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ")
        assert err.count("\n") == 1
