"""Play and settlement: hand-checked runs, and a contract test of random playouts run
against every ruleset variant (the OpenSpiel way): invariants that must hold in every line."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import POPE, CardSet, card_name, iter_mask, make_card, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.errors import DealError, IllegalPlayError
from popejoan_solver.model.examples import hoyle_dead_hand
from popejoan_solver.model.play import Position, StopReason
from popejoan_solver.model.rules import RULESETS, get_ruleset, variant_matrix
from popejoan_solver.model.settlement import (
    apply_to_board,
    dressing,
    final_round,
    going_out,
    net,
    play_values,
    settle,
    turnup_award,
)
from popejoan_solver.model.table import compile_rules

VARIANTS = list(dict.fromkeys([r.name for r in RULESETS.values()]
                               + [r.name for r in variant_matrix()]))
"""Every named ruleset, and the pairwise variant matrix generated from the option
declarations (model.rules.variant_matrix): no list of variants kept by hand."""


def on_board(variant: str, board: Board) -> Board:
    """``board`` with no counters in the compartments the variant's board does not have."""
    kept = compile_rules(get_ruleset(variant)).compartments
    return Board(**{c.value: n if c in kept else 0 for c, n in board.items()})


def _cards(text: str) -> list[str]:
    return text.split()


def test_hoyle_three_of_diamonds_run() -> None:
    run, after = Position.from_deal(hoyle_dead_hand()).play(parse_card("3D"))
    assert [card_name(c) for c in run.cards] == _cards("3D 4D 5D 6D 7D")
    assert list(run.seats) == [1, 2, 3, 4, 1]
    assert run.reason is StopReason.ABSENT
    assert run.next_leader == 1
    assert after.leader == 1


def test_run_stops_at_dead_card_and_at_played_card() -> None:
    position = Position.from_deal(hoyle_dead_hand())
    run, position = position.play(parse_card("JC"))
    assert [card_name(c) for c in run.cards] == ["JC", "QC"]
    assert run.reason is StopReason.DEAD
    assert position.leader == 2  # QC is seat 2's
    run, position = position.play(parse_card("8C"))  # seat 2: 8C 9C 10C, then JC is played
    assert [card_name(c) for c in run.cards] == ["8C", "9C", "TC"]
    assert run.reason is StopReason.PLAYED
    assert run.next_leader == 4


def test_illegal_leads_are_refused() -> None:
    position = Position.from_deal(hoyle_dead_hand())
    with pytest.raises(IllegalPlayError, match="may not lead 4C"):
        position.play(parse_card("4C"))
    brit = Position.from_deal(hoyle_dead_hand().with_rules(get_ruleset("britannica")))
    assert [card_name(c) for c in brit.legal_leads()] == ["3C", "3D", "4H", "AS"]
    low = Position.from_deal(hoyle_dead_hand().with_rules(
        get_ruleset("britannica+lead=lowest-in-hand")))
    assert [card_name(c) for c in low.legal_leads()] == ["AS"]
    parlett = Position.from_deal(hoyle_dead_hand().with_rules(get_ruleset("parlett")))
    assert [card_name(c) for c in parlett.legal_leads()] == ["3C", "3D", "4H", "7S"]


def composed(hands: list[str], turnup: str, rules: str = "hoyle-modernized") -> Deal:
    """A short composed deal: the hands given, every other card dead."""
    masks = [CardSet.parse(h).mask for h in hands]
    ruleset = get_ruleset(rules)
    dead = ruleset.table.pack
    for mask in masks:
        dead &= ~mask
    return Deal.create(masks, dead, parse_card(turnup), ruleset)


def _play_line(deal: Deal, leads: list[str]) -> Position:
    position = Position.from_deal(deal)
    for lead in leads:
        _, position = position.play(parse_card(lead))
    return position


