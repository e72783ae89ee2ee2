"""Fact 3m (docs/solver.md): in the others' race to go out (fact 3f), a stretch of the seat
going out that the target's card tops gives the target the lead, and it leads a card no other
seat can run into: one card more. Both engines against the reference, a mutation test, the
conditions checked on the Python function, and the nodes it saves."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import POPE
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import Goal, Objective
from popejoan_solver.search import facts as facts_module
from popejoan_solver.search.facts import race_sure as true_race_sure
from popejoan_solver.search.facts import target_stops as true_target_stops
from popejoan_solver.search.fast import FastEngine
from tests.conftest import dense_deal
from tests.search.cores import BothCores, Reference

WRONG_DEALS = [2, 70, 97, 104]
"""Seeds of ``_deal(seed)`` (early-hoyle) on which the wrong fact 3m below gets a seat's
guaranteed value wrong (found by searching 120 seeds)."""


def _deal(seed: int, rules: str = "early-hoyle") -> tuple[Game, Board]:
    """Three or four players, four to six cards each, from two or three suits."""
    players = 3 + seed % 2
    per_hand = 4 + seed % 3 if players == 3 else 4 + seed % 2
    deal = dense_deal(players, per_hand, seed, get_ruleset(rules),
                      2 if players * per_hand <= 14 else 3)
    return Game.from_deal(deal), Board(*(1 + (seed * k) % 4 for k in range(1, 9)))


def _plain(up: tuple[int, ...], dealt: tuple[int, ...], target: int, played: int,
           held: int) -> int:
    """Fact 3f's race without fact 3m."""
    return true_race_sure(up, dealt, target, played, held)


def _race_also_in_its_topped_stretch(up: tuple[int, ...], dealt: tuple[int, ...], target: int,
                                     played: int, held: int, off_lead: bool = False,
                                     lead_any: bool = False) -> int:
    """A wrong fact 3m: one card more even where the seat goes out in its only stretch the
    target's card tops (that last run need not reach the top: the deal ends in it)."""
    plain = _plain(up, dealt, target, played, held)
    if not (off_lead and lead_any):
        return plain
    stops = true_target_stops(up, dealt, target, played, held)
    least = held.bit_count()
    for seat, cards in enumerate(dealt):
        if seat == target:
            continue
        alone = tuple(c if s in (seat, target) else 0 for s, c in enumerate(dealt))
        race = _plain(up, alone, target, played, held)
        rest = cards & ~played
        topped = False
        while rest:
            span = up[(rest & -rest).bit_length() - 1]
            rest &= ~span
            topped |= bool(span & stops)
        least = min(least, race + topped)
    return least


@pytest.mark.parametrize("rules", ["early-hoyle", "hoyle-modernized", "peel", "britannica"])
def test_the_targets_lead_in_the_race_agrees_with_reference(rules: str) -> None:
    """Every seat's value for every goal, at the first lead and after each first run, against
    the reference (britannica: a lowest-card lead rule, where fact 3m is off)."""
    for seed in [*WRONG_DEALS, 1, 3, 5]:
        game, board = _deal(seed, rules)
        fast, reference = BothCores(game, board), Reference(game, board)
        start = Position(game, 0, 1)
        positions = [start] + [start.play(lead)[1] for lead in start.legal_leads()]
        for position in positions:
            if position.is_over:
                continue
            for goal in Goal:
                for seat in range(1, game.players + 1):
                    objective = Objective(goal, seat)
                    assert (fast.value(objective, position.played, position.leader)
                            == reference.value(objective, position.played, position.leader)), (
                        rules, seed, position.played, seat, goal)


POPE_DEALS = [3, 10]
"""Seeds of ``_pope_deal`` where fact 3m raises the race in the Python engine's searches under
each ruleset of the test below (found by counting)."""


def _pope_deal(seed: int, rules: str) -> tuple[Game, Board]:
    """Three to five players, eight to five cards each from three suits, the Pope dealt."""
    players = 3 + seed % 3
    deal = dense_deal(players, 10 - players + seed % 2, seed, get_ruleset(rules), 3,
                      holding=POPE)
    return Game.from_deal(deal), Board(*(1 + (seed * k) % 4 for k in range(1, 9)))


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["early-hoyle", "peel+pope_exemption=false",
                                   "hoyle-modernized+pope_in_lieu=pope-leads"])
