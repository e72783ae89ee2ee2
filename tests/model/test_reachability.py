"""Positions must be ones that play can reach: the check against brute-force enumeration."""

from __future__ import annotations

import pytest

from popejoan_solver.model.cards import POPE, CardSet, iter_mask
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.errors import DealError
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.reachability import Verdict, reachability
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.model.table import SPIN
from tests.conftest import deal_holding, short_deal


def _reached_by_play(game: Game) -> set[tuple[int, int]]:
    """Every (played, leader) that play reaches from the outset; leader 0 (no seat) once a
    seat is out."""
    seen: set[tuple[int, int]] = set()
    todo = [Position(game, 0, 1)]
    while todo:
        position = todo.pop()
        key = (position.played, 0 if position.is_over else position.leader)
        if key in seen:
            continue
        seen.add(key)
        for lead in position.legal_leads():  # every run a lead can end in, by its choices
            todo += [position.after(run) for run in position.outcomes(lead)]
    return seen


CHOICES = {"spinado": SPIN, "hoyle-modernized+pope_in_lieu=run-continues": POPE,
           "hoyle-modernized+pope_in_lieu=pope-leads-after-king": POPE}
"""Rulesets with a choice inside a run, and the card whose holder chooses (dealt in these
tests, so that the choices arise)."""


@pytest.mark.parametrize("ruleset", sorted(set(RULESETS) | set(CHOICES)))
@pytest.mark.parametrize("seed", range(4))
def test_the_check_accepts_exactly_the_positions_play_reaches(ruleset: str, seed: int) -> None:
    players, per_hand = 3, 3 + seed % 2
    rules = get_ruleset(ruleset)
    if ruleset in CHOICES:
        deal = deal_holding(ruleset, CHOICES[ruleset], players, per_hand, seed)
    else:
        deal = short_deal(players, per_hand, seed, rules)
    game = Game.from_deal(deal)
    reached = _reached_by_play(game)
    cards = list(iter_mask(game.in_play))
    for subset in range(1 << len(cards)):
        played = sum(1 << cards[i] for i in range(len(cards)) if subset >> i & 1)
        out = [s for s in range(players) if not game.dealt[s] & ~played]
        if len(out) > 1:
            continue
        for leader in range(1, players + 1):
            verdict = reachability(game, played, leader).verdict
            assert verdict is not Verdict.UNDECIDED
            key = (played, 0 if out else leader)
            assert (verdict is Verdict.REACHABLE) == (key in reached), (
                CardSet(played), leader, out)


def _position(hands: list[str], played: list[str], to_lead: int) -> Deal:
    from popejoan_solver.model.cards import PACK
    held = [CardSet.parse(h).mask for h in hands]
    done = [CardSet.parse(p).mask for p in played]
    dead = PACK
    for mask in held + done:
        dead &= ~mask
    return Deal.create(held, dead, next(iter_mask(dead)), played=done, leader=to_lead)


def test_a_finished_position_that_play_cannot_reach_is_refused() -> None:
    # Seat 1 played AC 2C and seat 2 the 3C, but seat 3's 4C would have followed the 3C.
    with pytest.raises(DealError, match="cannot arise in play"):
        _position(["", "2S", "3S 4S 4C"], ["AC 2C", "3C", ""], 1)


def test_the_seat_to_lead_must_have_played_the_last_stop() -> None:
    # Seat 1 led 2C (3C dead: a stop), so seat 1 leads again; seat 2 has played nothing.
    _position(["5H", "6H", "7H"], ["2C", "", ""], 1)
    with pytest.raises(DealError, match="seat 2 is to lead but has played no card"):
        _position(["5H", "6H", "7H"], ["2C", "", ""], 2)


def test_nothing_played_means_eldest_leads() -> None:
    with pytest.raises(DealError, match="eldest"):
        _position(["5H", "6H", "7H"], ["", "", ""], 2)


@pytest.mark.parametrize("ruleset", sorted(set(RULESETS) | set(CHOICES)))
def test_positions_of_random_play_on_full_deals_are_confirmed(ruleset: str) -> None:
    """Random lines, each choice inside a run taken at random (a Spin or a Pope in lieu ends
    a run whose next card a player holds: the quick checks must allow it)."""
    import random

    from popejoan_solver.model.deal import deal_random
    rng = random.Random(ruleset)
    for index in range(15):
        deal = deal_random(3 + index % 6, 11, get_ruleset(ruleset), index)
        position = Position.from_deal(deal)
        for _ in range(rng.randint(1, 30)):
            if position.is_over:
                break
            runs = position.outcomes(rng.choice(position.legal_leads()))
            position = position.after(rng.choice(runs))
        found = reachability(position.game, position.played, position.leader)
        assert found.verdict is Verdict.REACHABLE, found


POPE_ENDED = ("early-hoyle: 37.37K.49.A7Q 4.4.A5J.38 A5.A5T.27Q.4T 26.26Q.38K.6J | "
              "K.9J.6T.259 ^9D | played J... 8Q...K 9... T... | lead 4")
"""Early Hoyle with the Pope turned up, which ends the deal unplayed, and cards played."""


def test_no_card_is_played_after_a_turn_up_that_ends_the_deal() -> None:
    """The same cards are a position of hoyle-modernized, whose turned-up Pope is a
    compartment taken; under early-hoyle the command line analysed it as given (``main`` in
    this process: the answer is checked here, not the process)."""
    from popejoan_solver.model.notation import deal_from_line
    from tests.contract import assert_contract, run_main
    deal_from_line(POPE_ENDED.replace("early-hoyle", "hoyle-modernized"))
    with pytest.raises(DealError, match="the turn-up 9D ends the deal unplayed"):
        deal_from_line(POPE_ENDED)
    outcome = run_main(["solve", POPE_ENDED, "--time-limit", "5"])
    assert_contract(outcome)
    assert "ends the deal unplayed" in outcome.stderr