def test_going_out_ends_the_deal_in_the_middle_of_a_run() -> None:
    deal = composed(["2C AH", "3C", "4C 5C 9S"], "KD")
    run, end = Position.from_deal(deal).play(parse_card("2C"))
    assert [card_name(c) for c in run.cards] == ["2C", "3C"]  # seat 2 is out on its 3C
    assert run.winner == 2
    assert run.reason is StopReason.OUT
    assert end.is_over
    assert not end.played >> parse_card("4C") & 1
    # Seat 2: Game 1, plus 1 card from seat 1 and 3 (4C 5C 9S) from seat 3.
    assert play_values(end.game, Board(), end.played, 2) == (-1, 5, -3)


@pytest.mark.parametrize(("exemption", "expected"), [("true", (0, -1, 2)),
                                                      ("false", (-1, -1, 3))])
def test_an_unplayed_pope_exempts_its_holder(exemption: str, expected: tuple[int, ...]) -> None:
    deal = composed(["9D 2C", "AC", "3C 4C"], "KH",
                    f"hoyle-modernized+pope_exemption={exemption}")
    end = _play_line(deal, ["2C"])  # 2C 3C 4C: seat 3 out
    assert end.winner == 3
    assert play_values(end.game, Board(), end.played, 3) == expected


def test_pope_played_takes_pope_and_ends_exemption() -> None:
    deal = composed(["9D AS", "TD", "2S 3S"], "KS")
    end = _play_line(deal, ["9D"])  # 9D TD: seat 2 out
    assert end.winner == 2
    # Seat 1: Pope 6, pays 1 (no exemption once Pope is played); seat 2: Game 1 + 1 + 2.
    assert play_values(end.game, Board(), end.played, 2) == (5, 4, -2)


@pytest.mark.parametrize(("pairs", "expected"), [("same-player", (0, 5, -2)),
                                                  ("divided", (1, 6, -2))])
def test_matrimony_same_player_or_divided(pairs: str, expected: tuple[int, ...]) -> None:
    deal = composed(["QC AS", "KC", "2S 3S"], "AC", f"hoyle-modernized+pairs={pairs}")
    end = _play_line(deal, ["QC"])  # QC KC: seat 2 out on the king
    board = Board(matrimony=3)
    values = play_values(end.game, board, end.played, 2)
    # Queen 1 to seat 1; King 1 and Game 1 to seat 2, paid 1 + 2; divided: 1 each of 3.
    assert values == expected
    result = settle(deal.with_board(board), end.played, 2)
    assert [t.payer for t in result.turnup] == [Compartment.ACE]  # the AC turned up
    paid_out = sum(t.amount for t in result.play if isinstance(t.payer, Compartment))
    assert sum(values) == paid_out


def test_matrimony_when_one_player_plays_both() -> None:
    deal = composed(["QC KC 5H", "2S", "3S 4S"], "AC")
    _, end = Position.from_deal(deal).play(parse_card("5H"))  # a stop: seat 1 leads again
    run, end = end.play(parse_card("QC"))  # QC KC: both seat 1's, and seat 1 is out
    assert run.winner == 1
    values = play_values(end.game, Board(), end.played, 1)
    assert values[0] == 1 + 1 + 2 + 1 + 1 + 2  # Q, K, Matrimony, Game, 1 + 2 cards


def test_turnup_awards() -> None:
    deal = hoyle_dead_hand()
    award = turnup_award(deal, Board())
    assert [(t.payer, t.payee, t.amount) for t in award.transfers] == [
        (Compartment.KING, 4, 1)]
    assert award.deal_is_played


def test_dressing_by_dealer_or_players() -> None:
    assert sum(t.amount for t in dressing(get_ruleset("britannica"), 4)) == 15
    by_players = dressing(get_ruleset("early-hoyle"), 4)
    assert [net(by_players, s) for s in range(1, 5)] == [-2, -2, -2, 6 - 15]
    by_peel = dressing(get_ruleset("peel"), 4)
    assert [net(by_peel, s) for s in range(1, 5)] == [-3, -3, -3, -6]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", range(3, 9))
