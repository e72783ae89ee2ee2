"""The compiled rule table: one source of the rules that every backend reads."""

from __future__ import annotations

import dataclasses
import random

import pytest

from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import POPE, CardSet, card_name
from popejoan_solver.model.play import Game, Position, Run
from popejoan_solver.model.rules import RULESETS, GameKind, Ruleset, get_ruleset, variant_matrix
from popejoan_solver.model.settlement import best_without_going_out, play_values
from popejoan_solver.model.table import SPIN, ChoiceKind, LeadId, RuleTable, Taker, compile_rules
from popejoan_solver.search import Goal, Objective, lead_values, solve
from popejoan_solver.search.fast import COMPILED, GOAL_IDS, FastEngine
from popejoan_solver.search.reference import ReferenceEngine
from tests.conftest import dense_deal, short_deal


@pytest.mark.skipif(not COMPILED, reason="compiled core not built")
def test_the_compiled_core_numbers_goals_lead_rules_and_choices_as_python_does() -> None:
    from popejoan_solver.search import _core  # type: ignore[attr-defined]
    assert {g.name: i for g, i in GOAL_IDS.items()} == {
        name[len("GOAL_"):]: getattr(_core, name) for name in dir(_core)
        if name.startswith("GOAL_")}
    assert {lead.name: lead.value for lead in LeadId} == {
        name[len("LEAD_"):]: getattr(_core, name) for name in dir(_core)
        if name.startswith("LEAD_")}
    assert {kind.name: kind.value for kind in ChoiceKind} == {
        name[len("CHOICE_"):]: getattr(_core, name) for name in dir(_core)
        if name.startswith("CHOICE_")}
    kinds = {point.kind for rules in variant_matrix()
             for point in compile_rules(rules).choice_points}
    assert kinds == set(ChoiceKind)  # every kind is played by some variant under test


@pytest.mark.parametrize("name", sorted(set(RULESETS) - {"spinado"}))
def test_the_table_of_each_ruleset(name: str) -> None:
    table = compile_rules(RULESETS[name])
    assert compile_rules(RULESETS[name]) is table  # compiled once
    assert not table.choice_points
    assert table.pack.bit_count() == 51
    for trumps in range(4):
        awards = {a.compartment: a for a in table.awards(trumps)}
        assert set(awards) == set(Compartment) - {Compartment.GAME}
        assert awards[Compartment.POPE].cards == (POPE,)
        assert [card_name(c) for c in awards[Compartment.MATRIMONY].cards] == [
            "K" + "CDHS"[trumps], "Q" + "CDHS"[trumps]]
        assert awards[Compartment.INTRIGUE].taker is Taker.SAME_PLAYER
    assert table.turnup_awards(CardSet.parse("QH").mask.bit_length() - 1) == (
        Compartment.QUEEN,)
    assert table.turnup_awards(POPE) == (Compartment.POPE,)
    assert table.exempt_card == POPE
    assert (table.ends_deal_turnup == POPE) == (name in ("early-hoyle", "cassell"))


def _without_pope(table: RuleTable) -> RuleTable:
    """The same table with no award for playing Pope: a rule changed in the table alone."""
    awards = tuple(tuple(a for a in by_trumps if a.compartment is not Compartment.POPE)
                   for by_trumps in table.awards_by_trumps)
    return dataclasses.replace(table, awards_by_trumps=awards)


def test_every_engine_reads_its_awards_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    # Change the rule in the table alone: the model's settlement and every engine follow it,
    # which they could not if any of them restated the awards.
    rules = RULESETS["hoyle-modernized"]
    board = Board(pope=50)
    deals = [short_deal(3, 4, seed, rules) for seed in range(30)]
    deal = next(d for d in deals if Game.from_deal(d).holder(POPE) is not None)
    engines = ["reference", "python"] + (["compiled"] if COMPILED else [])

    def values() -> dict[str, list[int]]:
        game = Game.from_deal(deal)
        out: dict[str, list[int]] = {}
        for name in engines:
            engine = (ReferenceEngine(game, board) if name == "reference"
                      else FastEngine(game, board, compiled=name == "compiled"))
            out[name] = [engine.value(Objective(Goal.BEST_CASE, s), 0, 1) for s in range(1, 4)]
        return out

    before = values()
    changed = _without_pope(compile_rules(rules))
    monkeypatch.setattr(Game, "table", property(lambda self: changed))
    after = values()
    for name in engines:
        assert after[name] == after["reference"]
        assert before[name] == before["reference"]
    assert after != before  # the Pope's 50 counters no longer go to its player
    holder = Game.from_deal(deal).holder(POPE)
    assert holder is not None
    assert after["reference"][holder - 1] < before["reference"][holder - 1]
    game = Game.from_deal(deal)
    assert play_values(game, board, game.in_play, 1) == play_values(
        game, dataclasses.replace(board, pope=0), game.in_play, 1)


PER_CARD_RULESETS = ["hoyle-modernized", "britannica", "early-hoyle", "spinado",
                     "hoyle-modernized+pope_in_lieu=pope-leads",
                     "hoyle-modernized+pope_in_lieu=run-continues"]
"""Every mode of the fast engines: forced runs under each lead rule, with and without the
Pope's exemption; payments between players (Spinado: fact 6); the Pope in lieu (the general
mode, fact 3 with the Pope a stretch of its own, then the forced runs once it is played)."""


