"""The theorem catalogue of ``prove`` (``popejoan_solver/logic/theorems.py``): the early-hoyle
Pope turn-up, replayed examples, internal errors (status 4), the deadlock check of
``terminates``, the time charged to each theorem and the citations."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic.encoding import SymbolicPosition, SymbolicStep
from popejoan_solver.logic.prover import Found, ProofError, Status, TheoremResult, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import THEOREMS, prove
from popejoan_solver.model.cards import PACK, POPE, iter_mask
from popejoan_solver.model.rules import get_ruleset
from tests.conftest import prove_at_three_players
from tests.logic.validated_once import Validations, validate_once

EARLY = PlaySemantics.of(get_ruleset("early-hoyle"))


HOYLE = PlaySemantics.of(get_ruleset("hoyle-modernized"))


Replay = Callable[..., Any]


def _spy_replays(monkeypatch: pytest.MonkeyPatch, agree: bool) -> list[Found]:
    """Record every line replayed; with ``agree`` False the rules model disagrees with all."""
    seen: list[Found] = []
    original: Replay = Workspace.replay

    def replay(self: Workspace, found: Found, check: Replay, finish: bool = False,
               **role: str) -> Any:
        seen.append(found)
        return original(self, found, check if agree else lambda _d, _r: False, finish, **role)
    monkeypatch.setattr(Workspace, "replay", replay)
    return seen


@pytest.fixture(scope="module")
def early_outset() -> tuple[TheoremResult, list[Found]]:
    """early-hoyle's ``unreachable-at-outset`` at 3 players, proved once for the two tests
    below, with every line it replays recorded (each passed on to the rules model as is)."""
    with pytest.MonkeyPatch.context() as patch:
        seen = _spy_replays(patch, agree=True)
        (result,) = prove(EARLY, ["unreachable-at-outset"], Workspace(EARLY, players=(3,)))
    return result, seen


def test_pope_turned_up_is_not_a_turn_up_of_a_played_deal(
        early_outset: tuple[TheoremResult, list[Found]]) -> None:
    """Under early-hoyle the 9♦ turned up ends the deal: the claim leaves it out, and says so."""
    from popejoan_solver.logic.theorems import outset_turnups
    cards = list(iter_mask(PACK))
    ten = POPE + 1
    assert POPE not in outset_turnups(EARLY.rules, cards, ten + 1)
    assert POPE in outset_turnups(HOYLE.rules, cards, ten + 1)
    assert "played" in THEOREMS["unreachable-at-outset"].statement
    result, _ = early_outset
    assert result.status is Status.PROVED, result.method
    assert "9D turned up ends it unplayed" in result.method


def test_outset_examples_are_replayed_and_never_turn_up_pope(
        early_outset: tuple[TheoremResult, list[Found]]) -> None:
    """Every example deal of ``unreachable-at-outset`` goes through the rules model."""
    result, seen = early_outset
    assert result.status is Status.PROVED
    assert len(seen) > 40
    assert all(found.deal.turnup != POPE for found in seen)


def test_an_example_the_model_does_not_confirm_is_a_proof_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _spy_replays(monkeypatch, agree=False)
    with pytest.raises(ProofError):
        prove(HOYLE, ["unreachable-at-outset"], Workspace(HOYLE, players=(3,)))


def test_a_disagreement_is_an_internal_error_with_status_4(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    prove_at_three_players(monkeypatch)
    _spy_replays(monkeypatch, agree=False)
    assert main(["prove", "--rules", "parlett", "--theorem", "kings-are-stops"]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: internal error: ")
    assert captured.err.count("\n") == 1
    assert "a bug of popejoan" in captured.err


def test_terminates_does_not_assume_an_invariant_the_induction_failed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A false "invariant" (fails at the outset) and no legal lead anywhere: never proved.
    The frames are checked before any proof, so the frame with no legal lead is refused as
    vacuous at once (an internal error, status 4 at the command line)."""
    monkeypatch.setattr(SymbolicPosition, "stretch_invariant",
                        lambda _self: z3.BoolVal(False))
    monkeypatch.setattr(SymbolicStep, "legal", lambda _self, _card: z3.BoolVal(False))
    ws = Workspace(HOYLE, players=(3,))
    with pytest.raises(ProofError, match=r"vacuous proof: .*one legal lead"):
        prove(HOYLE, ["terminates"], ws)
    assert not ws.invariant_holds(3)