def test_every_dressing_balances(variant: str, players: int) -> None:
    rules = get_ruleset(variant)
    transfers = dressing(rules, players)
    paid = -sum(net(transfers, s) for s in range(1, players + 1))
    dressed = apply_to_board(Board(0, 0, 0, 0, 0, 0, 0, 0), transfers)
    assert dressed == compile_rules(rules).dressing(players).layout
    assert paid == dressed.total()
    assert all(net(transfers, s) <= 0 for s in range(1, players + 1))  # no one is paid to dress
    fresh = deal_random(players, 7, rules)
    assert fresh.board is None
    assert fresh.board_or_dressed == dressed


def test_final_round_clears_all_but_game() -> None:
    deal = deal_random(5, 11)
    hands = tuple(deal.dealt_hand(s) | (deal.dead if s == 0 else 0) for s in range(5))
    board = Board(pope=9, matrimony=5, intrigue=3, ace=2, king=2, queen=2, jack=2, game=4)
    transfers = final_round(hands, board)
    after = apply_to_board(board, transfers)
    assert after == Board(0, 0, 0, 0, 0, 0, 0, 4)
    assert sum(t.amount for t in transfers) == board.total() - 4
    queen_holder = next(s + 1 for s in range(5) if hands[s] >> make_card(1, 11) & 1)
    assert net(transfers, queen_holder) >= 2 + 1 + 2


@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts_keep_every_invariant(variant: str) -> None:
    rules = get_ruleset(variant)
    rng = random.Random(variant)
    for index in range(40):
        players = 3 + index % 6
        deal = deal_random(players, 1234, rules, index,
                           board=on_board(variant, Board(*(rng.randrange(0, 9) for _ in range(8)))))
        award = turnup_award(deal, deal.board_or_dressed)
        position = Position.from_deal(deal)
        successor = rules.table.successor
        leads = 0
        while not position.is_over:
            leads += 1
            assert leads <= 51
            options = position.legal_leads()
            assert options, "a player with cards always has a lead"
            before = position.played
            run, position = position.play(rng.choice(options))
            assert run.cards
            assert not before & run.mask
            assert all(successor[a] == b for a, b in zip(run.cards, run.cards[1:], strict=False))
            if not position.is_over:
                # Played cards always sit on top of their stretch (docs/solver.md, fact 1).
                in_play = deal.in_play
                for card in range(52):
                    if position.played >> card & 1:
                        above = successor[card]
                        assert above < 0 or not in_play >> above & 1 or \
                            position.played >> above & 1
        winners = [s for s in range(1, players + 1)
                   if not position.game.held(position.played, s)]
        assert winners == [position.winner]
        result = settle(deal, position.played, position.winner)
        gained = sum(result.net(s) for s in range(1, players + 1))
        assert gained + result.board_after.total() == deal.board_or_dressed.total()
        assert all(n >= 0 for _, n in result.board_after.items())
        if not award.deal_is_played:
            assert result.play == ()


def test_a_pope_turnup_ends_the_deal_under_early_hoyle() -> None:
    deal = deal_random(4, 24, get_ruleset("early-hoyle"))
    moved = Deal.create(deal.hands, deal.dead, POPE, deal.rules) if deal.dead >> POPE & 1 else None
    assert moved is not None
    result = settle(moved, 0, None)
    assert result.net(4) == 6 + 1 + 3 * 11
    assert result.board_after.pope == 0
    assert result.board_after.game == 0
    assert settle(moved, 0, -1) == result  # -1, the old word for no one, is still taken