def _fixed_table(table: RuleTable) -> property:
    """``Game.table`` as ``table`` for every game (a rule changed in the table alone)."""
    return property(lambda _game: table)


def every_value(rules: Ruleset | str, seed: int) -> dict[str, list[int]]:
    """Every seat's value for every goal at the outset of a short deal, by engine (the
    reference engine plays and settles through the model)."""
    deal = short_deal(3, 4, seed, get_ruleset(rules) if isinstance(rules, str) else rules)
    game, board = Game.from_deal(deal), Board(pope=3, matrimony=2, game=2)
    engines = ["reference", "python"] + (["compiled"] if COMPILED else [])
    out: dict[str, list[int]] = {}
    for name in engines:
        engine = (ReferenceEngine(game, board) if name == "reference"
                  else FastEngine(game, board, compiled=name == "compiled"))
        out[name] = [engine.value(Objective(goal, seat), 0, 1)
                     for goal in Goal for seat in range(1, 4)]
    return out


@pytest.mark.parametrize("name", PER_CARD_RULESETS)
def test_every_engine_reads_the_payment_per_card_left_from_the_table(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # The payment for each card left, changed in the table alone: the reference engine settles
    # through the model, the fast engines scale their payoff, their static bounds and every
    # fact that counts cards by it (the C core takes it from the table with the awards).
    # With 0 only the Game and the awards are paid.
    seeds = range(4)
    one = {seed: every_value(name, seed) for seed in seeds}
    table = compile_rules(get_ruleset(name))
    for per_card in (0, 2, 3):
        changed = dataclasses.replace(table, per_card_left=per_card)
        with monkeypatch.context() as patch:
            patch.setattr(Game, "table", _fixed_table(changed))
            values = {seed: every_value(name, seed) for seed in seeds}
        for seed, by_engine in values.items():
            for engine, found in by_engine.items():
                assert found == by_engine["reference"], (name, per_card, seed, engine)
        assert any(values[s]["reference"] != one[s]["reference"] for s in seeds), per_card


@pytest.mark.parametrize("name", ["hoyle-modernized", "spinado"])
def test_a_solve_and_the_leads_read_the_payment_per_card_left_from_the_table(
        monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    # The driver's static bounds, the compiled core's batch of leads (its own static bounds,
    # and the most the leader ends with in hand, which decides a forced win) read it too.
    changed = dataclasses.replace(compile_rules(get_ruleset(name)), per_card_left=2)
    monkeypatch.setattr(Game, "table", _fixed_table(changed))
    for seed in range(3):
        deal = short_deal(3, 4, seed, get_ruleset(name))
        fast, reference = solve(deal, threads=1), solve(deal, engine="reference")
        assert fast.seats == reference.seats, seed
        assert fast.leads == reference.leads, seed
        assert lead_values(deal) == lead_values(deal, engine="reference"), seed


@pytest.mark.skipif(not COMPILED, reason="compiled core not built")
@pytest.mark.parametrize("rules", variant_matrix(), ids=lambda r: r.name)
def test_the_compiled_core_leads_and_settles_as_the_table_says(rules: Ruleset) -> None:
    # The C core restates for speed the lead rule (its own lead generator), the runs (stretches
    # from the table's suit order, and the choices inside them) and the settlement of a finished
    # deal (the Game, the awards' shares, the payment for each card left, the exempt card): at
    # positions along random lines, its leads are the model's legal leads, every lead whose run
    # ends the deal is worth what the model's settlement of the table pays, and every seat's
    # value for every goal is the reference engine's (which plays and settles through the
    # model).
    rng = random.Random(2026)
    board = Board(pope=3, matrimony=2, intrigue=4, ace=1, king=1, queen=2, jack=1, game=5)
    endings = 0
    held = SPIN if rules.game is GameKind.SPINADO else POPE  # the card the table singles out
    for seed in range(6):
        deal = (dense_deal(3 + seed % 2, 4, seed, rules, 2, held) if seed % 3
                else short_deal(3, 4, seed, rules))
        game = Game.from_deal(deal)
        position = Position(game, deal.played_mask, deal.leader)
        engine = FastEngine(game, board, compiled=True)
        reference = ReferenceEngine(game, board)
        while not position.is_over:
            leader = position.leader
            for goal in Goal:
                for seat in range(1, game.players + 1):
                    objective = Objective(goal, seat)
                    assert engine.value(objective, position.played, leader) == reference.value(
                        objective, position.played, leader), (rules.name, seed, goal, seat)
            staying = best_without_going_out(game, board, leader)
            batch = engine.lead_values(position.played, leader, True, staying)
            assert batch is not None
            found, exact = batch
            assert exact
            assert sorted(found) == sorted(position.legal_leads()), (rules.name, seed)
            for lead, (value, win) in found.items():
                tree = game.run_tree(position.played, leader, lead)
                if isinstance(tree, Run) and tree.winner is not None:
                    paid = play_values(game, board, position.after(tree).played, tree.winner)
                    assert value == (paid[leader - 1],) * 2, (rules.name, seed, lead)
                    assert win == (int(tree.winner == leader),) * 2, (rules.name, seed, lead)
                    endings += 1
            position = position.play(rng.choice(position.legal_leads()))[1]
    assert endings
