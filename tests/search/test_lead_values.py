"""lead_values: every lead's paranoid value equals solve's leads, and its forced win equals an
independent minimax over the rules model (choices inside runs taken by their choosers)."""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import Mask, card_name, iter_mask
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.play import Game, Position, Run, RunTree
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.model.settlement import best_without_going_out, play_values
from popejoan_solver.search import LeadEval, Value, lead_values, solve
from popejoan_solver.search.api import play_board
from popejoan_solver.search.driver import Driver
from popejoan_solver.search.leads import evaluate_leads
from popejoan_solver.search.objective import Goal, Objective
from tests.conftest import deal_holding, short_deal
from tests.search.test_choices import POPE, SPIN

FAMILIES = [*RULESETS, "hoyle-modernized+lead=any", "parlett+pairs=divided,ace=high"]
CHOICES = [("hoyle-modernized+pope_in_lieu=run-continues", POPE),
           ("hoyle-modernized+pope_in_lieu=pope-leads", POPE), ("spinado", SPIN)]


def minimax_leads(deal: Deal, forced_win: bool) -> list[int]:
    """The leader's forced win (or paranoid value) after each legal lead: a plain minimax over
    Game.run_tree and the model's settlement (no pruning, no table of the engines), the leader
    raising it and every other seat lowering it, each choice taken by its chooser."""
    game = Game.from_deal(deal)
    board, _ = play_board(deal)
    target = deal.leader

    def payoff(played: Mask, winner: int) -> int:
        if forced_win:
            return int(winner == target)
        return play_values(game, board, played, winner)[target - 1]

    @cache
    def position_value(played: Mask, leader: int) -> int:
        winner = game.winner(played)
        if winner is not None:
            return payoff(played, winner)
        values = [tree_value(game.run_tree(played, leader, lead), played)
                  for lead in game.legal_leads(played, leader)]
        return max(values) if leader == target else min(values)

    def tree_value(tree: RunTree, played: Mask) -> int:
        if isinstance(tree, Run):
            after = played | tree.mask
            if tree.winner is not None:
                return payoff(after, tree.winner)
            return position_value(after, tree.next_leader)
        values = [tree_value(option, played) for option in tree.options]
        return max(values) if tree.chooser == target else min(values)

    return [tree_value(game.run_tree(deal.played_mask, target, lead), deal.played_mask)
            for lead in game.legal_leads(deal.played_mask, target)]


def check(deal: Deal, engine: str = "fast") -> tuple[LeadEval, ...]:
    evals = lead_values(deal, engine=engine)
    solution = solve(deal, seats=[deal.leader], with_line=False, threads=1)
    assert [(e.card, e.guaranteed) for e in evals] == [
        (lead.card, lead.guaranteed) for lead in solution.leads]
    assert [e.forced_win.lower for e in evals] == minimax_leads(deal, forced_win=True)
    assert [e.guaranteed.lower for e in evals] == minimax_leads(deal, forced_win=False)
    assert all(e.forced_win.is_exact and e.guaranteed.is_exact for e in evals)
    best = max(e.guaranteed.lower for e in evals)
    assert solution.seat(deal.leader).guaranteed == Value.exact(best)
    assert solution.seat(deal.leader).forced_win.lower == max(e.forced_win.lower
                                                             for e in evals)
    return evals


@pytest.mark.parametrize("rules", FAMILIES)
def test_lead_values_equal_solves_leads_and_an_independent_forced_win(rules: str) -> None:
    ruleset = get_ruleset(rules)
    for seed in range(6):
        players = 3 + seed % 4
        check(short_deal(players, 4 if players < 6 else 3, 500 + seed, ruleset))


@pytest.mark.parametrize(("rules", "card"), CHOICES)
def test_lead_values_with_choices_inside_runs(rules: str, card: int) -> None:
    for seed in range(5):
        players = 3 + seed % 3
        check(deal_holding(rules, card, players, 4, 700 + seed))


