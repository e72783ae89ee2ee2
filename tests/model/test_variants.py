"""The variants of the deal, the board and the settlement (issue 11): the dressings, Peel's five
pools, the spare hand, and the rulesets of Peel, Cassell and the 1911 Britannica."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import POPE, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.errors import DealError, RulesError
from popejoan_solver.model.examples import hoyle_dead_hand
from popejoan_solver.model.notation import deal_from_json, deal_to_json, deal_to_line
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import (
    NOT_MODELLED,
    OPTIONS,
    RULESETS,
    AceRank,
    DeadHandRule,
    Dressing,
    LeadRule,
    PairRule,
    Pools,
    PopeTurnup,
    SpareHand,
    get_ruleset,
    ruleset_sources,
)
from popejoan_solver.model.settlement import dressing, net, play_values, settle, turnup_award
from popejoan_solver.model.sources import BRITANNICA, CASSELL, MODEL, PEEL, WIKIPEDIA
from popejoan_solver.model.table import FIVE_POOLS, compile_rules
from popejoan_solver.search import Goal, Objective, solve
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.reference import ReferenceEngine
from popejoan_solver.studies.cases import check_case, load_cases
from tests.conftest import short_deal
from tests.model.test_play_and_settlement import composed

PLAYERS = range(3, 9)
USUAL = {"pope": 6, "matrimony": 2, "intrigue": 2, "ace": 1, "king": 1, "queen": 1, "jack": 1,
         "game": 1}
FIVE = {"pope": 6, "matrimony": 2, "intrigue": 2, "ace": 1, "king": 0, "queen": 0, "jack": 0,
        "game": 1}


def _fresh(name: str, players: int) -> tuple[dict[str, int], list[int]]:
    """The fresh board's counters and what each seat pays for it (eldest first, dealer last)."""
    rules = get_ruleset(name)
    transfers = dressing(rules, players)
    return (compile_rules(rules).dressing(players).layout.to_json(),
            [-net(transfers, seat) for seat in range(1, players + 1)])


# The dressings: layout and who pays, for every number of players.

@pytest.mark.parametrize("players", PLAYERS)
def test_the_dealer_dresses_the_usual_fifteen_or_the_five_pools_twelve(players: int) -> None:
    assert _fresh("hoyle-modernized", players) == (USUAL, [0] * (players - 1) + [15])
    assert _fresh("hoyle-modernized+pools=five", players) == (FIVE, [0] * (players - 1) + [12])


@pytest.mark.parametrize("players", PLAYERS)
def test_the_early_hoyles_players_give_two_each(players: int) -> None:
    assert _fresh("early-hoyle", players) == (
        USUAL, [2] * (players - 1) + [15 - 2 * (players - 1)])
    # With five pools, seven players' fourteen exceed twelve: the surplus goes on Game.
    board, paid = _fresh("early-hoyle+pools=five", players)
    assert paid == [2] * (players - 1) + [max(0, 12 - 2 * (players - 1))]
    assert board == {**FIVE, "game": 1 + max(0, 2 * (players - 1) - 12)}


@pytest.mark.parametrize(("players", "share", "game"), [
    (3, 4, 2), (4, 3, 1), (5, 3, 4), (6, 3, 7), (7, 2, 2), (8, 2, 4)])
def test_peels_players_pay_a_share_the_dealer_double(players: int, share: int, game: int) -> None:
    # "fifteen (or more)": the least share with (players + 1) shares >= 15; the rest to Game.
    board, paid = _fresh("peel", players)
    assert paid == [share] * (players - 1) + [2 * share]
    assert (players + 1) * share >= 15 > (players + 1) * (share - 1)
    assert board == {**USUAL, "game": game}