def test_no_one_is_out_is_none_until_a_seat_goes_out() -> None:
    """``Position.winner`` and ``Game.winner`` say None while the deal goes on, then the
    seat out (from 1); ``settle`` takes None (or -1) for no one out and refuses it once a seat
    is out; with no one out the going-out payments are none."""
    deal = deal_random(4, 7, get_ruleset("hoyle-modernized"))
    position = Position.from_deal(deal)
    assert position.winner is None
    assert position.game.winner(position.played) is None
    assert not position.is_over
    while not position.is_over:
        _, position = position.play(position.legal_leads()[0])
    winner = position.winner
    assert winner is not None
    assert not position.game.held(position.played, winner)
    assert position.game.winner(position.played) == winner
    with pytest.raises(DealError, match="winner says no one went out"):
        settle(deal, position.played, None)
    with pytest.raises(DealError, match="winner says no one went out"):
        settle(deal, position.played, -1)
    game, board = position.game, deal.board_or_dressed
    assert going_out(game, board, position.played, None) == []
    assert going_out(game, board, position.played, -1) == []
    assert play_values(game, board, 0, None) == (0,) * 4


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(VARIANTS), st.integers(3, 8), st.integers(0, 10**9),
       st.builds(Board, *[st.integers(0, 30)] * 8), st.randoms(use_true_random=False))
def test_every_line_terminates_and_conserves_counters(variant: str, players: int, seed: int,
                                                     board: Board, rng: random.Random) -> None:
    board = on_board(variant, board)
    deal = deal_random(players, seed, get_ruleset(variant), board=board)
    position = Position.from_deal(deal)
    leads = 0
    while legal := position.legal_leads():
        _, position = position.play(rng.choice(legal))
        leads += 1
    assert leads <= 51
    out = sum(1 for s in range(1, players + 1) if not position.game.held(position.played, s))
    unplayed = deal.turnup == compile_rules(deal.rules).ends_deal_turnup
    assert (leads, out) == (0, 0) if unplayed else out == 1
    result = settle(deal, position.played, position.winner)
    before = board.total()
    moved = sum(result.net(s) for s in range(1, players + 1))
    assert moved + result.board_after.total() == before
    assert all(count >= 0 for _, count in result.board_after.items())
    with_dressing = sum(result.net(s, include_dressing=True) for s in range(1, players + 1))
    layout = compile_rules(deal.rules).dressing(players).layout
    assert with_dressing == moved - layout.total()  # the players paid for the fresh board


@pytest.mark.parametrize("name", ["hoyle-modernized", "spinado"])
def test_reachable_gives_every_position_play_reaches_once(name: str) -> None:
    """From a short deal's outset: the outset first, no position twice, and every outcome of
    every legal lead of each position is among them (closed under play); a finished deal is
    reached."""
    from tests.conftest import short_deal

    start = Position.from_deal(short_deal(3, 3, 4, get_ruleset(name)))
    found = list(start.reachable())
    keys = [(p.played, p.leader) for p in found]
    assert keys[0] == (start.played, start.leader)
    known = set(keys)
    assert len(keys) == len(known)
    for position in found:
        for lead in position.legal_leads():
            for run in position.outcomes(lead):
                after = position.after(run)
                assert (after.played, after.leader) in known
    assert any(p.is_over for p in found)


def _turned_up(deal: Deal, card: int) -> Deal:
    """``deal`` with ``card`` turned up, exchanged for a dead card if a seat holds it."""
    hands = [deal.dealt_hand(s) for s in range(deal.players)]
    dead = deal.dead
    spare = next(c for c in iter_mask(dead) if c != deal.turnup)
    for seat, hand in enumerate(hands):
        if hand >> card & 1:
            hands[seat] = hand & ~(1 << card) | 1 << spare
            dead = dead & ~(1 << spare) | 1 << card
    return Deal.create(tuple(hands), dead, card, deal.rules)


def test_a_deal_its_turn_up_ended_offers_no_lead() -> None:
    """Early Hoyle: "when Pope be turned up, the dealer is entitled both to that and the
    game" -- the deal is not played: its outset has no legal lead, unlike any other turn-up's."""
    deal = deal_random(3, 11, get_ruleset("early-hoyle"))
    pope_up = Position.from_deal(_turned_up(deal, POPE))
    assert pope_up.legal_leads() == []
    assert list(pope_up.reachable()) == [pope_up]
    other = next(c for c in iter_mask(deal.dead) if c != POPE)
    assert Position.from_deal(_turned_up(deal, other)).legal_leads()