def test_a_king_paid_in_the_leads_own_run_counts_in_its_bounds() -> None:
    # Spinado: leading the J♠ runs through the Q♠ to the K♠ of seat 2, and seat 1 pays for
    # that King at once.
    # The driver's static bounds left out payments already made (the floor was -4, the value
    # -5), and the search starting there returned -4; the minimax of check() says -5.
    deal = short_deal(3, 6, 902, get_ruleset("spinado"))
    evals = check(deal)
    assert [(card_name(e.card), e.guaranteed.lower) for e in evals][-1] == ("JS", -5)


def test_lead_values_at_a_position_and_on_the_reference_engine() -> None:
    deal = short_deal(4, 5, 31, get_ruleset("hoyle-modernized"))
    position = Position.from_deal(deal)
    _, after = position.play(position.legal_leads()[-1])
    later = Deal.create([h & ~after.played for h in deal.hands], deal.dead, deal.turnup,
                        deal.rules, played=[h & after.played for h in deal.hands],
                        leader=after.leader)
    evals = check(deal)
    assert [card_name(e.card) for e in evals] == [card_name(c) for c in position.legal_leads()]
    assert lead_values(deal, engine="reference") == evals
    check(later)


def test_lead_values_without_forced_win() -> None:
    deal = short_deal(3, 5, 8, get_ruleset("early-hoyle"))
    full = lead_values(deal)
    bare = lead_values(deal, forced_win=False)
    assert [e.guaranteed for e in bare] == [e.guaranteed for e in full]
    assert all(e.forced_win == Value(0, 1) for e in bare)


def test_lead_values_under_a_time_limit_are_bounds_around_the_values() -> None:
    # The heaviest of 60 standard early-hoyle 3-player deals: its leads take about 100,000
    # nodes, 40 ms; 2 ms cannot finish them.
    deal = deal_random(3, 2026, get_ruleset("early-hoyle"), 33)
    exact = lead_values(deal)
    limited = lead_values(deal, time_limit=0.002)
    assert [e.card for e in limited] == [e.card for e in exact]
    assert not all(e.guaranteed.is_exact for e in limited)
    for bounds, value in zip(limited, exact, strict=True):
        assert bounds.guaranteed.lower <= value.guaranteed.lower <= bounds.guaranteed.upper
        assert bounds.forced_win.lower <= value.forced_win.lower <= bounds.forced_win.upper


def test_lead_values_refuses_bad_options_and_has_nothing_to_lead_at_the_end() -> None:
    deal = short_deal(3, 3, 4, get_ruleset("hoyle-modernized"))
    for bad in (0, -5):
        with pytest.raises(PopeJoanError, match="tt_entries"):
            lead_values(deal, tt_entries=bad)
    with pytest.raises(PopeJoanError, match="time-limit"):
        lead_values(deal, time_limit=float("nan"))
    with pytest.raises(PopeJoanError, match="engine"):
        lead_values(deal, engine="nonesuch")
    position = Position.from_deal(deal)
    while not position.is_over:
        _, position = position.play(position.legal_leads()[0])
    over = Deal.create([h & ~position.played for h in deal.hands], deal.dead, deal.turnup,
                       deal.rules, played=[h & position.played for h in deal.hands],
                       leader=position.leader)
    assert lead_values(over) == ()


@pytest.mark.parametrize("rules", ["hoyle-modernized", "early-hoyle", "spinado",
                                   "hoyle-modernized+pope_in_lieu=run-continues"])
def test_guesses_change_no_value_and_exact_ones_save_nodes(rules: str) -> None:
    ruleset = get_ruleset(rules)
    wild_nodes = guessed_nodes = 0
    for seed in range(4):
        deal = short_deal(3 + seed % 2, 6, 900 + seed, ruleset)
        plain = evaluate_leads(deal)
        exact = {e.card: e.guaranteed.lower for e in plain.leads}
        guessed = evaluate_leads(deal, guesses=exact)
        assert guessed.leads == plain.leads
        guessed_nodes += guessed.nodes
        # Far-off and partial guesses, and guesses for cards that are not legal leads.
        wild = {card: (-40 if i % 2 else 60) for i, card in enumerate(list(exact)[1:])}
        wild.update({card: 5 for card in range(52) if card not in exact})
        far = evaluate_leads(deal, guesses=wild)
        assert far.leads == plain.leads
        wild_nodes += far.nodes
        if seed == 0:  # the reference ignores guesses; it is slow on choices inside runs
            assert lead_values(deal, guesses=wild, engine="reference") == plain.leads
    # The guesses reach MTD(f): the exact ones save nodes over far-off ones (both take the
    # lead-at-a-time path; the compiled batch of leads, without guesses, is another search).
    assert guessed_nodes < wild_nodes