@pytest.mark.parametrize(("players", "share"), [(3, 3), (4, 3), (5, 2), (6, 2), (7, 2), (8, 2)])
def test_peels_five_pools_take_twelve_or_more(players: int, share: int) -> None:
    board, paid = _fresh("peel+pools=five", players)
    assert paid == [share] * (players - 1) + [2 * share]
    assert board == {**FIVE, "game": 1 + (players + 1) * share - 12}


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("stake", [3, 5, 20])
def test_the_1911_britannica_stakes_every_player_the_rest_to_pope(players: int, stake: int
                                                                  ) -> None:
    board, paid = _fresh(f"britannica-1911+stake={stake}", players)
    assert paid == [stake] * players
    assert board == {**USUAL, "pope": stake * players - 9}
    board, paid = _fresh(f"britannica-1911+stake={stake},pools=five", players)
    assert board == {**FIVE, "pope": stake * players - 6}


def test_a_stake_below_three_is_refused() -> None:
    # Three players' stakes must cover the nine counters of the lesser compartments.
    with pytest.raises(RulesError, match="stake cannot be '2'"):
        get_ruleset("britannica-1911+stake=2")


@pytest.mark.parametrize("name", [f"hoyle-modernized+dressing={d.value},pools={p.value},stake={s}"
                                  for s in (3, 5) for d in Dressing for p in Pools])
def test_every_dressing_conserves_counters(name: str) -> None:
    rules = get_ruleset(name)
    for players in PLAYERS:
        dressed = compile_rules(rules).dressing(players)
        transfers = dressing(rules, players)
        assert sum(dressed.paid) == dressed.layout.total() == -sum(
            net(transfers, seat) for seat in range(1, players + 1))
        assert [-net(transfers, seat) for seat in range(1, players + 1)] == list(dressed.paid)
        assert all(n == 0 for c, n in dressed.layout.items()
                   if c not in compile_rules(rules).compartments)


def test_a_dressing_for_an_impossible_number_of_players_is_refused() -> None:
    with pytest.raises(DealError, match="3 to 8 players, not 9"):
        dressing(get_ruleset("peel"), 9)


@pytest.mark.parametrize("name", ["peel", "britannica-1911", "peel+pools=five"])
def test_a_fresh_deal_starts_from_the_rulesets_dressed_board(name: str) -> None:
    rules = get_ruleset(name)
    for players in PLAYERS:
        deal = deal_random(players, 3, rules)
        layout = compile_rules(rules).dressing(players).layout
        assert deal.board_or_dressed == layout
        result = settle(deal, 0, -1)
        assert result.board_before == layout
        assert sum(t.amount for t in result.dressing if isinstance(t.payee, Compartment)) == (
            layout.total())


def test_the_json_deal_and_the_solution_report_the_britannica_dressing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    deal = short_deal(8, 2, 5, get_ruleset("britannica-1911"))
    assert deal.board_or_dressed.pope == 31
    data = deal_to_json(deal)
    assert "board" not in data  # a fresh deal: the ruleset dresses its board
    assert deal_from_json(data).board_or_dressed.pope == 31
    path = tmp_path / "deal.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["solve", str(path), "--json"]) == 0
    paid = json.loads(capsys.readouterr().out)["dressing"]
    assert sorted((t["from"], t["amount"]) for t in paid if t["reason"].startswith("contrib")) == [
        (seat, 5) for seat in range(1, 8)]
    assert {t["to"]: t["amount"] for t in paid if t["reason"] == "dressing the board"} == {
        **USUAL, "pope": 31}


# Five-Pool Pope: no King, Queen or Knave compartments, in play or turned up.

def test_five_pools_have_no_king_queen_or_knave_awards() -> None:
    table = compile_rules(get_ruleset("peel+pools=five"))
    assert table.compartments == FIVE_POOLS
    for trumps in range(4):
        assert {a.compartment for a in table.awards(trumps)} == {
            Compartment.POPE, Compartment.MATRIMONY, Compartment.INTRIGUE, Compartment.ACE}
    assert table.turnup_awards(parse_card("KH")) == ()
    assert table.turnup_awards(parse_card("QH")) == ()
    assert table.turnup_awards(parse_card("JH")) == ()
    assert table.turnup_awards(parse_card("AH")) == (Compartment.ACE,)
    assert table.turnup_awards(POPE) == (Compartment.POPE,)
    eight = compile_rules(get_ruleset("peel"))
    assert eight.turnup_awards(parse_card("KH")) == (Compartment.KING,)


