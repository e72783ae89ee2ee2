from __future__ import annotations

import json
from importlib.resources.abc import Traversable
from pathlib import Path

import networkx as nx
import pytest

from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.examples import hoyle_dead_hand
from popejoan_solver.model.play import Position
from popejoan_solver.model.stops import View, analyse_stops
from popejoan_solver.search.graph import GraphTooLargeError, build_graph, export, summarise
from popejoan_solver.studies.cases import check_case, load_case, load_cases, published_cases
from tests.model.test_play_and_settlement import composed

CASES = sorted((f for f in published_cases().iterdir() if f.name.endswith(".toml")),
               key=lambda f: f.name)


def _names(cards: tuple[int, ...]) -> list[str]:
    return [card_name(c) for c in cards]


def test_referee_stops_of_hoyles_deal() -> None:
    report = analyse_stops(hoyle_dead_hand(), View.REFEREE)
    assert _names(report.stops) == ["QC", "7D", "TD", "KD", "5H", "9H", "KH", "AS", "4S", "8S",
                                    "KS"]
    assert _names(report.cannot_be_led_to) == ["AC", "AD", "9D", "QD", "AH", "7H", "JH", "AS",
                                               "3S", "6S", "TS"]


def test_player_view_knows_only_the_turnup() -> None:
    report = analyse_stops(hoyle_dead_hand(), View.PLAYER)
    assert _names(report.stops) == ["QC", "7D", "KD", "KH", "KS"]
    assert _names(report.cannot_be_led_to) == ["AC", "AD", "9D", "AH", "AS"]


def test_played_cards_make_new_stops() -> None:
    _, after = Position.from_deal(hoyle_dead_hand()).play(parse_card("3D"))
    deal = hoyle_dead_hand()
    game = after.game
    position = Deal.create(tuple(game.held(after.played, s) for s in range(1, 5)), deal.dead,
                           deal.turnup, deal.rules, None,
                           tuple(game.dealt[s] & after.played for s in range(4)), 1)
    assert "2D" in _names(analyse_stops(position).stops)
    assert "2D" in _names(analyse_stops(position, View.PLAYER).stops)


def test_state_graph_of_a_small_deal() -> None:
    deal = composed(["AC 2D", "2C 3D", "AD 3C"], "KS")
    graph, root = build_graph(deal)
    summary = summarise(graph, root)
    assert summary.acyclic
    assert summary.terminal_states >= 1
    assert summary.shortest_game >= 1
    assert summary.longest_game >= summary.shortest_game
    assert all(graph.out_degree(n) == 0 for n, t in graph.nodes(data="terminal") if t)
    assert nx.is_directed_acyclic_graph(graph)
    # Exports read back.
    assert json.loads(export(graph, "json"))["nodes"]
    assert nx.parse_graphml(export(graph, "graphml")).number_of_nodes() == summary.states
    assert export(graph, "dot").startswith("digraph popejoan {")


def test_hand_counted_graph() -> None:
    # Seat 1 holds only the AC: its one legal lead puts it out at once. One edge, one end.
    deal = composed(["AC", "2C", "3C 5H"], "KS")
    graph, root = build_graph(deal)
    assert summarise(graph, root).to_json() == {
        "states": 2, "edges": 1, "terminal_states": 1, "shortest_game": 1, "longest_game": 1,
        "acyclic": True}


def test_graph_limit() -> None:
    with pytest.raises(GraphTooLargeError, match="more than 50 states"):
        build_graph(hoyle_dead_hand(), max_states=50)


PLAYED = [p for p in CASES if "proof" not in load_case(p).data]
"""The cases checked by play alone. The proof cases are checked, each ruleset's theorems
proved once, by ``popejoan cases`` itself against its golden output, one line a case
(tests/cli/test_golden_invocations.py, and from the built wheel in tests/studies/
test_cases.py): here each would prove its ruleset's theorems again."""


@pytest.mark.parametrize("path", PLAYED, ids=[p.name.removesuffix(".toml") for p in PLAYED])
def test_every_published_case_agrees(path: Traversable) -> None:
    result = check_case(load_case(path))
    assert result.checks, "a case must check something"
    assert result.agrees, [c for c in result.checks if not c.ok]