def test_bad_guesses_are_refused() -> None:
    deal = short_deal(3, 3, 4, get_ruleset("hoyle-modernized"))
    for bad in ({"3D": 1}, {52: 0}, {True: 0}, {0: 1.5}, {0: "1"}, {0: None}, {0: 10**9}, [1]):
        with pytest.raises(PopeJoanError, match="guess"):
            lead_values(deal, guesses=bad)  # type: ignore[arg-type]


def pope_kept_free() -> Deal:
    """A 3-player deal whose leader holds the Pope with its compartment empty: keeping the Pope
    to the end costs it nothing, so it can end with every award it can take without going out
    (its leads 4♠ and Q♠ are worth that, 1 counter, and no forced win)."""
    rules = get_ruleset("hoyle-modernized")
    rng = random.Random(45)
    cards = [c for c in iter_mask(rules.table.pack) if c != POPE]
    rng.shuffle(cards)
    cards.insert(rng.randrange(4), POPE)
    hands = [0, 0, 0]
    for i in range(12):
        hands[i % 3] |= 1 << cards[i]
    dead = rules.table.pack & ~sum(hands)
    board = Board(pope=0, matrimony=2, intrigue=2, ace=1, king=1, queen=1, jack=1, game=1)
    return Deal.create(hands, dead, max(iter_mask(dead)), rules, board=board)


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_value_above_the_most_the_leader_ends_with_in_hand_is_a_forced_win(
        engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # lead_values reads a forced win off a paranoid value above best_without_going_out (the
    # compiled core's batch of leads for "fast", search/leads.py a lead at a time for the
    # reference engine). At that bound exactly it is no win: the J♥ and Q♥ of the first deal
    # and the 4♠ and Q♠ of the Pope's holder (whose bound is all its awards) are worth it and
    # cannot force going out; the minimax of check() tells.
    at_bound = short_deal(5, 4, 95, get_ruleset("hoyle-modernized"))
    for deal, leads in ((at_bound, ("JH", "QH")), (pope_kept_free(), ("4S", "QS"))):
        game = Game.from_deal(deal)
        staying = best_without_going_out(game, play_board(deal)[0], deal.leader)
        evals = {card_name(e.card): e for e in check(deal, engine)}
        assert all(evals[c].guaranteed.lower == staying >= 1 for c in leads)
        assert all(evals[c].forced_win == Value.exact(0) for c in leads)
    # Above it, no forced-win search is run: the 5♠ of this deal is worth 13, a win, and the
    # other leads are worth less than the Game stake.
    deal = short_deal(5, 4, 44, get_ruleset("hoyle-modernized"))
    expected = check(deal, engine)
    assert [(card_name(e.card), e.guaranteed.lower, e.forced_win.lower)
            for e in expected][-1] == ("5S", 13, 1)
    if engine == "fast":
        assert evaluate_leads(deal).nodes == evaluate_leads(deal, forced_win=False).nodes
        return
    searched: list[Goal] = []
    tree_value = Driver.tree_value

    def counted(self: Driver, objective: Objective, *args: Any, **kwargs: Any) -> Value:
        searched.append(objective.goal)
        return tree_value(self, objective, *args, **kwargs)

    monkeypatch.setattr(Driver, "tree_value", counted)
    evals = lead_values(deal, engine=engine)
    assert evals == expected
    assert Goal.FORCED_WIN not in searched
    assert len(searched) == len(evals)