def test_a_turned_up_king_wins_nothing_with_five_pools() -> None:
    for name, takes in (("peel", [(Compartment.KING, 1)]), ("peel+pools=five", [])):
        deal = composed(["2C 3C", "4C 5C", "6C 7C"], "KH", name)
        award = turnup_award(deal, deal.board_or_dressed)
        assert [(t.payer, t.amount) for t in award.transfers] == takes
        assert award.deal_is_played


def test_playing_the_honours_of_trumps_with_five_pools() -> None:
    # Hearts are trumps. Seat 1 runs JH QH KH (the king a stop), then leads AH and is out: it
    # takes Intrigue, Matrimony and Ace but no Knave, Queen or King compartment, then Game and a
    # counter for each card left in the other hands.
    hands = ["JH QH KH AH", "2C 3C", "4C 5C"]
    values = {}
    for name in ("hoyle-modernized+pools=five", "hoyle-modernized"):
        deal = composed(hands, "9H", name)
        position = Position.from_deal(deal)
        for lead in ("JH", "AH"):
            _, position = position.play(parse_card(lead))
        assert position.is_over
        values[name] = play_values(position.game, deal.board_or_dressed, position.played, 1)
    assert values["hoyle-modernized+pools=five"] == (2 + 2 + 1 + 1 + 4, -2, -2)
    assert values["hoyle-modernized"] == (2 + 2 + 1 + 3 + 1 + 4, -2, -2)


def test_a_five_pool_board_with_counters_for_the_king_is_refused() -> None:
    deal = composed(["2C 3C", "4C 5C", "6C 7C"], "KH", "peel+pools=five")
    with pytest.raises(DealError, match=r"king holds 2 counters.*no king compartment"):
        Deal.create(deal.hands, deal.dead, deal.turnup, deal.rules, Board(king=2))
    Deal.create(deal.hands, deal.dead, deal.turnup, deal.rules, Board(king=0, queen=0, jack=0))


# The spare hand.

def test_the_dealer_who_sees_the_spare_hand_is_recorded_in_the_table() -> None:
    assert compile_rules(get_ruleset("cassell")).dealer_sees_dead_hand
    assert not compile_rules(get_ruleset("peel")).dealer_sees_dead_hand
    seen = compile_rules(get_ruleset("hoyle-modernized+spare_hand=dealer-sees"))
    unseen = compile_rules(get_ruleset("hoyle-modernized"))
    assert seen.awards_by_trumps == unseen.awards_by_trumps
    assert seen.dressings == unseen.dressings


def test_a_dealer_who_stands_out_is_refused_naming_the_value() -> None:
    assert set(NOT_MODELLED) == {"spare_hand"}
    assert SpareHand.DEALER_STANDS_OUT in OPTIONS["spare_hand"].values
    assert SpareHand.DEALER_STANDS_OUT not in OPTIONS["spare_hand"].samples
    for name in ("peel+spare_hand=dealer-sees-and-stands-out",):
        with pytest.raises(RulesError, match="spare_hand=dealer-sees-and-stands-out"):
            get_ruleset(name)
    with pytest.raises(RulesError, match="not modelled yet"):
        get_ruleset("peel").with_options({"spare_hand": "dealer-sees-and-stands-out"})