def test_case_names_are_unique_and_cover_the_worked_examples() -> None:
    names = {c.name for c in load_cases()}
    for required in ("hoyle-dead-hand", "hoyle-three-of-diamonds", "hoyle-only-known-unreachable",
                     "early-hoyle-ten-of-spades", "early-hoyle-eight-of-clubs",
                     "parlett-six-pools", "hoyle-final-round"):
        assert required in names


def test_a_wrong_expectation_is_reported(tmp_path: Path) -> None:
    text = (published_cases() / "hoyle-three-of-diamonds.toml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace('next_leader = 1', 'next_leader = 2'), encoding="utf-8")
    result = check_case(load_case(broken))
    assert not result.agrees


PERFT = Path(__file__).parents[1] / "golden" / "graph-counts.json"
PERFT_DEALS = [(name, players, per_hand, seed) for name in
               ("hoyle-modernized", "britannica", "parlett", "early-hoyle",
                "britannica+lead=lowest-in-hand")
               for players, per_hand, seed in ((3, 4, 1), (4, 3, 2), (5, 3, 3))]


def test_state_graph_counts_are_stable(update_golden: bool) -> None:
    """Perft-style: the full state graph of small deals under every ruleset, counted."""
    from popejoan_solver.model.rules import get_ruleset
    from tests.conftest import short_deal
    counts = {}
    for name, players, per_hand, seed in PERFT_DEALS:
        deal = short_deal(players, per_hand, seed, get_ruleset(name))
        graph, root = build_graph(deal)
        counts[f"{name}/{players}x{per_hand}/seed{seed}"] = summarise(graph, root).to_json()
    if update_golden:
        PERFT.write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    assert counts == json.loads(PERFT.read_text(encoding="utf-8"))


def test_a_malformed_case_is_a_clean_error(tmp_path: Path) -> None:
    from popejoan_solver.model.errors import NotationError
    text = (published_cases() / "hoyle-dead-hand.toml").read_text(encoding="utf-8")
    broken = tmp_path / "broken.toml"
    broken.write_text(text.replace('view = "referee"', 'view = "umpire"'), encoding="utf-8")
    with pytest.raises(NotationError, match="malformed"):
        check_case(load_case(broken))


def _ending_rulesets() -> list[str]:
    """Every ruleset (and one option variant) whose table has a turn-up that ends the deal."""
    from popejoan_solver.model.rules import RULESETS
    from popejoan_solver.model.table import compile_rules

    names = [name for name, rules in RULESETS.items()
             if compile_rules(rules).ends_deal_turnup is not None]
    return [*names, "hoyle-modernized+pope_turnup=ends-deal"]


def test_some_rulesets_end_the_deal_on_a_turnup() -> None:
    assert {"cassell", "early-hoyle"} <= set(_ending_rulesets())


@pytest.mark.parametrize("rules", _ending_rulesets())
def test_a_turnup_that_ends_the_deal_leaves_one_state_and_no_edge(rules: str) -> None:
    """The model ends the deal before play (solve: every value 0, no line): the graph is that
    one state, terminal, with no one out and no edge. The same hands under another turn-up are
    played."""
    from popejoan_solver.model.table import compile_rules
    from popejoan_solver.search import solve

    hands = ["AC 2D 4H", "2C 3D 5H", "AD 3C 6H"]
    ending = compile_rules(composed(hands, "KS", rules).rules).ends_deal_turnup
    assert ending is not None
    deal = composed(hands, card_name(ending), rules)
    graph, root = build_graph(deal)
    assert summarise(graph, root).to_json() == {
        "states": 1, "edges": 0, "terminal_states": 1, "shortest_game": 0, "longest_game": 0,
        "acyclic": True}
    assert graph.nodes[root] == {"played": "", "leader": 0, "terminal": True, "winner": 0}
    assert "ended by the turn-up" in export(graph, "dot")
    solution = solve(deal, threads=1)
    assert solution.line == ()
    assert all(s.guaranteed.lower == s.best_case.upper == 0 for s in solution.seats)
    played = composed(hands, "KS", rules)
    graph, root = build_graph(played)
    assert graph.out_degree(root) > 0


def _graph_payoffs(deal: Deal) -> tuple[nx.DiGraph, str, dict[str, tuple[int, ...]]]:
    """The deal's graph, its root, and each terminal state's settlement by the model."""
    from popejoan_solver.model.play import Game
    from popejoan_solver.model.settlement import play_values
    from popejoan_solver.search.api import play_board

    graph, root = build_graph(deal)
    game = Game.from_deal(deal)
    board, _ = play_board(deal)
    payoffs = {node: play_values(game, board, int(node.split(":")[0], 16),
                                 data["winner"] or None)  # the graph's 0: no one out
               for node, data in graph.nodes(data=True) if data["terminal"]}
    return graph, root, payoffs


def _paranoid(graph: nx.DiGraph, node: str, seat: int, payoffs: dict[str, tuple[int, ...]],
              memo: dict[str, int]) -> int:
    """The graph's minimax for ``seat`` (0-based): it maximises on its own leads, the others
    minimise (a deal without choices inside a run: each edge is one lead)."""
    if node not in memo:
        if graph.nodes[node]["terminal"]:
            memo[node] = payoffs[node][seat]
        else:
            values = [_paranoid(graph, child, seat, payoffs, memo)
                      for child in graph.successors(node)]
            memo[node] = max(values) if graph.nodes[node]["leader"] - 1 == seat else min(values)
    return memo[node]


GRAPH_DEALS = [("hoyle-modernized", 3, 3, 1), ("hoyle-modernized", 4, 3, 2), ("cassell", 3, 3, 5),
               ("early-hoyle", 3, 4, 3), ("britannica", 3, 3, 4), ("parlett", 4, 3, 6),
               ("britannica+lead=lowest-in-hand", 3, 3, 7)]
"""Small deals of rulesets without choices inside a run (rules, players, cards each, seed)."""


@pytest.mark.parametrize(("rules", "players", "per_hand", "seed"), GRAPH_DEALS)
def test_the_graphs_outcomes_agree_with_the_reference_engine(rules: str, players: int,
                                                             per_hand: int, seed: int) -> None:
    """Every terminal state of the graph is settled by the model; the best of them for a seat
    is its best case, and the graph's minimax its guaranteed value, by the reference engine."""
    from popejoan_solver.model.play import Game
    from popejoan_solver.model.rules import get_ruleset
    from popejoan_solver.search import Goal, Objective
    from popejoan_solver.search.api import play_board
    from popejoan_solver.search.reference import ReferenceEngine
    from tests.conftest import short_deal

    deal = short_deal(players, per_hand, seed, get_ruleset(rules))
    graph, root, payoffs = _graph_payoffs(deal)
    assert payoffs
    board, _ = play_board(deal)
    reference = ReferenceEngine(Game.from_deal(deal), board)
    for seat in range(players):
        assert max(p[seat] for p in payoffs.values()) == reference.value(
            Objective(Goal.BEST_CASE, seat + 1), deal.played_mask, deal.leader)
        assert _paranoid(graph, root, seat, payoffs, {}) == reference.value(
            Objective(Goal.GUARANTEED, seat + 1), deal.played_mask, deal.leader)


@pytest.mark.parametrize("rules", ["hoyle-modernized+pope_in_lieu=run-continues",
                                   "hoyle-modernized+pope_in_lieu=pope-leads", "spinado"])
def test_the_graphs_outcomes_with_choices_agree_with_the_reference_engine(rules: str) -> None:
    """With choices inside a run (an edge per outcome): the best terminal state for each seat
    is its best case by the reference engine."""
    from popejoan_solver.model.cards import POPE
    from popejoan_solver.model.play import Game
    from popejoan_solver.model.table import SPIN
    from popejoan_solver.search import Goal, Objective
    from popejoan_solver.search.api import play_board
    from popejoan_solver.search.reference import ReferenceEngine
    from tests.conftest import deal_holding

    for seed in range(3):
        deal = deal_holding(rules, SPIN if rules == "spinado" else POPE, 3, 3, seed)
        _, _, payoffs = _graph_payoffs(deal)
        board, _ = play_board(deal)
        reference = ReferenceEngine(Game.from_deal(deal), board)
        for seat in range(3):
            assert max(p[seat] for p in payoffs.values()) == reference.value(
                Objective(Goal.BEST_CASE, seat + 1), 0, 1), (rules, seed, seat)
