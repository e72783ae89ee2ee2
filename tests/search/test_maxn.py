"""Max^n (``search.maxn``) against a plain recursion over the rules, and its cached forced
runs against ``Game.forced_run``: the caches change the work, never a value."""

from __future__ import annotations

import random

import pytest

from popejoan_solver.model.cards import Mask
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Game, Run, RunTree
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.model.settlement import play_values
from popejoan_solver.search.api import play_board
from popejoan_solver.search.maxn import MaxnSearch, maxn_leads, maxn_value
from tests.conftest import dense_deal, short_deal

RULESETS = ["hoyle-modernized", "parlett", "britannica", "spinado",
            "hoyle-modernized+pope_in_lieu=run-continues"]


def ruleset(spec: str) -> Ruleset:
    name, _, option = spec.partition("+")
    return get_ruleset(name).with_options(dict([option.split("=")]) if option else {})


def brute_force(deal: Deal, focus: int) -> list[tuple[int, ...]]:
    """Every legal lead's max^n vector by recursion with no memo and no run cache: each
    mover (leader or chooser, a seat from 1) takes its highest own value, then the lowest of
    ``focus`` (a 0-based index into the vectors), then the first in the legal order."""
    game = Game.from_deal(deal)
    board, _ = play_board(deal)

    def take(values: list[tuple[int, ...]], mover: int) -> tuple[int, ...]:
        top = max(v[mover - 1] for v in values)
        mine = [v for v in values if v[mover - 1] == top]
        low = min(v[focus] for v in mine)
        return next(v for v in mine if v[focus] == low)

    def position(played: Mask, leader: int) -> tuple[int, ...]:
        for seat in range(game.players):
            if not game.dealt[seat] & ~played:
                return play_values(game, board, played, seat + 1)
        return take([node(game.run_tree(played, leader, lead), played, leader)
                     for lead in game.legal_leads(played, leader)], leader)

    def node(tree: RunTree, played: Mask, leader: int) -> tuple[int, ...]:
        if isinstance(tree, Run):
            after = played
            for card in tree.cards:
                after |= 1 << card
            return position(after, tree.leader_after)
        return take([node(option, played, leader) for option in tree.options], tree.chooser)

    return [node(game.run_tree(deal.played_mask, deal.leader, lead), deal.played_mask,
                 deal.leader) for lead in game.legal_leads(deal.played_mask, deal.leader)]


def small_deals(spec: str, count: int, per_hand: int = 3) -> list[Deal]:
    """Short hands (every run can end by going out) and dense ones (long runs through many
    hands, few suits), 3 and 4 players."""
    rng = random.Random(spec)
    rules = ruleset(spec)
    deals = []
    for i in range(count):
        players = 3 + i % 2
        if i % 2:
            deals.append(short_deal(players, per_hand, rng.randrange(10**6), rules))
        else:
            suits = max(1 + i % 3, players * per_hand // 12 + 1)  # a card left dead
            deals.append(dense_deal(players, per_hand, rng.randrange(10**6), rules, suits))
    return deals


@pytest.mark.parametrize("spec", RULESETS)
def test_maxn_equals_a_brute_force_recursion(spec: str) -> None:
    for deal in small_deals(spec, 6):
        for focus in range(1, deal.players + 1):
            got = maxn_leads(deal, focus)
            assert [v for _, v in got] == brute_force(deal, focus - 1)
            assert [c for c, _ in got] == Game.from_deal(deal).legal_leads(
                deal.played_mask, deal.leader)
            values = maxn_value(deal, focus)
            assert values == brute_force_best(deal, focus - 1)


def brute_force_best(deal: Deal, focus: int) -> tuple[int, ...]:
    """The leader's choice among :func:`brute_force`'s vectors."""
    vectors = brute_force(deal, focus)
    top = max(v[deal.leader - 1] for v in vectors)
    mine = [v for v in vectors if v[deal.leader - 1] == top]
    low = min(v[focus] for v in mine)
    return next(v for v in mine if v[focus] == low)


@pytest.mark.parametrize("spec", ["hoyle-modernized", "parlett"])
def test_cached_runs_are_the_forced_runs(spec: str) -> None:
    """Every position reachable in small deals: the cached run is ``forced_run``'s when no
    seat goes out in it, and None when one does."""
    checked = 0
    for deal in small_deals(spec, 6, per_hand=5):
        search = MaxnSearch(deal, 1)
        game = search.game
        seen: set[tuple[Mask, int]] = set()
        stack = [(deal.played_mask, deal.leader)]
        while stack:
            played, leader = stack.pop()
            if (played, leader) in seen or game.winner(played) is not None:
                continue
            seen.add((played, leader))
            for lead in game.legal_leads(played, leader):
                run = game.forced_run(played, leader, lead)
                cached = search.fast_run(played, lead)
                if run.winner is not None:
                    assert cached is None
                else:
                    assert cached == (run.mask, run.leader_after)
                    stack.append((played | run.mask, run.leader_after))
                checked += 1
    assert checked > 300