@pytest.mark.parametrize("argv", [
    ["solve", "--set", "spare_hand=dealer-sees-and-stands-out"],
    ["rules", "peel+spare_hand=dealer-sees-and-stands-out"],
    ["stops", "--rules", "cassell+spare_hand=dealer-sees-and-stands-out",
     deal_to_line(hoyle_dead_hand())],
])
def test_every_command_refuses_the_stand_out_in_one_error_line(
        capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("error: option spare_hand=dealer-sees-and-stands-out")


# The named rulesets of Peel, Cassell and the 1911 Britannica.

def test_the_new_named_rulesets_options() -> None:
    peel, cassell, brit = RULESETS["peel"], RULESETS["cassell"], RULESETS["britannica-1911"]
    assert (peel.ace, peel.lead, peel.dead_hand, peel.pope_turnup, peel.pairs, peel.dressing,
            peel.pope_exemption, peel.pools, peel.spare_hand) == (
        AceRank.LOW, LeadRule.ANY, DeadHandRule.EQUAL_HANDS, PopeTurnup.COMPARTMENT,
        PairRule.SAME_PLAYER, Dressing.PEEL, True, Pools.EIGHT, SpareHand.UNSEEN)
    assert (cassell.ace, cassell.lead, cassell.dead_hand, cassell.pope_turnup,
            cassell.dressing, cassell.pools, cassell.spare_hand) == (
        AceRank.LOW, LeadRule.ANY, DeadHandRule.EQUAL_HANDS, PopeTurnup.ENDS_DEAL,
        Dressing.DEALER, Pools.EIGHT, SpareHand.DEALER_SEES)
    assert brit == get_ruleset("britannica+dressing=britannica-1911")
    assert (brit.lead, brit.dressing, brit.stake) == (
        LeadRule.LOWEST_OF_SUIT, Dressing.BRITANNICA_1911, 5)
    assert get_ruleset("britannica").lead is LeadRule.LOWEST_OF_SUIT  # still there


def test_the_new_named_rulesets_cite_their_works_and_mark_their_defaults() -> None:
    peel = ruleset_sources(RULESETS["peel"])
    assert {name for name, s in peel.items() if s.work is PEEL} == {
        "ace", "dead_hand", "pope_turnup", "dressing", "pools", "spare_hand"}
    for name in ("lead", "pairs", "pope_exemption"):
        assert peel[name].work is MODEL
        assert peel[name].note.startswith("not settled by Peel, Round Games with Cards (1891)")
        assert peel[name].note.endswith(": the default")
    cassell = ruleset_sources(RULESETS["cassell"])
    assert {name for name, s in cassell.items() if s.work is CASSELL} == {
        "ace", "lead", "dead_hand", "pope_turnup", "dressing", "pools", "spare_hand"}
    assert cassell["pairs"].note.startswith("not settled by Cassell's Book")
    brit = ruleset_sources(RULESETS["britannica-1911"])
    assert brit["dressing"].work is BRITANNICA
    assert "not available to us" in brit["dressing"].note
    assert brit["pope_turnup"].work is WIKIPEDIA
    assert brit["pope_turnup"].note == "Wikipedia cites the 1911 Britannica for its rules"
    assert brit["stake"].work is MODEL
    # An override falls back to the option's own source.
    assert ruleset_sources(get_ruleset("peel+pools=five"))["pools"].where == "Five-Pool Pope"


@pytest.mark.parametrize("compiled", [False, True] if COMPILED else [False])
@pytest.mark.parametrize("name", ["peel", "cassell", "britannica-1911", "peel+pools=five",
                                  "cassell+spare_hand=dealer-sees,pools=five,pairs=divided"])
def test_the_engines_agree_on_the_new_rulesets(name: str, compiled: bool) -> None:
    rules = get_ruleset(name)
    for seed in range(8):
        players = 3 + seed % 6
        deal = short_deal(players, 3, seed, rules)
        board = deal.board_or_dressed
        game = Game.from_deal(deal)
        fast, reference = FastEngine(game, board, compiled=compiled), ReferenceEngine(game, board)
        for seat in range(1, players + 1):
            for goal in Goal:
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    name, seed, seat, goal)


@pytest.mark.parametrize("name", ["peel", "cassell", "britannica-1911", "peel+pools=five"])
def test_solve_on_the_new_rulesets_matches_the_reference(name: str) -> None:
    deal = short_deal(4, 3, 17, get_ruleset(name))
    fast, reference = solve(deal), solve(deal, engine="reference")
    assert fast.seats == reference.seats
    assert fast.dressing == reference.dressing == tuple(dressing(deal.rules, 4))


def test_the_published_cases_of_these_sources_agree() -> None:
    cases = {c.name: c for c in load_cases()}
    for name in ("peel-dressing", "peel-dressing-fifteen-or-more", "peel-five-pool-dressing",
                 "britannica-1911-dressing-three", "britannica-1911-dressing-eight",
                 "cassell-pope-turned-up"):
        result = check_case(cases[name])
        assert result.checks
        assert result.agrees, [c for c in result.checks if not c.ok]
