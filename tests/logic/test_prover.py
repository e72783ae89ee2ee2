"""The prover and the deal search: the encoding against the rules model, theorems that must be
proved, claims that must be refuted with a replayed line, and mutants that must be caught."""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic import prover
from popejoan_solver.logic.encoding import SymbolicDeal, SymbolicPosition, SymbolicStep, any_of
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.logic.lines import find_line
from popejoan_solver.logic.prover import Status, Workspace, check_sat
from popejoan_solver.logic.semantics import PlaySemantics, mutant
from popejoan_solver.logic.theorems import THEOREMS, prove
from popejoan_solver.model.cards import Rank, card_name, make_card, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.notation import deal_from_json
from popejoan_solver.model.play import Game, Position, Run, StopReason
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import solve
from tests.conftest import prove_at_three_players
from tests.logic.validated_once import Validations, validate_once

HOYLE = get_ruleset("hoyle-modernized")
PARLETT = get_ruleset("parlett")


@pytest.fixture(scope="module")
def validations() -> Validations:
    return {}


@pytest.fixture(autouse=True)
def _validated_once(validations: Validations, monkeypatch: pytest.MonkeyPatch) -> None:
    """The encoding validated against the model once per semantics in this module (no test
    here patches either; a mutant is not validated): tests/logic/validated_once.py."""
    validate_once(monkeypatch, validations)


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
            fixed = [sym.hold[c, s] if deal.holder(c) == s + 1 else z3.Not(sym.hold[c, s])
                     for c in sym.cards for s in range(players)]
            fixed += [position.played[c] if pos.played >> c & 1 else z3.Not(position.played[c])
                      for c in sym.cards]
            fixed += [v if s + 1 == pos.leader else z3.Not(v)  # the encoding's seats: from 0
                      for s, v in enumerate(position.leader)]
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
                assert emptied == (run.winner is not None)
                checked += 1
            # Illegal leads are refused by the encoding.
            for card in sym.cards:
                if card not in leads:
                    assert solver.check(*fixed, step.lead[card]) == z3.unsat
                    break
            _, pos = pos.play(rng.choice(leads))
    assert checked >= 20


@pytest.fixture(scope="module")
def hoyle_results(validations: Validations) -> dict[str, object]:
    # Two quick theorems in process at 3 players (the result's shape); tests/logic/
    # test_catalogue.py proves the whole catalogue of every named ruleset, 3 to 8 players,
    # through the command line.
    names = ["kings-are-stops", "matrimony-needs-one-hand"]
    with pytest.MonkeyPatch.context() as patch:
        validate_once(patch, validations)
        return {r.name: r for r in prove(HOYLE, names, Workspace(PlaySemantics.of(HOYLE),
                                                                 players=(3,)))}


def test_hoyle_theorems_are_proved(hoyle_results: dict[str, object]) -> None:
    for name, result in hoyle_results.items():
        assert result.status is Status.PROVED, (name, result.method)  # type: ignore[attr-defined]
        data = result.to_json()  # type: ignore[attr-defined]
        assert set(data) == {"name", "statement", "source", "status", "method",
                             "counterexample", "seconds"}


def test_parlett_kings_are_not_stops_with_a_replayed_line() -> None:
    (result,) = prove(PARLETT, ["kings-are-stops"],
                      Workspace(PlaySemantics.of(PARLETT), players=(3,)))
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
    (result,) = prove(rules, ["matrimony-needs-one-hand"],
                      Workspace(PlaySemantics.of(rules), players=(3,)))
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
        assert any(game.forced_run(0, 1, lead).winner == 1 for lead in game.legal_leads(0, 1))
    none = find_deals(FindQuery(Property.FIRST_LEAD_OUT, HOYLE, 3,
                                hold={1: 1 << parse_card("2C") | 1 << parse_card("KC")},
                                dead=1 << parse_card("5C")))
    assert none.proved_none


def test_find_matrimony_never_paid_is_verified_independently() -> None:
    result = find_deals(FindQuery(Property.MATRIMONY_NEVER_PAID, HOYLE, 8, seed=1))
    (deal,) = result.deals
    game = Game.from_deal(deal)
    king, queen = make_card(deal.trumps, Rank.KING), make_card(deal.trumps, Rank.QUEEN)
    assert deal.holder(king) == deal.holder(queen) is not None
    from popejoan_solver.logic.lines import Verdict
    both = 1 << king | 1 << queen

    def pays(played: int, winner: int | None) -> Verdict:
        if played & both == both:
            return Verdict.REACHED
        return Verdict.FAILED if winner is not None else Verdict.OPEN
    assert find_line(game, 0, 1, pays) is None


