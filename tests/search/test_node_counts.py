"""The fast engines' node counts on fixed deals, pinned: a change to the search's code that is
meant to change no search (a refactor, a move) must leave every count as it was. A change
that means to (a new fact, another move order) updates the golden file with
``pytest --update-golden`` and says so, with the counts before and after."""

from __future__ import annotations

import json

from popejoan_solver.model.cards import POPE
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import Goal, Objective, solve
from popejoan_solver.search.api import play_board
from popejoan_solver.search.driver import Driver
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.leads import evaluate_leads
from tests.conftest import ROOT, dense_deal, short_deal

GOLDEN = ROOT / "tests" / "golden" / "node-counts.json"

FULL_DEALS = [("hoyle-modernized", 3, 0), ("hoyle-modernized", 4, 1), ("hoyle-modernized", 5, 2),
              ("britannica", 3, 0), ("parlett", 5, 1), ("early-hoyle", 3, 2), ("peel", 3, 3),
              ("hoyle-modernized+pools=five", 3, 4), ("spinado", 3, 0), ("spinado", 5, 1)]
"""(ruleset, players, index) of ``deal_random(players, 2026, rules, index)``: full tables of
the compiled core, the forced-run modes and Spinado's payments."""

SHORT_DEALS = ["hoyle-modernized", "britannica", "early-hoyle", "peel+pairs=divided",
               "hoyle-modernized+lead=lowest-in-hand", "spinado", "spinado+lead=any",
               "hoyle-modernized+pope_in_lieu=pope-leads",
               "hoyle-modernized+pope_in_lieu=run-continues",
               "hoyle-modernized+pope_in_lieu=pope-leads-after-king"]
"""Rulesets of the short deals both engines search: every mode of the Python kernels too
(forced runs under each lead rule, payments between players, the Pope in lieu)."""


def _short(name: str, seed: int) -> Deal:
    rules = get_ruleset(name)
    if "pope_in_lieu" in name:
        return dense_deal(3, 4, seed, rules, 2, POPE)
    return short_deal(3 + seed % 2, 5, seed, rules)


def _engine_counts(deal: Deal, compiled: bool) -> list[int]:
    """The nodes of every seat's value for every goal at the outset on one engine, then of
    every lead's value through the driver on a fresh one."""
    game = Game.from_deal(deal)
    board, _ = play_board(deal)
    engine = FastEngine(game, board, compiled=compiled)
    for goal in Goal:
        for seat in range(1, game.players + 1):
            engine.value(Objective(goal, seat), deal.played_mask, deal.leader)
    driver = Driver(FastEngine(game, board, compiled=compiled), game, board, None)
    position = Position(game, deal.played_mask, deal.leader)
    for lead in position.legal_leads():
        driver.lead_value(position, lead)
    return [engine.nodes, driver.engine.nodes]


def _counts() -> dict[str, object]:
    """Every count the golden file pins."""
    out: dict[str, object] = {}
    if COMPILED:
        for name, players, index in FULL_DEALS:
            deal = deal_random(players, 2026, get_ruleset(name), index)
            out[f"full {name} {players} {index}"] = [
                solve(deal, threads=1).stats.nodes, evaluate_leads(deal).nodes]
    for name in SHORT_DEALS:
        for seed in range(2):
            deal = _short(name, seed)
            engines = [True, False] if COMPILED else [False]
            out[f"short {name} {seed}"] = {("compiled" if compiled else "python"):
                                           _engine_counts(deal, compiled) for compiled in engines}
    return out


def test_the_node_counts_are_the_golden_ones(update_golden: bool) -> None:
    counts = _counts()
    if update_golden and COMPILED:
        GOLDEN.write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    if not COMPILED:  # the Python engine's counts only
        golden = {key: {"python": found["python"]} for key, found in golden.items()
                  if key.startswith("short ")}
    assert counts == golden
