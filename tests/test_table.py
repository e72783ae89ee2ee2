"""The compiled rule table: one source of the rules that every backend reads."""

from __future__ import annotations

import dataclasses

import pytest

from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import POPE, CardSet, card_name
from popejoan_solver.model.play import Game
from popejoan_solver.model.rules import RULESETS, variant_matrix
from popejoan_solver.model.settlement import play_values
from popejoan_solver.model.table import ChoiceKind, LeadId, RuleTable, Taker, compile_rules
from popejoan_solver.search import Goal, Objective
from popejoan_solver.search.fast import COMPILED, GOAL_IDS, FastEngine
from popejoan_solver.search.reference import ReferenceEngine

from .conftest import short_deal


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
    deal = next(d for d in deals if Game.from_deal(d).holder[POPE] >= 0)
    engines = ["reference", "python"] + (["compiled"] if COMPILED else [])

    def values() -> dict[str, list[int]]:
        game = Game.from_deal(deal)
        out: dict[str, list[int]] = {}
        for name in engines:
            engine = (ReferenceEngine(game, board) if name == "reference"
                      else FastEngine(game, board, compiled=name == "compiled"))
            out[name] = [engine.value(Objective(Goal.BEST_CASE, s), 0, 0) for s in range(3)]
        return out

    before = values()
    changed = _without_pope(compile_rules(rules))
    monkeypatch.setattr(Game, "table", property(lambda self: changed))
    after = values()
    for name in engines:
        assert after[name] == after["reference"]
        assert before[name] == before["reference"]
    assert after != before  # the Pope's 50 counters no longer go to its player
    holder = Game.from_deal(deal).holder[POPE]
    assert after["reference"][holder] < before["reference"][holder]
    game = Game.from_deal(deal)
    assert play_values(game, board, game.in_play, 0) == play_values(
        game, dataclasses.replace(board, pope=0), game.in_play, 0)
