"""Choices inside a run in the proofs: the z3 step has exactly the model's outcomes (Spin, the
Pope in lieu of a stop in each reading), and ``prove`` gives each variant its verdicts."""

from __future__ import annotations

import pytest

from popejoan_solver.cli import main
from popejoan_solver.logic.encoding import FALSE, SymbolicStep
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.validation import (
    ValidationError,
    validate_deals,
)
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.table import compile_rules
from tests.conftest import deal_holding

LIEU = ("pope-leads", "run-continues", "pope-leads-after-king")
CHOOSING = [f"hoyle-modernized+pope_in_lieu={r}" for r in LIEU] + ["spinado"]


def _holding(name: str, seeds: range) -> list[Deal]:
    card = compile_rules(get_ruleset(name)).choice_points[0].card
    return [deal_holding(name, card, players, 3, seed) for players in (3, 4) for seed in seeds]


@pytest.mark.parametrize("name", CHOOSING)
def test_every_outcome_of_a_lead_is_the_encodings(name: str) -> None:
    """Short deals with the choice card dealt (``prove`` validates its windows itself, in
    the catalogue test): every reachable position by every outcome, every card the leader
    holds, the set of runs it can end in."""
    sem = PlaySemantics.of(get_ruleset(name))
    report = validate_deals(sem, _holding(name, range(2)))
    assert report.leads > report.deals
    assert report.settlements >= report.deals


def _some_choice_taken(name: str) -> bool:
    """Does any lead of the held deals end in more than one run (a choice offered)?"""
    for deal in _holding(name, range(2)):
        position = Position.from_deal(deal)
        if any(len(position.outcomes(lead)) > 1 for lead in position.legal_leads()):
            return True
    return False


@pytest.mark.parametrize("name", ["hoyle-modernized+pope_in_lieu=run-continues", "spinado"])
def test_an_encoding_without_the_choice_is_caught(name: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Validation fails when the step cannot take the choice (its decision forced false)."""
    assert _some_choice_taken(name)
    real = SymbolicStep.__init__

    def declining(self: SymbolicStep, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        self.constraints += [v == FALSE for v in self.spin_on.values()]
        self.constraints.append(self.in_lieu == FALSE)

    monkeypatch.setattr(SymbolicStep, "__init__", declining)
    sem = PlaySemantics.of(get_ruleset(name))
    with pytest.raises(ValidationError, match="run differs"):
        validate_deals(sem, _holding(name, range(2)))



@pytest.mark.parametrize("rules", ["spinado", "hoyle-modernized+pope_in_lieu=pope-leads"])
def test_find_still_refuses_a_choice_with_one_line(rules: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The SAT deal search has no choices yet (docs/proofs.md): one error line naming the
    option, status 2."""
    assert main(["find", "--rules", rules, "forced-win", "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: find does not support ")
    assert compile_rules(get_ruleset(rules)).choice_points[0].option in err
    assert err.count("\n") == 1