def test_the_targets_lead_in_the_race_with_the_pope_agrees_with_reference(
        rules: str) -> None:
    """Every seat's guaranteed value (the goal whose floor takes the race), as above, with the
    Pope dealt: exempt, or an ordinary card, or played in lieu of a stop (after which the
    forced-run search takes over)."""
    for seed in POPE_DEALS:
        game, board = _pope_deal(seed, rules)
        fast, reference = BothCores(game, board), Reference(game, board)
        start = Position(game, 0, 1)
        for position in [start] + [after for lead in start.legal_leads()
                                   for after in _afters(start, lead)]:
            if position.is_over:
                continue
            for seat in range(1, game.players + 1):
                objective = Objective(Goal.GUARANTEED, seat)
                assert (fast.value(objective, position.played, position.leader)
                        == reference.value(objective, position.played, position.leader)), (
                    rules, seed, position.played, seat)


def _afters(position: Position, lead: int) -> list[Position]:
    """The positions after each way the run of ``lead`` can go (choices inside it)."""
    return [position.after(run) for run in position.outcomes(lead)]


def test_a_wrong_lead_in_the_race_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of fact 3m: the card more counted where the seat goes out in its one
    topped stretch makes the Python engine disagree with the reference on each deal above."""
    monkeypatch.setattr(facts_module, "race_sure", _race_also_in_its_topped_stretch)
    for seed in WRONG_DEALS:
        game, board = _deal(seed)
        wrong = FastEngine(game, board, compiled=False)
        reference = Reference(game, board)
        assert any(wrong.value(Objective(Goal.GUARANTEED, seat), 0, 1)
                   != reference.value(Objective(Goal.GUARANTEED, seat), 0, 1)
                   for seat in range(1, game.players + 1)), seed


def _positions() -> Iterator[tuple[tuple[int, ...], tuple[int, ...], int, int, int]]:
    """(up, dealt, target, played, held) in slot space at the first lead and after each first
    run of 30 early-hoyle deals of eight cards each to four players from three suits, every
    seat the target."""
    for seed in range(30):
        game = Game.from_deal(dense_deal(4, 8, seed, get_ruleset("early-hoyle"), 3))
        slots = FastEngine(game, Board(), compiled=False).slots
        start = Position(game, 0, 1)
        for position in [start] + [start.play(lead)[1] for lead in start.legal_leads()]:
            if position.is_over:
                continue
            played = slots.to_slots(position.played)
            for target in range(game.players):
                yield (slots.up, slots.dealt, target, played,
                       slots.dealt[target] & ~played)


def _tops(up: tuple[int, ...], held: int, played: int) -> int:
    """The cards of ``held`` that top what is left of their stretch."""
    return sum(1 << k for k in range(52) if held >> k & 1 and up[k] & ~played == 1 << k)


def _every_top(up: tuple[int, ...], dealt: tuple[int, ...], target: int, played: int,
               held: int) -> int:
    """A wrong ``target_stops``: the target's topping cards, a free card held or not."""
    return _tops(up, held, played)


def test_the_lead_in_the_race_holds_only_where_its_argument_does(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fact 3m's conditions, on the Python function, at positions where each matters: never
    more than one card; none under a lowest-card lead rule (the target may not lead its free
    card) or with the target on lead (its own floor counts its lead); none without a free card
    (its lead may be a card the race counts already), where counting every topped stretch
    would give one."""
    gained = kept_out = 0
    for up, dealt, target, played, held in _positions():
        plain = true_race_sure(up, dealt, target, played, held)
        with_lead = true_race_sure(up, dealt, target, played, held, True, True)
        assert plain <= with_lead <= plain + 1
        assert true_race_sure(up, dealt, target, played, held, True, False) == plain
        assert true_race_sure(up, dealt, target, played, held, False, True) == plain
        gained += with_lead > plain
        if not true_target_stops(up, dealt, target, played, held):
            with monkeypatch.context() as patch:  # every topped stretch counted, free card or not
                patch.setattr(facts_module, "target_stops", _every_top)
                kept_out += true_race_sure(up, dealt, target, played, held, True, True) > plain
    assert gained >= 10, gained
    assert kept_out >= 10, kept_out


def test_the_lead_in_the_race_saves_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fact 3m is used: on a 4-player first lead (eight cards each from three suits) the Python
    engine searches fewer nodes for seat 3 with it than with it switched off (the same
    value)."""
    deal = dense_deal(4, 8, 29, get_ruleset("early-hoyle"), 3)
    game, board = Game.from_deal(deal), Board()
    objective = Objective(Goal.GUARANTEED, 3)
    with_fact = FastEngine(game, board, compiled=False)
    value = with_fact.value(objective, 0, 1)
    monkeypatch.setattr(facts_module, "target_stops", lambda *_: 0)
    without = FastEngine(game, board, compiled=False)
    assert without.value(objective, 0, 1) == value
    assert with_fact.nodes < without.nodes
