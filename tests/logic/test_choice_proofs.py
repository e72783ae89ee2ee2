"""Choices inside a run in the proofs: the z3 step has exactly the model's outcomes (Spin, the
Pope in lieu of a stop in each reading), and ``prove`` gives each variant its verdicts."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import pytest

from popejoan_solver.cli import main
from popejoan_solver.logic.encoding import FALSE, SymbolicStep
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.logic.prover import Status, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.logic.validation import (
    ValidationError,
    validate_deals,
)
from popejoan_solver.model.cards import POPE, iter_mask, parse_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.notation import deal_from_json
from popejoan_solver.model.play import Choice, Game, Position, RunTree
from popejoan_solver.model.rules import Ruleset, get_ruleset
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



@pytest.mark.parametrize(("rules", "prop"), [
    ("spinado", "first-lead-out"), ("hoyle-modernized+pope_in_lieu=pope-leads",
                                    "matrimony-never-paid")])
def test_find_still_refuses_a_choice_with_one_line(rules: str, prop: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Only forced-win reads choices (through the search engines); the other properties'
    exact checks and learned clauses follow the forced run (docs/proofs.md): one error line
    naming the property and the option, status 2."""
    assert main(["find", "--rules", rules, prop, "--players", "3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: find {prop} does not support ")
    assert compile_rules(get_ruleset(rules)).choice_points[0].option in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(("rules", "theorem", "step"), [
    ("hoyle-modernized+pope_in_lieu=pope-leads", "pope-only-led", "+9D@"),
    ("hoyle-modernized+pope_in_lieu=run-continues", "pope-in-lieu-player-leads", "+9D@"),
    ("spinado", "played-on-top", "+AD@"),
])
def test_a_refutation_is_a_line_the_model_plays_with_its_choice(rules: str, theorem: str,
                                                                step: str) -> None:
    """The found line's last run takes the choice, and replaying it through the model (the
    outcome with the encoding's cards) shows what the theorem denies (3 players)."""
    sem = PlaySemantics.of(get_ruleset(rules))
    [result] = prove(sem, [theorem], workspace=Workspace(sem, players=(3,)))
    assert result.status is Status.REFUTED
    assert result.counterexample is not None
    assert result.counterexample.replayed
    line = result.counterexample.line
    assert step in line[-1]["step"]
    deal = deal_from_json(result.counterexample.deal)
    position = Position.from_deal(deal)
    for run in line:
        [played] = [r for r in position.outcomes(parse_card(run["lead"]))
                    if r.step == run["step"]]
        position = position.after(played)
    last = line[-1]
    if theorem == "pope-in-lieu-player-leads":
        assert last["next_leader"] != deal.holder(POPE)
    if theorem == "pope-only-led":
        assert "9D" in last["run"][1:]


@pytest.mark.parametrize(("rules", "theorem"), [
    ("spinado", "pope-only-led"), ("spinado", "matrimony-needs-one-hand"),
    ("hoyle-modernized", "aces-are-stops"), ("hoyle-modernized", "pope-in-lieu-player-leads"),
])
def test_a_theorem_that_does_not_apply_says_why(rules: str, theorem: str) -> None:
    with pytest.raises(RulesError, match="does not apply"):
        prove(get_ruleset(rules), [theorem])


def _forces_with_choices(deal: Deal, seat: int) -> bool:
    """Plain minimax over every lead and every choice inside its run (``Game.run_tree``):
    ``seat`` takes its own leads and choices, the others theirs; does it go out first?"""
    game = Game.from_deal(deal)
    memo: dict[tuple[int, int], bool] = {}

    def tree_wins(position: Position, tree: RunTree) -> bool:
        if isinstance(tree, Choice):
            options = (tree_wins(position, option) for option in tree.options)
            return any(options) if tree.chooser == seat else all(options)
        return wins(position.after(tree))

    def wins(position: Position) -> bool:
        key = (position.played, position.leader)
        if key not in memo:
            if position.is_over:
                memo[key] = position.winner == seat
            else:
                after = (tree_wins(position, game.run_tree(position.played, position.leader,
                                                           lead))
                         for lead in position.legal_leads())
                memo[key] = any(after) if position.leader == seat else all(after)
        return memo[key]
    return wins(Position(game, 0, 1))


def _completions(rules: Ruleset, base: Deal, free: list[int]) -> Iterator[Deal]:
    """Every deal with ``base``'s cards but ``free`` in place, the free cards anywhere that
    keeps the hand sizes (the turn-up: the first dead card)."""
    places = [*range(base.players), -1]
    fixed = [base.hands[s] & ~sum(1 << c for c in free) for s in range(base.players)]
    dead = base.dead & ~sum(1 << c for c in free)
    for where in itertools.product(places, repeat=len(free)):
        hands, rest = list(fixed), dead
        for card, place in zip(free, where, strict=True):
            if place < 0:
                rest |= 1 << card
            else:
                hands[place] |= 1 << card
        if [h.bit_count() for h in hands] == [h.bit_count() for h in base.hands]:
            yield Deal.create(tuple(hands), rest, next(iter_mask(rest)), rules)


@pytest.mark.parametrize(("name", "seed"), [("spinado", 4), ("spinado", 1),
                                          ("hoyle-modernized+pope_in_lieu=pope-leads", 2)])
def test_find_forced_win_with_choices_agrees_with_minimax(name: str, seed: int) -> None:
    """find forced-win reads the choices through the search engines: around a deal with the
    choice card dealt (8 players), the choice card, two cards in play and a dead one left
    free, find returns exactly the classes of deals an independent minimax over every choice
    says seat 1 wins by force (the seeds give some that do and some that do not)."""
    rules = get_ruleset(name)
    card = compile_rules(rules).choice_points[0].card
    base = deal_holding(name, card, 8, rules.table.cards_per_player(8), seed)
    rng = random.Random(seed)
    in_play = [c for c in iter_mask(rules.table.pack) if c != card and base.holder(c) is not None]
    free = [card, *rng.sample(in_play, 2), rng.choice(list(iter_mask(base.dead)))]
    deals = list(_completions(rules, base, free))
    expected = {d.hands for d in deals if _forces_with_choices(d, 1)}
    assert 0 < len(expected) < len(deals)
    mask = sum(1 << c for c in free)
    hold = {s + 1: base.hands[s] & ~mask for s in range(8)}
    query = FindQuery(Property.FORCED_WIN, rules, 8, 1, {s: m for s, m in hold.items() if m},
                      base.dead & ~mask, count=len(expected) + 3)
    result = find_deals(query)
    assert {d.hands for d in result.deals} == expected
    assert result.stats.exhausted
    assert not result.stats.undecided