@pytest.mark.parametrize(("slip", "failure"), [
    ("every card of a run empties a hand", "a run empties two hands"),
    ("no card empties a hand", "seat 1 out after a run in which no card of its emptied"),
])
def test_each_half_of_no_run_puts_two_out_can_fail(monkeypatch: pytest.MonkeyPatch, slip: str,
                                                   failure: str) -> None:
    """"No run puts two players out" is asked as two questions (at most one card of a run
    empties a hand; a seat out after a run was emptied by one of its cards): with the run's
    emptying cards misread, each fails and ``terminates`` is not proved."""
    build = SymbolicStep.__init__

    def planted(step: SymbolicStep, position: SymbolicPosition, name: str) -> None:
        build(step, position, name)
        every = slip.startswith("every")
        step.empties = {c: step.run[c] if every else z3.BoolVal(False) for c in step.run}
    monkeypatch.setattr(SymbolicStep, "__init__", planted)
    (result,) = prove(HOYLE, ["terminates"], Workspace(HOYLE, players=(3,)))
    assert result.status is Status.UNKNOWN
    assert failure in result.method


@pytest.fixture(scope="module")
def validations() -> Validations:
    """The encoding's validation against the model, as worked out by the timed test below
    (which always runs it) for the command-line test after it (tests/logic/
    validated_once.py; neither patches the encoding or the model)."""
    return {}


def test_each_theorem_is_charged_the_shared_work_it_needed(
        validations: Validations, monkeypatch: pytest.MonkeyPatch) -> None:
    """``kings-are-stops`` reuses the one-lead frame built for ``pope-only-led``: its time
    includes it; ``played-on-top`` is charged its induction."""
    validate_once(monkeypatch, validations, reuse=False)  # every run validates, as ever
    ws = Workspace(HOYLE, players=(3,))
    first, second, third = prove(HOYLE, ["pope-only-led", "kings-are-stops", "played-on-top"],
                                 ws)
    (alone,) = prove(HOYLE, ["kings-are-stops"], Workspace(HOYLE, players=(3,)))
    step, induction = ws.shared_seconds[("step", 3)], ws.shared_seconds[("invariant", 3)]
    assert step > 0
    assert induction > 0
    assert first.seconds >= step
    assert second.seconds >= step
    assert third.seconds >= induction
    assert second.seconds >= 0.3 * alone.seconds  # wall clock: a loaded machine varies it


def test_prove_text_cites_the_work_not_our_file(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        validations: Validations) -> None:
    prove_at_three_players(monkeypatch)
    validate_once(monkeypatch, validations)
    assert main(["prove", "--theorem", "pope-only-led", "--theorem",
                 "seven-of-diamonds-stop"]) == 0
    out = capsys.readouterr().out
    assert ".txt" not in out
    assert "source: Hoffmann, Hoyle's Games Modernized (c. 1909)" in out
    assert "times overlap" in out


def test_a_line_the_model_will_not_replay_is_an_internal_error(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Parlett's kings-are-stops is refuted by a line the model replays; if the model refused
    that line, the encoding and the model disagree: status 4, not 2 (bad input)."""
    from popejoan_solver.cli import main
    from popejoan_solver.model.errors import IllegalPlayError
    from popejoan_solver.model.play import Position

    def refuse(_self: Position, lead: int) -> list[object]:
        raise IllegalPlayError("refused by the test")

    monkeypatch.setattr(Position, "outcomes", refuse)
    prove_at_three_players(monkeypatch)
    assert main(["prove", "--rules", "parlett", "--theorem", "kings-are-stops"]) == 4
    err = capsys.readouterr().err
    assert err.startswith("error: internal error: the rules model cannot replay a line")
