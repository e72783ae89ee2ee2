"""The symbolic check of the choices inside a run (``validate_choices``): for every deal,
position and legal lead of 3 players, the encoding takes Spin or the Pope in lieu exactly where
the model's run tree offers it, with the model's run; slips planted in the encoding's choice
rules (a rule dropped, a rule made stricter, a choice forced off outside the rules) are each
caught."""

from __future__ import annotations

import pytest
import z3

from popejoan_solver.logic.encoding import FALSE, SymbolicStep
from popejoan_solver.logic.prover import Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.logic.validation import (
    ValidationError,
    choice_queries,
    validate_choices,
)
from popejoan_solver.model.cards import parse_card
from popejoan_solver.model.rules import get_ruleset

AFTER_KING = "hoyle-modernized+pope_in_lieu=pope-leads-after-king"


def test_the_encodings_choices_are_the_models() -> None:
    """Spinado's are checked by ``prove`` (test_prove_checks_the_choices_before_a_proof)."""
    assert validate_choices(PlaySemantics.of(get_ruleset(AFTER_KING)), [3]) > 0


def test_no_choice_points_no_queries() -> None:
    assert choice_queries(PlaySemantics.of(get_ruleset("hoyle-modernized")), 3) == []


def _slipped(monkeypatch: pytest.MonkeyPatch, slip: object) -> None:
    """Plant ``slip(step)`` after every step is built."""
    real = SymbolicStep.__init__

    def planted(self: SymbolicStep, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        slip(self)  # type: ignore[operator]

    monkeypatch.setattr(SymbolicStep, "__init__", planted)


def _query(name: str, which: str) -> z3.Solver:
    queries = dict(choice_queries(PlaySemantics.of(get_ruleset(name)), 3))
    return queries[which]


def test_a_choice_rule_dropped_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Pope in lieu free anywhere (its rule left out): the encoding takes it where the
    model does not offer it."""
    def drop(step: SymbolicStep) -> None:
        step.constraints = [t for t in step.constraints
                            if not any(t.eq(r) for r in step.choice_rules)]
        step.choice_rules = []

    _slipped(monkeypatch, drop)
    assert _query("hoyle-modernized+pope_in_lieu=pope-leads", "in_lieu-allows").check() \
        == z3.sat


def _spin_refused_on_the_queen_of_spades(step: SymbolicStep) -> None:
    """A choice rule made stricter: Spin never played on the Q♠."""
    queen = parse_card("QS")
    if queen in step.spin_on:
        rule = z3.Implies(step.spin_on[queen], FALSE)
        step.constraints.append(rule)
        step.choice_rules.append(rule)


@pytest.fixture(scope="module")
def stricter_spin_stops_prove() -> ValidationError:
    """``prove`` of a Spinado theorem with Spin never played on the Q♠ (no window deal of the
    concrete check holds it): the check's error, shared by the two tests that read it (one
    run of ``prove``, which asks every query of :func:`validate_choices`)."""
    with pytest.MonkeyPatch.context() as patch:
        _slipped(patch, _spin_refused_on_the_queen_of_spades)
        sem = PlaySemantics.of(get_ruleset("spinado"))
        with pytest.raises(ValidationError, match="choices differ from the model's") as caught:
            prove(sem, ["aces-are-stops"], workspace=Workspace(sem, players=(3,)))
    return caught.value


def test_a_choice_rule_made_stricter_is_caught(
        stricter_spin_stops_prove: ValidationError) -> None:
    """Spin never played on the Q♠: the model offers it there, the encoding refuses (the
    ``refuses`` query is satisfiable, and it is the one that fails)."""
    assert "(spin-refuses, spinado, 3 players): z3 says sat:" in str(stricter_spin_stops_prove)


def test_a_choice_forced_off_outside_the_rules_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A constraint on a choice that is not a choice rule would hide from the ``refuses``
    query: the check refuses to run on it."""
    _slipped(monkeypatch, lambda step: step.constraints.append(step.in_lieu == FALSE))
    with pytest.raises(ValidationError, match="neither a definition"):
        validate_choices(PlaySemantics.of(get_ruleset(AFTER_KING)), [3])


def test_prove_checks_the_choices_before_a_proof(
        stricter_spin_stops_prove: ValidationError) -> None:
    """``prove`` on a ruleset with a choice runs the symbolic check first: a proof says so
    (so Spinado's choices are the model's at 3 players), and a slip in the choice rules
    stops it with the check's error, before any PROVED."""
    sem = PlaySemantics.of(get_ruleset("spinado"))
    [result] = prove(sem, ["aces-are-stops"], workspace=Workspace(sem, players=(3,)))
    assert any("the choices inside a run equal the model's" in d for d in result.details)
    assert "choices differ from the model's" in str(stricter_spin_stops_prove)
