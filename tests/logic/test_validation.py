"""The encodings are generated from the rule table the model plays from, and checked equal to
the model (translation validation); a proof whose premise or frame is unsatisfiable is never
reported as proved (vacuity guards)."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, fields, replace
from functools import cached_property

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic.encoding import Chains
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.logic.prover import ProofError, Status, Workspace
from popejoan_solver.logic.semantics import PlaySemantics, mutant
from popejoan_solver.logic.theorems import PREMISES, THEOREMS, prove
from popejoan_solver.logic.vacuity import Premise
from popejoan_solver.logic.validation import (
    ValidationError,
    ValidationReport,
    validate_deals,
    validate_line,
    validate_symbolic,
    window_deals,
)
from popejoan_solver.model.cards import CardSet, Rank, make_card, parse_cards
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.play import Game, StopReason
from popejoan_solver.model.rules import RULESETS, Ruleset, get_ruleset
from popejoan_solver.model.table import RuleTable, compile_rules, predecessor_table
from tests.conftest import prove_at_three_players

HOYLE = get_ruleset("hoyle-modernized")
PARLETT = get_ruleset("parlett")
ACE_OF_CLUBS, TWO_OF_CLUBS, KING_OF_CLUBS = (make_card(0, r)
                                             for r in (Rank.ACE, Rank.TWO, Rank.KING))


@dataclass(frozen=True)
class ClubsAceHigh(Ruleset):
    """A test-only ruleset whose table's successor (and so its predecessor) alone is changed:
    the A♣ sits above the K♣ (its suit order, and every other table, is Hoyle's)."""

    @cached_property
    def table(self) -> RuleTable:
        successor = list(super().table.successor)
        successor[KING_OF_CLUBS], successor[ACE_OF_CLUBS] = ACE_OF_CLUBS, -1
        return replace(super().table, successor=tuple(successor),
                       predecessor=predecessor_table(tuple(successor)))


def clubs_ace_high() -> Ruleset:
    copy = ClubsAceHigh(**{f.name: getattr(HOYLE, f.name) for f in fields(HOYLE)})
    return replace(copy, name="hoyle-modernized+test-clubs-ace-high")


def test_the_encoding_follows_the_tables_successor() -> None:
    """Change only the successor: the model and the encoding both follow it, so "kings are
    stops" is refuted by a line the model replays (the K♣ leads to the A♣)."""
    rules = clubs_ace_high()
    assert rules.table.suit_order == HOYLE.table.suit_order
    assert compile_rules(rules).successor[KING_OF_CLUBS] == ACE_OF_CLUBS
    sem = PlaySemantics.of(rules)
    ws = Workspace(sem, players=(3,))
    results = {r.name: r for r in prove(sem, ["kings-are-stops", "pope-only-led"], ws)}
    kings = results["kings-are-stops"]
    assert kings.status is Status.REFUTED
    assert kings.counterexample is not None
    assert kings.counterexample.replayed
    assert ["KC", "AC"] in [step["run"][-2:] for step in kings.counterexample.line]
    assert results["pope-only-led"].status is Status.PROVED


def test_find_follows_the_tables_successor() -> None:
    """Eldest holding 3♣ to K♣ and the A♣, the 2♣ dead, goes out on the first lead when the A♣
    is above the K♣ (found), and never with the ace low (proved: no such deal)."""
    hand = CardSet.parse("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC").mask
    found = {}
    for rules in (clubs_ace_high(), HOYLE):
        query = FindQuery(Property.FIRST_LEAD_OUT, rules, 3, seat=1, hold={1: hand},
                          dead=1 << TWO_OF_CLUBS)
        found[rules.name] = find_deals(query)
    assert len(found["hoyle-modernized+test-clubs-ace-high"].deals) == 1
    assert found["hoyle-modernized"].proved_none


def test_a_successor_that_is_not_chains_is_refused() -> None:
    successor = list(HOYLE.table.successor)
    successor[KING_OF_CLUBS] = ACE_OF_CLUBS  # a cycle A♣ .. K♣ A♣
    with pytest.raises(RulesError, match="cycle"):
        Chains(tuple(successor))
    successor[KING_OF_CLUBS] = make_card(1, Rank.TWO)  # K♣ and A♦ both just below 2♦
    with pytest.raises(RulesError, match="just below"):
        Chains(tuple(successor))
    chains = Chains(HOYLE.table.successor)
    assert chains.below[TWO_OF_CLUBS] == (ACE_OF_CLUBS,)
    assert chains.above[KING_OF_CLUBS] == ()


# Translation validation.

WINDOWS = ("6D 7D 9D TD JD", "QC KC AS 2S 3S")
"""The gap of the absent 8♦ with Pope above it; the top of one suit and the bottom of the
next (under ace high, the A♠ is the top of spades)."""


@pytest.mark.parametrize("name", ["hoyle-modernized", "parlett",
                                  "hoyle-modernized+lead=lowest-in-hand"])
def test_every_small_deal_steps_and_settles_as_the_model(name: str) -> None:
    """Exhaustive over a shape: every deal of hands 2, 1, 1 drawn from a window of five cards
    (the fifth dead), every reachable position, every card the seat on lead holds, every
    finished line's settlement."""
    rules = get_ruleset(name)
    sem = PlaySemantics.of(rules)
    # one call for both windows: the encoding is built once, not once a window
    report = validate_deals(sem, itertools.chain.from_iterable(
        window_deals(sem, parse_cards(window), (2, 1, 1)) for window in WINDOWS))
    assert report.deals == 2 * 60
    assert report.leads > report.deals
    assert report.settlements >= report.deals
    if rules.lead.value != "any":
        assert report.refused > 0


def test_with_every_choice_declined_the_step_is_the_forced_run() -> None:
    """Symbolic, 3 players, Spinado: the step of a table with choice points, its choices
    declined, equals the unrolled forced run (the choices: tests/logic/test_choice_proofs.py,
    concretely; run-continues takes about 50 s under load, docs/proofs.md)."""
    validate_symbolic(PlaySemantics.of(get_ruleset("spinado")), [3])


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_full_deals_step_and_settle_as_the_model(name: str) -> None:
    """Full deals of every named ruleset, 3 to 8 players: every position of a random line,
    every card the seat on lead holds, and the settlement of the finished line."""
    rules = get_ruleset(name)
    sem = PlaySemantics.of(rules)
    rng = random.Random(name)
    report = ValidationReport()
    for players in (3, 8):
        deal = deal_random(players, seed=name, rules=rules)
        report += validate_line(sem, deal, rng)
    assert report.leads >= 10
    assert report.settlements == 2  # where each line ends, or the deal left unplayed


def test_a_broken_run_is_caught() -> None:
    """A run that passes over a dead card differs from the model on a small deal; one that
    passes over a played card differs only at positions play never reaches, which the
    concrete check never visits and the symbolic check (every position) catches."""
    window = parse_cards(WINDOWS[0])
    jumps_dead = mutant(HOYLE, "run-jumps-dead")
    with pytest.raises(ValidationError, match="run differs"):
        validate_deals(jumps_dead, window_deals(jumps_dead, window, (2, 1, 1)))
    jumps_played = mutant(HOYLE, "run-jumps-played")
    validate_deals(jumps_played, window_deals(jumps_played, window, (2, 1, 1)))
    with pytest.raises(ValidationError, match="unrolled"):
        validate_symbolic(jumps_played, [3])


def test_the_step_equals_the_unrolled_run_for_every_deal() -> None:
    """Symbolic: for every 3-player deal and position (reachable or not) and legal lead, the
    encoding's step is the run of Game.forced_run unrolled from the table (z3, unsat), under
    ace high and lowest-of-suit (the other player counts and rulesets: docs/proofs.md)."""
    validate_symbolic(PlaySemantics.of(PARLETT), [3])


# Vacuity guards.


@dataclass(frozen=True)
class NoDeal(PlaySemantics):
    """A broken encoding in which no deal exists (hands of 20 cards): every query is
    unsatisfiable, so without the guards every theorem would be "proved"."""

    def cards_per_player(self, players: int) -> int:
        return 20


def test_an_impossible_frame_is_an_internal_error() -> None:
    sem = NoDeal(HOYLE, mutant="no-deal")
    for name in ("kings-are-stops", "counters-conserved"):
        with pytest.raises(ProofError, match="vacuous proof: a deal is impossible"):
            prove(sem, [name], Workspace(sem, players=(3,)))


def test_a_premise_without_a_model_is_vacuous(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """The kings theorem made to say "a King that is also no card ends its run": its check
    passes, its premise has no model, and it is reported vacuous (status 3), not proved."""
    premise = Premise(PREMISES["kings-are-stops"].frames, "a King is played that is no card",
                      lambda _d, _p, _s: z3.BoolVal(False))
    monkeypatch.setitem(PREMISES, "kings-are-stops", premise)
    sem = PlaySemantics.of(HOYLE)
    (result,) = prove(sem, ["kings-are-stops"], Workspace(sem, players=(3, 4)))
    assert result.status is Status.VACUOUS
    assert "impossible for 3, 4 players" in result.method
    prove_at_three_players(monkeypatch)
    assert main(["prove", "--theorem", "kings-are-stops", "--json"]) == 3
    assert json.loads(capsys.readouterr().out)["theorems"][0]["status"] == "vacuous"


def test_every_theorem_has_its_premise_checked() -> None:
    """Each proof says which premise and frames were found satisfiable, and what the
    validation before the first proof compared; the stop theorems and Fact 1 are proved
    without the induction ever running (no proof assumes Fact 1)."""
    assert set(PREMISES) == set(THEOREMS)
    sem = PlaySemantics.of(HOYLE)
    ws = Workspace(sem, players=(3,))
    results = prove(sem, ["kings-are-stops", "terminates", "matrimony-needs-one-hand"], ws)
    assert [r.status for r in results] == [Status.PROVED] * 3
    assert all(any(d.startswith("not vacuous") for d in r.details) for r in results)
    assert all("60 deals" in r.details[-1] for r in results)  # validated before the first
    assert not ws._invariant  # the induction never ran


def test_prove_will_not_prove_of_a_model_the_encoding_does_not_match(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A slip in the model's play (every Queen made a stop) that the table does not show: the
    encoding still proves the claim, but the validation before the first PROVED finds the
    model's runs different, and prove exits 4 with one error line instead of a verdict."""
    real = Game.stop_reason

    def queens_stop(game: Game, card: int, played: int) -> StopReason | None:
        return StopReason.TOP if card % 13 == Rank.QUEEN else real(game, card, played)

    monkeypatch.setattr(Game, "stop_reason", queens_stop)
    prove_at_three_players(monkeypatch)
    assert main(["prove", "--theorem", "seven-of-diamonds-stop"]) == 4
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: internal error: the encoding's run differs")
    assert captured.err.count("\n") == 1