def test_find_forced_win_agrees_with_the_solver() -> None:
    result = find_deals(FindQuery(Property.FORCED_WIN, PARLETT, 8, seed=2, time_limit=120))
    (deal,) = result.deals
    seat = solve(deal, seats=[1]).seats[0]
    assert seat.forced_win.lower == 1


def test_prove_cli_json_and_errors(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """One theorem chosen by ``--theorem``, its JSON entry and an unknown theorem's error, at
    3 players (the JSON and the selection do not depend on the player count; the whole
    catalogue's verdicts at 3-8 players are tests/logic/test_catalogue.py's)."""
    prove_at_three_players(monkeypatch)
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


def test_an_interrupted_z3_check_is_an_interrupt_not_an_answer(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 takes SIGINT during check() and answers ``unknown``; that must not become a verdict,
    and the shared encodings must not keep what the interrupted query asserted."""
    def interrupted(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        return z3.unknown

    monkeypatch.setattr(z3.Solver, "check", interrupted)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "interrupted from keyboard")
    with pytest.raises(KeyboardInterrupt):
        prove(HOYLE, ["kings-are-stops"])

    ws = Workspace(PlaySemantics.of(HOYLE), players=(3,))
    ws._invariant[3] = True  # the invariant's own checks are not what this is about
    frame = ws.step_frame(3)
    before = len(frame.solver.assertions())
    with pytest.raises(KeyboardInterrupt):
        ws.check_step(3, lambda deal, position, step: step.lead[0])
    assert frame.solver.num_scopes() == 0
    assert len(frame.solver.assertions()) == before

    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "timeout")
    assert check_sat(z3.Solver()) == z3.unknown  # any other unknown stays an answer


def _pigeons(holes: int) -> z3.Solver:
    """``holes + 1`` pigeons in ``holes`` holes: unsat, and slow for z3 from about 9 holes."""
    solver = z3.Solver()
    at = [[z3.Bool(f"p{i}h{j}") for j in range(holes)] for i in range(holes + 1)]
    for row in at:
        solver.add(z3.Or(row))
    for j in range(holes):
        for i in range(holes + 1):
            for k in range(i):
                solver.add(z3.Not(z3.And(at[i][j], at[k][j])))
    return solver


def _ctrl_c_in(seconds: float) -> threading.Timer:
    """Ctrl-C to this process ``seconds`` from now (the main thread takes it)."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def _check_until(solver: z3.Solver, seconds: float) -> None:
    """Check ``solver`` (unsat) again and again for ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        assert check_sat(solver) == z3.unsat


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Python's own Ctrl-C handler (test runners and xdist workers may ignore SIGINT)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach only the main thread")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_stops_a_long_z3_check_at_once() -> None:
    """A check that would run for many seconds is cancelled within a second of Ctrl-C."""
    solver = _pigeons(11)
    started = time.monotonic()
    timer = _ctrl_c_in(0.3)
    with pytest.raises(KeyboardInterrupt):
        check_sat(solver)
    timer.join()
    assert time.monotonic() - started < 1.5
    assert check_sat(_pigeons(3)) == z3.unsat  # and the next check answers as before


@pytest.mark.usefixtures("python_ctrl_c")
def test_ctrl_c_is_not_lost_to_a_check_that_takes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """z3's own SIGINT handler (on unless the solver's ``ctrl_c`` is off) takes a Ctrl-C that
    comes during a check, and a check that finishes anyway answers as if none came: the CI run
    of a ``prove`` once exited 0 after Ctrl-C. Modelled here: such a check swallows the signal
    whenever it is allowed to take it; Ctrl-C must still stop the run."""
    real_check, real_set = z3.Solver.check, z3.Solver.set
    ctrl_c_off: set[int] = set()

    def recording_set(self: z3.Solver, *args: Any, **keys: Any) -> None:
        if keys.get("ctrl_c") is False:
            ctrl_c_off.add(id(self))
        real_set(self, *args, **keys)

    def swallowing_check(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        if id(self) in ctrl_c_off:
            time.sleep(0.1)
            return real_check(self, *assumptions)
        previous = signal.signal(signal.SIGINT, lambda signum, frame: None)
        try:
            time.sleep(0.1)
            return real_check(self, *assumptions)
        finally:
            signal.signal(signal.SIGINT, previous)

    monkeypatch.setattr(z3.Solver, "set", recording_set)
    monkeypatch.setattr(z3.Solver, "check", swallowing_check)
    solver = _pigeons(3)
    timer = _ctrl_c_in(0.25)
    with pytest.raises(KeyboardInterrupt):
        _check_until(solver, 2)
    timer.join()
    solver.push()  # an interrupt that came between checks does not stay behind in z3
    solver.pop()


@pytest.mark.usefixtures("python_ctrl_c")
@pytest.mark.parametrize("attempt", range(2))
def test_ctrl_c_among_many_short_checks_is_never_lost(attempt: int) -> None:
    """Short checks back to back, Ctrl-C among them: it is always an interrupt. With z3's own
    handler on, a signal that came during a check which then finished was swallowed (the CI
    run of a ``prove`` exited 0 after Ctrl-C)."""
    solver = _pigeons(5)
    timer = _ctrl_c_in(0.2 + 0.013 * attempt)
    with pytest.raises(KeyboardInterrupt):
        _check_until(solver, 3)
    timer.join()


def test_a_theorem_is_proved_again_after_an_interrupted_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The third check (the vacuity guard's, after the theorem's own and the deal frame's)
    is interrupted; the same workspace then proves the theorem as if nothing had happened."""
    real = z3.Solver.check
    calls = [0]

    def interrupted_once(self: z3.Solver, *assumptions: Any) -> z3.CheckSatResult:
        calls[0] += 1
        return z3.unknown if calls[0] == 3 else real(self, *assumptions)

    monkeypatch.setattr(z3.Solver, "check", interrupted_once)
    monkeypatch.setattr(z3.Solver, "reason_unknown", lambda self: "interrupted from keyboard")
    ws = Workspace(PlaySemantics.of(HOYLE), players=(3,))
    with pytest.raises(KeyboardInterrupt):
        prove(HOYLE, ["seven-of-diamonds-stop"], workspace=ws)
    assert calls[0] == 3
    [result] = prove(HOYLE, ["seven-of-diamonds-stop"], workspace=ws)
    assert result.status is Status.PROVED


def test_ctrl_c_is_never_raised_inside_z3s_python_objects() -> None:
    """Raised there, KeyboardInterrupt left half-built z3 objects (a traceback from their
    ``__del__`` at exit), became a ctypes.ArgumentError, or was printed and lost in a
    ``__del__``; the handler puts it off while a z3 frame or a ``__del__`` is on the stack."""
    assert prover._safe_to_raise(sys._getframe())
    frames: list[FrameType] = []

    def record(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and (frame.f_code.co_filename.startswith(prover._Z3_DIR)
                                or frame.f_code.co_name == "__del__"):
            frames.append(frame)

    class Finalised:
        def __del__(self) -> None:
            pass

    sys.setprofile(record)
    try:
        z3.And(z3.Bool("a"), z3.Bool("b"))
        Finalised()
    finally:
        sys.setprofile(None)
    assert any(f.f_code.co_name == "__del__" for f in frames)
    assert len(frames) > 1
    assert not any(prover._safe_to_raise(f) for f in frames)


def test_the_line_search_finds_a_counterexample_two_leads_deep() -> None:
    """"A run never stops at a played card" is false, but only from the second lead on
    (nothing is played at the outset): the bounded search must find and replay that line. A
    run that ends by emptying its player's hand ends there whatever is above (the model says
    OUT), so such an ending is not asked for."""
    rules = get_ruleset("hoyle-modernized")
    successor = rules.table.successor
    ws = Workspace(PlaySemantics.of(rules), players=(3,))

    def stops_at_played(_d: SymbolicDeal, position: SymbolicPosition,
                        step: SymbolicStep) -> z3.BoolRef:
        return any_of([z3.And(step.stop(c), z3.Not(step.empties[c]),
                              position.is_played(successor[c]))
                    for c in step.deal.cards if successor[c] >= 0])

    found = ws.search_line(stops_at_played)
    assert found is not None
    assert len(found.leads) == 2

    def seen(_deal: Deal, runs: list[Run]) -> bool:
        return runs[-1].reason is StopReason.PLAYED
    example = ws.replay(found, seen)
    assert example.replayed
    assert example.line[-1]["reason"] == StopReason.PLAYED.value
