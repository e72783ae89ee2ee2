"""The solver: differential tests against the reference engine, hand-checked deals, properties."""

from __future__ import annotations

import os
import types
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import card_name, make_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.settlement import play_values
from popejoan_solver.search import Goal, Objective, solve
from popejoan_solver.search.facts import goes_out_now as fast_goes_out_now
from popejoan_solver.search.facts import isolated_cards as fast_isolated_cards
from popejoan_solver.search.facts import isolation_applies as fast_isolation_applies
from popejoan_solver.search.facts import kept_apart as fast_kept_apart
from popejoan_solver.search.facts import lead_floor as fast_lead_floor
from popejoan_solver.search.facts import out_in_two as fast_out_in_two
from popejoan_solver.search.facts import own_isolation_applies as fast_own_isolation_applies
from popejoan_solver.search.facts import own_kept_apart as fast_own_kept_apart
from popejoan_solver.search.facts import played_first as fast_played_first
from popejoan_solver.search.fast import COMPILED, FastEngine
from tests.conftest import short_deal
from tests.model.test_play_and_settlement import VARIANTS, composed
from tests.search.cores import BothCores, Reference


def test_the_compiled_core_is_built() -> None:
    # A failed build would silently fall back to the pure-Python search, many times slower.
    if os.environ.get("POPEJOAN_PURE_PYTHON"):
        pytest.skip("POPEJOAN_PURE_PYTHON is set")
    assert COMPILED


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_fast_engine_agrees_with_reference(variant: str) -> None:
    """Both cores against the reference on short deals of 3 to 8 players, every seat and
    goal at the outset and the guaranteed value after each first lead."""
    rules = get_ruleset(variant)
    for seed in range(12):
        players = 3 + seed % 6
        per_hand = 3 + seed % 3 if players < 6 else 3
        deal = short_deal(players, per_hand, seed, rules)
        board = Board(*(1 + (seed * k) % 5 for k in range(1, 9)))
        game = Game.from_deal(deal)
        fast = BothCores(game, board)
        reference = Reference(game, board)
        position = Position.from_deal(deal)
        for seat in range(1, players + 1):
            for goal in Goal:
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    variant, seed, seat, goal)
        for lead in position.legal_leads():
            _, after = position.play(lead)
            objective = Objective(Goal.GUARANTEED, 1)
            assert fast.value(objective, after.played, after.leader) == \
                reference.value(objective, after.played, after.leader)


def test_full_solutions_agree_between_engines() -> None:
    deal = short_deal(4, 5, 99, get_ruleset("hoyle-modernized"))
    fast, reference = solve(deal), solve(deal, engine="reference")
    assert fast.seats == reference.seats
    assert fast.leads == reference.leads
    assert [s.run for s in fast.line] == [s.run for s in reference.line]


def test_hand_checked_three_card_deal() -> None:
    # Seat 1: 2C 5H. Seat 2: 3C. Seat 3: AD 2D. Every other card is dead.
    # Seat 1 leads 2C: 2C, then seat 2's 3C, its only card: seat 2 is out. Seat 2 takes Game 1
    #   and 1 + 2 cards: (-1, 4, -2).
    # Seat 1 leads 5H: a stop (6H dead), so seat 1 leads again, its last card 2C, and is out
    #   before the 3C is reached: (4, -1, -2).
    deal = composed(["2C 5H", "3C", "AD 2D"], "KS")
    solution = solve(deal)
    seat1, seat2, seat3 = solution.seats
    assert (seat1.guaranteed.lower, seat1.forced_win.lower, seat1.best_case.lower) == (4, 1, 4)
    assert [(card_name(lead.card), lead.guaranteed.lower) for lead in solution.leads] == [
        ("2C", -1), ("5H", 4)]
    assert (seat2.guaranteed.lower, seat2.forced_win.lower, seat2.best_case.lower) == (-1, 0, 4)
    assert seat3.guaranteed.lower == seat3.best_case.lower == -2
    assert [card_name(s.run.lead) for s in solution.line] == ["5H", "2C"]


def test_hand_checked_forced_win() -> None:
    # Seat 1: AC 2C 3C (one run, all its own): it leads AC and is out at once.
    deal = composed(["AC 2C 3C", "5H 6S", "7D 9S"], "KD")
    seat1 = solve(deal).seat(1)
    assert seat1.forced_win.lower == 1
    assert seat1.guaranteed.lower == 1 + 2 + 2  # Game, two cards from each other seat


@settings(max_examples=25, deadline=None)
@given(st.integers(3, 6), st.integers(2, 4), st.integers(0, 10**6),
       st.sampled_from(VARIANTS))
def test_value_properties(players: int, per_hand: int, seed: int, variant: str) -> None:
    deal = short_deal(players, per_hand, seed, get_ruleset(variant))
    solution = solve(deal)
    dressed = deal.board_or_dressed  # the ruleset's fresh board for this many players
    board_total = dressed.total()
    game = Game.from_deal(deal)
    # Spinado's Kings and Spin: paid by every opponent of the card's player.
    between = [a for a in game.table.awards(game.trumps)
               if a.compartment is None and game.holder(a.cards[0]) is not None]
    for seat in solution.seats:
        owed = sum(a.from_each for a in between if game.holder(a.cards[0]) != seat.seat)
        owing = sum(a.from_each * (players - 1) for a in between
                    if game.holder(a.cards[0]) == seat.seat)
        assert seat.guaranteed.lower <= seat.best_case.lower
        if seat.forced_win.lower:
            assert seat.guaranteed.lower >= dressed.game - owed
        assert seat.guaranteed.lower >= -deal.hands[seat.seat - 1].bit_count() - owed
        assert seat.best_case.lower <= board_total + sum(h.bit_count() for h in deal.hands) + owing
    # The line ends with one player out, and its values sum to what the board paid out.
    if solution.line:
        last = solution.line[-1]
        assert last.run.winner is not None
        game = Game.from_deal(deal)
        played = 0
        for step in solution.line:
            played |= step.run.mask
        values = play_values(game, dressed, played, last.run.winner)
        paid = sum(t.amount for step in solution.line for t in step.paid
                   if not isinstance(t.payer, int))
        assert sum(values) == paid
        focus = solution.line_seat - 1
        assert values[focus] == solution.seat(solution.line_seat).guaranteed.lower


def test_values_sum_to_the_board_paid_out() -> None:
    # Every terminal of a small deal: the seats' values sum to the counters taken from the board.
    deal = short_deal(3, 3, 5, get_ruleset("britannica"))
    game = Game.from_deal(deal)
    board = Board(pope=4, matrimony=3, intrigue=3, ace=2, king=2, queen=2, jack=2, game=3)
    from popejoan_solver.search.graph import build_graph
    graph, _ = build_graph(deal)
    from popejoan_solver.model.settlement import compartments_taken, going_out
    for _, data in graph.nodes(data=True):
        if data["terminal"]:
            from popejoan_solver.model.cards import CardSet
            played = CardSet.parse(data["played"]).mask
            winner = data["winner"] or None  # the graph's 0: no one out
            taken = compartments_taken(game, board, played) + going_out(game, board, played,
                                                                        winner)
            from_board = sum(t.amount for t in taken if not isinstance(t.payer, int))
            assert sum(play_values(game, board, played, winner)) == from_board


def test_pope_turnup_ending_the_deal_is_reported() -> None:
    deal = composed(["AC 2C", "3C 4C", "5C 6C"], "9D", "early-hoyle")
    solution = solve(deal)
    assert solution.notes
    assert "not played" in solution.notes[0]
    assert {t.reason for t in solution.turnup} >= {"Pope turned up", "a stake per card dealt"}


def test_unknown_engine() -> None:
    from popejoan_solver.model.errors import PopeJoanError
    with pytest.raises(PopeJoanError, match="unknown engine"):
        solve(composed(["AC", "2C", "3C"], "KS"), engine="quantum")


def test_a_finished_position_is_scored_and_said_to_be_over() -> None:
    from popejoan_solver.model.cards import PACK, CardSet
    from popejoan_solver.model.deal import Deal
    # Seat 1 leads 2C: 3C (seat 2), 4C (seat 1), stop (5C dead); seat 1 leads AC and is out.
    hands = [0, CardSet.parse("2S").mask, CardSet.parse("3S 4S KC").mask]
    played = [CardSet.parse("AC 2C 4C").mask, CardSet.parse("3C").mask, 0]
    dead = PACK
    for mask in hands + played:
        dead &= ~mask
    deal = Deal.create(hands, dead, CardSet.parse("KS").mask.bit_length() - 1,
                       played=played, leader=1)
    solution = solve(deal)
    assert solution.notes == ("the deal is over: seat 1 has gone out",)
    # Seat 1 is out: Game 1, one card from seat 2 and three from seat 3.
    assert [s.guaranteed.lower for s in solution.seats] == [5, -1, -3]
    assert solution.leads == ()
    assert solution.line == ()


def test_solves_in_threads_agree_with_solves_in_turn() -> None:
    """The compiled core searches without the GIL and shares freed tables between searches:
    concurrent solves must give exactly the values of solves one after another."""
    import threading

    from popejoan_solver.model.deal import deal_random

    def values(index: int) -> list[int]:
        solution = solve(deal_random(6, 1, index=index), with_line=False, threads=1)
        return [s.guaranteed.lower for s in solution.seats]

    found: dict[int, list[int]] = {}
    threads = [threading.Thread(target=lambda i=i: found.__setitem__(i, values(i)))
               for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == {i: values(i) for i in range(6)}


@pytest.mark.parametrize(("players", "rules"), [(3, "britannica"), (4, "parlett"),
                                                (5, "hoyle-modernized"), (7, "early-hoyle")])
def test_seats_searched_side_by_side_give_the_sequential_solution(players: int,
                                                                  rules: str) -> None:
    """One engine per thread, seats and goals spread over them: the same values, leads and
    line as one engine doing everything in turn."""
    from popejoan_solver.model.deal import deal_random

    for index in range(3):
        deal = deal_random(players, 11, get_ruleset(rules), index)
        one = solve(deal, threads=1)
        many = solve(deal, threads=3)
        assert (many.stats.threads, one.stats.threads) == (3, 1)
        assert (many.seats, many.leads, many.line) == (one.seats, one.leads, one.line)
        assert solve(deal, seats=[2], threads=2).seats == (one.seat(2),)


def test_threads_must_be_positive() -> None:
    from popejoan_solver.model.deal import deal_random
    from popejoan_solver.model.errors import PopeJoanError

    with pytest.raises(PopeJoanError, match="threads"):
        solve(deal_random(3, 1), threads=0)


@pytest.mark.parametrize("rules", ["hoyle-modernized", "early-hoyle",
                                   "hoyle-modernized+pope_in_lieu=pope-leads"])
def test_the_kept_pope_floor_agrees_with_reference(rules: str) -> None:
    """Fact 3e (the Pope's holder keeps it to the end under lead=any) bounds its holder's value
    from below: every seat and goal against the reference on deals where the Pope is held."""
    from popejoan_solver.model.cards import POPE
    from tests.conftest import deal_holding

    for seed in range(6):
        players = 3 + seed % 3
        deal = deal_holding(rules, POPE, players, 5 if players == 3 else 4, 900 + seed)
        board = Board(*(1 + (seed * k) % 4 for k in range(1, 9)))
        game = Game.from_deal(deal)
        fast = BothCores(game, board)
        reference = Reference(game, board)
        for seat in range(1, players + 1):
            for goal in (Goal.GUARANTEED, Goal.BEST_CASE):
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    rules, seed, seat, goal)


@pytest.mark.parametrize("seed", [56, 156])
def test_the_kept_pope_floor_needs_lead_any(seed: int) -> None:
    """Under lead=lowest-in-hand the Pope's holder may have to lead it, so fact 3e must not
    apply: on these deals (found by searching seeds with fact 3e applied under every lead rule,
    where seat 1's guaranteed value came out 0 instead of -1) both cores agree with the
    reference."""
    from popejoan_solver.model.cards import POPE
    from tests.conftest import deal_holding

    deal = deal_holding("hoyle-modernized+lead=lowest-in-hand", POPE, 3, 4, seed)
    board = Board(*(1 + (seed * k) % 4 for k in range(1, 9)))
    game = Game.from_deal(deal)
    fast = BothCores(game, board)
    reference = Reference(game, board)
    for seat in range(1, 4):
        objective = Objective(Goal.GUARANTEED, seat)
        assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), seat


def _race_without_the_last_stretch(up: tuple[int, ...], dealt: tuple[int, ...], target: int,
                                   played: int, held: int, off_lead: bool = False,
                                   lead_any: bool = False) -> int:
    """A wrong fact 3f: as if the seat going out climbed to the top of every stretch, its
    last one too (it may go out in the middle of a run)."""
    least = held.bit_count()
    for seat, cards in enumerate(dealt):
        if seat != target:
            theirs, total = cards & ~played, 0
            while theirs:
                span = up[(theirs & -theirs).bit_length() - 1]
                theirs &= ~span
                total += (span & held).bit_count()
            least = min(least, total)
    return least


RACE_DEALS = [(41, 5), (96, 1), (104, 1)]
"""Seeds of ``short_deal(3 + seed % 3, 4 + seed % 2, seed)`` (hoyle-modernized) and a seat
whose guaranteed value the wrong fact 3f above gets wrong (found by searching seeds)."""


def _race_deal(seed: int, rules: str = "hoyle-modernized") -> tuple[Game, Board]:
    deal = short_deal(3 + seed % 3, 4 + seed % 2, seed, get_ruleset(rules))
    return Game.from_deal(deal), Board(*(1 + (seed * k) % 4 for k in range(1, 9)))


def _race_deals_agree(rules: str, seeds: list[int], goal: Goal) -> None:
    """Every seat's value for ``goal`` on ``_race_deal(seed, rules)`` of each seed: the fast
    engine's two cores against the reference."""
    for seed in seeds:
        game, board = _race_deal(seed, rules)
        fast, reference = BothCores(game, board), Reference(game, board)
        for seat in range(1, game.players + 1):
            objective = Objective(goal, seat)
            assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                rules, seed, seat)


@pytest.mark.parametrize("rules", ["hoyle-modernized", "early-hoyle", "britannica",
                                   "hoyle-modernized+lead=lowest-in-hand"])
def test_the_race_floor_agrees_with_reference(rules: str) -> None:
    """Fact 3f (the others' race to go out plays some of the target's cards first): every
    seat's guaranteed value against the reference, on the deals that catch a wrong version."""
    _race_deals_agree(rules, [s for s, _ in RACE_DEALS] + [200, 201, 202], Goal.GUARANTEED)


def _mutant_differs(game: Game, board: Board, objective: Objective) -> bool:
    """Whether the Python engine (running a mutant fact) and the reference disagree."""
    wrong = FastEngine(game, board, compiled=False).value(objective, 0, 1)
    return wrong != Reference(game, board).value(objective, 0, 1)

def test_a_wrong_race_floor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of fact 3f: ignoring that the seat going out may stop in the middle
    of its last run makes the Python engine disagree with the reference on each deal above."""
    from popejoan_solver.search import facts as facts_module

    monkeypatch.setattr(facts_module, "race_sure", _race_without_the_last_stretch)
    for seed, seat in RACE_DEALS:
        game, board = _race_deal(seed)
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), seed


_PLAYED_FIRST = fast_played_first
_GOES_OUT_NOW = fast_goes_out_now
"""The true facts 3g and 3i, taken when this module is imported: a mutant wraps these, never
whatever the module holds at the time (an earlier case's mutant)."""

def _own_runs_mutant(mutation: str) -> Callable[..., tuple[int, int, int]]:
    """A wrong fact 3g: used when the target is not on lead ("not-on-lead"), under the
    lowest-card lead rules ("lowest-card"), or with the Pope among the own runs, its stake
    then counted twice ("pope")."""
    def wrong(up: tuple[int, ...], on_lead: bool, lead_any: bool, played: int, held: int,
              exempt_bit: int) -> tuple[int, int, int]:
        return _PLAYED_FIRST(up, on_lead or mutation == "not-on-lead",
                            lead_any or mutation == "lowest-card", played, held,
                            0 if mutation == "pope" else exempt_bit)
    return wrong


OWN_RUN_DEALS = [("not-on-lead", "hoyle-modernized", 0, 3),
                 ("not-on-lead", "hoyle-modernized", 1, 2),
                 ("lowest-card", "britannica", 0, 1), ("lowest-card", "britannica", 5, 5),
                 ("lowest-card", "britannica", 6, 1), ("pope", "hoyle-modernized", 90, 1),
                 ("pope", "hoyle-modernized", 93, 1), ("pope", "hoyle-modernized", 119, 1)]
"""(mutation, rules, seed, seat): deals where that wrong fact 3g gets the seat's guaranteed
value wrong (found by searching seeds); "pope" deals have the Pope dealt to a player."""


def _small_deal(pope: bool, rules: str, seed: int) -> tuple[Game, Board]:
    """``short_deal(3 + seed % 3, 4 + seed % 2, seed)``, or with the Pope dealt to a player
    (``pope``), and a board that varies with the seed: the deals the facts' tests search."""
    from popejoan_solver.model.cards import POPE
    from tests.conftest import deal_holding

    players, per_hand = 3 + seed % 3, 4 + seed % 2
    deal = (deal_holding(rules, POPE, players, per_hand, seed) if pope
            else short_deal(players, per_hand, seed, get_ruleset(rules)))
    return Game.from_deal(deal), Board(*(1 + (seed * k) % 4 for k in range(1, 9)))


def _own_run_deal(mutation: str, rules: str, seed: int) -> tuple[Game, Board]:
    return _small_deal(mutation == "pope", rules, seed)


def test_the_own_runs_floor_agrees_with_reference() -> None:
    """Fact 3g (on lead, the target first plays its runs of its own cards only): every seat's
    guaranteed value against the reference on the deals that catch the wrong versions."""
    for mutation, rules, seed, _ in OWN_RUN_DEALS:
        game, board = _own_run_deal(mutation, rules, seed)
        fast, reference = BothCores(game, board), Reference(game, board)
        for seat in range(1, game.players + 1):
            objective = Objective(Goal.GUARANTEED, seat)
            assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                rules, seed, seat)


def test_a_wrong_own_runs_floor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation tests of fact 3g: each wrong version makes the Python engine disagree
    with the reference on its deals."""
    from popejoan_solver.search import facts as facts_module

    for mutation, rules, seed, seat in OWN_RUN_DEALS:
        monkeypatch.setattr(facts_module, "played_first", _own_runs_mutant(mutation))
        game, board = _own_run_deal(mutation, rules, seed)
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), (mutation, seed)


def _pope_loss_mutant(mutation: str) -> Callable[..., int]:
    """A wrong fact 3h: the Pope's whole stretch counted, spans included ("stretch"), or fact
    3b's card charged again ("lead"). (Counting the holder's cards inside the spans as lost
    when he keeps the Pope is wrong too, but no small deal among 400 seeds shows it.)"""
    def wrong(up: tuple[int, ...], dealt: tuple[int, ...], holder: int, slot: int,
              bottom: bool, played: int, cover: int, open_cards: int, leader: int,
              led_outside: bool) -> int:
        keep = (dealt[holder] & ~played & ~cover).bit_count()
        stretch = up[slot] & (-1 if mutation == "stretch" else ~cover) & open_cards
        lost = stretch.bit_count()
        if mutation != "lead" and led_outside and leader == holder:
            return min(keep, lost) - 1
        if mutation != "lead" and led_outside and dealt[leader] & stretch:
            return min(keep + 1, lost) - 1
        return min(keep, lost)
    return wrong


POPE_BOUND_DEALS = [("lead", 8, 1), ("lead", 13, 4), ("lead", 31, 2), ("stretch", 73, 1),
                    ("stretch", 113, 1), ("stretch", 132, 1)]
"""(mutation, seed, seat): ``deal_holding("hoyle-modernized", POPE, 3 + seed % 3, 4 + seed %
2, seed)`` where that wrong fact 3h gets the seat's best case wrong (found by searching
seeds)."""


def _pope_bound_deal(seed: int, rules: str = "hoyle-modernized") -> tuple[Game, Board]:
    from popejoan_solver.model.cards import POPE
    from tests.conftest import deal_holding

    deal = deal_holding(rules, POPE, 3 + seed % 3, 4 + seed % 2, seed)
    return Game.from_deal(deal), Board(*(1 + (seed * k) % 4 for k in range(1, 9)))


@pytest.mark.parametrize(("rules", "seeds"), [
    ("hoyle-modernized", [s for _, s, _ in POPE_BOUND_DEALS]),
    ("britannica", [s for _, s, _ in POPE_BOUND_DEALS]),
    # the compiled general mode must not use it before the Pope in lieu is played
    ("hoyle-modernized+pope_in_lieu=run-continues", [8, 73])])
def test_the_pope_bound_agrees_with_reference(rules: str, seeds: list[int]) -> None:
    """Fact 3h (another seat's Pope, kept or led, costs the target more than one card): every
    seat's guaranteed value and best case against the reference, on the deals that catch the
    wrong versions."""
    for seed in seeds:
        game, board = _pope_bound_deal(seed, rules)
        fast, reference = BothCores(game, board), Reference(game, board)
        for seat in range(1, game.players + 1):
            for goal in (Goal.GUARANTEED, Goal.BEST_CASE):
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    rules, seed, seat, goal)


def test_a_wrong_pope_bound_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation tests of fact 3h: each wrong version makes the Python engine disagree with
    the reference on its deals."""
    from popejoan_solver.search import facts as facts_module

    for mutation, seed, seat in POPE_BOUND_DEALS:
        monkeypatch.setattr(facts_module, "pope_cards_lost", _pope_loss_mutant(mutation))
        game, board = _pope_bound_deal(seed)
        assert _mutant_differs(game, board, Objective(Goal.BEST_CASE, seat)), (mutation, seed)


def _going_out_mutant(mutation: str) -> Callable[..., bool]:
    """A wrong fact 3i: used when the target is not on lead ("not-on-lead"), or when what is
    left after its own runs is two blocks ("two-blocks": a second lead would be needed)."""
    from popejoan_solver.search.facts import longest_block

    def wrong(lead_any: bool, on_lead: bool, up: tuple[int, ...], played: int, held: int,
              exempt_bit: int) -> bool:
        if mutation == "not-on-lead":
            return _GOES_OUT_NOW(lead_any, True, up, played, held, exempt_bit)
        if not (lead_any and on_lead):
            return False
        left, cards = held, held & ~exempt_bit
        while cards:
            low = cards & -cards
            cards ^= low
            if not up[low.bit_length() - 1] & ~played & ~held:
                left ^= low
        return longest_block(left) >= left.bit_count() - 1
    return wrong


GOING_OUT_DEALS = [("not-on-lead", 0, 3), ("not-on-lead", 1, 2), ("not-on-lead", 2, 2),
                   ("two-blocks", 1, 1), ("two-blocks", 5, 5), ("two-blocks", 8, 1)]
"""(mutation, seed, seat): ``short_deal(3 + seed % 3, 4 + seed % 2, seed)`` (hoyle-modernized)
where that wrong fact 3i gets the seat's guaranteed value wrong (found by searching seeds)."""


def test_the_going_out_floor_agrees_with_reference() -> None:
    """Fact 3i (the target on lead that can play all its cards first goes out now): every
    seat's guaranteed value and forced win against the reference, on the deals that catch the
    wrong versions."""
    for seed in sorted({seed for _, seed, _ in GOING_OUT_DEALS}):
        game, board = _race_deal(seed)
        fast, reference = BothCores(game, board), Reference(game, board)
        for seat in range(1, game.players + 1):
            for goal in (Goal.GUARANTEED, Goal.FORCED_WIN):
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    seed, seat, goal)


def test_a_wrong_going_out_floor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation tests of fact 3i: each wrong version makes the Python engine disagree with
    the reference on its deals."""
    from popejoan_solver.search import facts as facts_module

    # Fact 3j (other_goes_out) calls goes_out_now too: it keeps the true one, so that only
    # fact 3i is wrong here.
    true_3j = types.FunctionType(facts_module.other_goes_out.__code__,
                                 {**vars(facts_module), "goes_out_now": _GOES_OUT_NOW})
    monkeypatch.setattr(facts_module, "other_goes_out", true_3j)
    for mutation, seed, seat in GOING_OUT_DEALS:
        monkeypatch.setattr(facts_module, "goes_out_now", _going_out_mutant(mutation))
        game, board = _race_deal(seed)
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), (mutation, seed)


def _any_seat_out(lead_any: bool, up: tuple[int, ...], dealt: tuple[int, ...], played: int,
                  leader: int, target: int, exempt_bit: int) -> int:
    """A wrong fact 3j: any other seat that could go out at once if it were on lead is taken
    to go out, not only the seat on lead."""
    from popejoan_solver.search.facts import goes_out_now

    for seat, cards in enumerate(dealt):
        if seat != target and goes_out_now(lead_any, True, up, played, cards & ~played,
                                           exempt_bit):
            return seat
    return -1


OTHER_OUT_SEEDS = [(9, 1), (2, 1), (5, 5), (7, 2)]
"""(seed, seat) of ``short_deal(3 + seed % 3, 4 + seed % 2, seed)`` (hoyle-modernized) where
the wrong fact 3j gets the seat's guaranteed value wrong (found by searching seeds; (5, 1)
stopped showing it once fact 3k cut first, and (5, 5), (7, 2) were found the same way; (1, 1)
once fact 5b did, and (9, 1) replaced it)."""


def test_the_other_seat_going_out_agrees_with_reference() -> None:
    """Fact 3j (another seat on lead that can go out at once bounds the value: from above if it
    plays against the target, from below if for it): every seat and goal, both cores, against
    the reference on the deals that catch the wrong version."""
    for seed, _ in OTHER_OUT_SEEDS:
        game, board = _race_deal(seed)
        reference = Reference(game, board)
        engines = [FastEngine(game, board, compiled=False)]
        if COMPILED:
            engines.append(FastEngine(game, board, compiled=True))
        for seat in range(1, game.players + 1):
            for goal in Goal:
                objective = Objective(goal, seat)
                value = reference.value(objective, 0, 1)
                assert [e.value(objective, 0, 1) for e in engines] == [value] * len(engines), (
                    seed, seat, goal)


def test_a_wrong_other_seat_going_out_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of fact 3j."""
    from popejoan_solver.search import facts as facts_module

    monkeypatch.setattr(facts_module, "other_goes_out", _any_seat_out)
    for seed, seat in OTHER_OUT_SEEDS:
        game, board = _race_deal(seed)
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), seed


_LEAD_FLOOR = fast_lead_floor
"""The true fact 3k, taken when this module is imported (a mutant wraps it)."""

LEAD_FLOOR_DEALS = [("all-cards", 1, 1), ("all-cards", 2, 1), ("all-cards", 5, 1),
                    ("pope-kept", 5, 5), ("pope-kept", 9, 1), ("pope-kept", 73, 1)]
"""(mutation, seed, seat) of ``_race_deal(seed)`` (hoyle-modernized) where that wrong fact 3k
gets the seat's guaranteed value wrong (found by searching seeds)."""


def _lead_floor_mutant(mutation: str, pope: int) -> Callable[..., int]:
    """A wrong fact 3k: every card of the lead's run counted as the target's ("all-cards"),
    or the Pope led in that run still taken to exempt its holder ("pope-kept")."""
    def wrong(up: tuple[int, ...], dealt: tuple[int, ...], played: int, rest_held: int,
              ending: Callable[[int, int], int], led: Callable[[int, int], int], floor: int,
              beta: int) -> int:
        def wrong_led(after: int, mine: int) -> int:
            return led(after, (after & ~played) | mine if mutation == "all-cards"
                       else mine & ~pope)
        return _LEAD_FLOOR(up, dealt, played, rest_held, ending, wrong_led, floor, beta)
    return wrong


def test_the_lead_floor_agrees_with_reference() -> None:
    """Fact 3k (on lead, its own runs played, the target leads its best card: a floor):
    every seat's guaranteed value against the reference on the deals that catch the wrong
    versions, and under early-hoyle and a lowest-card rule (where it is off) too."""
    for rules in ("hoyle-modernized", "early-hoyle", "britannica"):
        _race_deals_agree(rules, [seed for _, seed, _ in LEAD_FLOOR_DEALS], Goal.GUARANTEED)


def test_a_wrong_lead_floor_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation tests of fact 3k: each wrong version makes the Python engine disagree
    with the reference on its deals."""
    from popejoan_solver.search import facts as facts_module

    for mutation, seed, seat in LEAD_FLOOR_DEALS:
        game, board = _race_deal(seed)
        pope = FastEngine(game, board, compiled=False).slots.exempt_bit
        monkeypatch.setattr(facts_module, "lead_floor", _lead_floor_mutant(mutation, pope))
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), (mutation, seed)


def test_the_lead_floor_values_a_run_in_which_a_seat_goes_out_by_that_ending() -> None:
    """Fact 3k's going-out branch, which no small deal showed wrong when left out (docs/
    solver.md): a lead whose run takes another seat out is worth that ending (the cards up to
    the one it goes out on), the target's other leads what they keep; the best is returned,
    and the search stops at the first lead that reaches the window."""
    up = tuple([0b1111, 0b1110, 0b1100, 0b1000] + [1 << k for k in range(4, 64)])
    dealt = (0b1001, 0b0010, 0b0100 | 1 << 10)  # seat 1's last card is slot 1
    endings: list[tuple[int, int]] = []
    leds: list[tuple[int, int]] = []

    def ending(final: int, winner: int) -> int:
        endings.append((final, winner))
        return -5

    def led(after: int, mine: int) -> int:
        leds.append((after, mine))
        return -7

    assert fast_lead_floor(up, dealt, 0, 0b1001, ending, led, -100, 100) == -5
    assert endings == [(0b0011, 1)]  # seat 1 out on slot 1: slots 2 and 3 never played
    assert leds == [(0b1000, 0b1000)]
    endings.clear()
    leds.clear()
    assert fast_lead_floor(up, dealt, 0, 0b1001, ending, led, -100, -6) == -5
    assert leds == []  # the first lead reached the window


_OUT_IN_TWO = fast_out_in_two
"""The true fact 3l, taken when this module is imported (a mutant replaces it)."""

OUT_IN_TWO_DEALS = [(1, 1), (2, 1), (5, 5)]
"""(seed, seat) of ``_race_deal(seed)`` (hoyle-modernized) where fact 3l taken to hold when
the lead's run stops on another seat's card gets the seat's forced win wrong (found by
searching seeds)."""


def _out_in_two_any_stop(up: tuple[int, ...], dealt: tuple[int, ...], holder: tuple[int, ...],
                         played: int, target: int, exempt_bit: int) -> bool:
    """A wrong fact 3l: the target taken to lead again after a run that stops on any card."""
    return _OUT_IN_TWO(up, dealt, tuple(target for _ in holder), played, target, exempt_bit)


def test_going_out_within_two_leads_agrees_with_reference() -> None:
    """Fact 3l (the target on lead goes out within two leads whatever the others do): every
    seat's forced win against the reference on the deals that catch the wrong version, under
    early-hoyle (no dead hand) too."""
    for rules in ("hoyle-modernized", "early-hoyle"):
        _race_deals_agree(rules, [s for s, _ in OUT_IN_TWO_DEALS] + [7, 11, 13],
                          Goal.FORCED_WIN)


def test_a_wrong_going_out_within_two_leads_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of fact 3l: taken to hold when the run stops on another seat's
    card, it makes the Python engine disagree with the reference on each deal above."""
    from popejoan_solver.search import facts as facts_module

    monkeypatch.setattr(facts_module, "out_in_two", _out_in_two_any_stop)
    for seed, seat in OUT_IN_TWO_DEALS:
        game, board = _race_deal(seed)
        assert _mutant_differs(game, board, Objective(Goal.FORCED_WIN, seat)), seed


def test_going_out_within_two_leads_needs_the_target_out_first() -> None:
    """Fact 3l's first case, which no small deal showed wrong when loosened: a lead whose run
    takes another seat out before the target does not count; one that takes the target out
    first does."""
    up = tuple([0b1111, 0b1110, 0b1100, 0b1000] + [1 << k for k in range(4, 64)])
    # Slots 0-3 one stretch; the target (seat 0) holds slots 0 and 2, no own run among them.
    holder = (0, 1, 0, 2) + (-1,) * 60
    seat_one_first = (0b0101, 0b0010, 0b1000 | 1 << 10)  # seat 1 out on slot 1, 2 still held
    assert not fast_out_in_two(up, seat_one_first, holder, 0, 0, 0)
    holder = (0, 1, 0, 1) + (-1,) * 60
    target_first = (0b0101, 0b1010, 1 << 10)  # the target out on slot 2, seat 1 holds slot 3
    assert fast_out_in_two(up, target_first, holder, 0, 0, 0)


_KEPT_APART = fast_kept_apart
_ISOLATED_CARDS = fast_isolated_cards
_ISOLATION_APPLIES = fast_isolation_applies
"""The true fact 5, taken when this module is imported (a mutant wraps these)."""


def _isolated_below_ignored(stretch: tuple[int, ...], in_play: int, dealt: tuple[int, ...],
                            played: int, seat: int, keep_apart: int) -> int:
    """A wrong fact 5: a card counts as isolated when nobody else holds a card above it in its
    stretch (someone below it can still run into it)."""
    held = dealt[seat] & ~played
    others = in_play & ~played & ~held
    found, cards = 0, held & ~keep_apart
    while cards:
        low = cards & -cards
        cards ^= low
        if not stretch[low.bit_length() - 1] & ~(low - 1) & others:
            found |= low
    return found


ISOLATION_MUTANTS: dict[str, dict[str, Callable[..., object]]] = {
    "pope-not-kept": {"kept_apart": lambda goal, exempt, awards: _KEPT_APART(goal, 0, awards)},
    "awards-not-kept": {"kept_apart": lambda goal, exempt, awards: _KEPT_APART(goal, exempt, ())},
    "below-ignored": {"isolated_cards": _isolated_below_ignored},
    "best-case": {"isolation_applies": lambda goal, lead_any, at_risk: _ISOLATION_APPLIES(
        Goal.FORCED_WIN if goal is Goal.BEST_CASE else goal, lead_any, at_risk)},
    "any-lead-rule": {"isolation_applies": lambda goal, lead_any, at_risk: _ISOLATION_APPLIES(
        goal, True, at_risk)},
}
"""Wrong versions of fact 5, by the module functions they replace: the Pope or the cards of
the target's awards not kept apart, isolation judged from above only, the fact used for the
best case (the others play for the target there) or under the lowest-card lead rules."""

ISOLATED_DEALS = [
    ("pope-not-kept", "plain", "hoyle-modernized", 227, 3, Goal.GUARANTEED),
    ("pope-not-kept", "pope", "hoyle-modernized", 90, 2, Goal.GUARANTEED),
    ("awards-not-kept", "plain", "peel+pairs=divided", 515, 1, Goal.GUARANTEED),
    ("awards-not-kept", "plain", "peel+pairs=divided", 1501, 1, Goal.GUARANTEED),
    ("below-ignored", "plain", "hoyle-modernized", 59, 2, Goal.GUARANTEED),
    ("below-ignored", "pope", "hoyle-modernized", 45, 2, Goal.GUARANTEED),
    ("best-case", "plain", "hoyle-modernized", 0, 2, Goal.BEST_CASE),
    ("any-lead-rule", "plain", "britannica", 0, 2, Goal.GUARANTEED),
    ("any-lead-rule", "plain", "parlett", 6, 2, Goal.GUARANTEED),
]
"""(mutation, deal kind, rules, seed, seat, goal): deals where that wrong fact 5 gets the
seat's value wrong (found by searching seeds); "pope" deals have the Pope dealt to a player."""


def _isolated_deal(kind: str, rules: str, seed: int) -> tuple[Game, Board]:
    return _small_deal(kind == "pope", rules, seed)


@pytest.mark.slow
def test_isolated_cards_agree_with_reference() -> None:
    """Fact 5 (another seat on lead plays its isolated cards first): every seat's value for
    every goal against the reference, on the deals that catch the wrong versions."""
    for _, kind, rules, seed, _, _ in ISOLATED_DEALS:
        game, board = _isolated_deal(kind, rules, seed)
        fast, reference = BothCores(game, board), Reference(game, board)
        for goal in (Goal.GUARANTEED, Goal.FORCED_WIN, Goal.BEST_CASE):
            for seat in range(1, game.players + 1):
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    rules, seed, seat, goal)


def test_a_wrong_isolation_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation tests of fact 5: each wrong version makes the Python engine disagree with
    the reference on its deals."""
    from popejoan_solver.search import facts as facts_module

    for mutation, kind, rules, seed, seat, goal in ISOLATED_DEALS:
        with monkeypatch.context() as patch:
            for name, wrong in ISOLATION_MUTANTS[mutation].items():
                patch.setattr(facts_module, name, wrong)
            game, board = _isolated_deal(kind, rules, seed)
            assert _mutant_differs(game, board, Objective(goal, seat)), (mutation, seed)


@pytest.mark.parametrize(("switch", "seed"), [("isolation_applies", 7),
                                            ("own_isolation_applies", 2)])
def test_isolated_cards_save_nodes(monkeypatch: pytest.MonkeyPatch, switch: str,
                                   seed: int) -> None:
    """Facts 5 and 5b are used: on a 4-player first lead the Python engine searches fewer
    nodes with each than with it switched off (the same values)."""
    from popejoan_solver.search import facts as facts_module

    deal = short_deal(4, 6, seed, get_ruleset("hoyle-modernized"))
    game, board = Game.from_deal(deal), Board()
    with_fact = FastEngine(game, board, compiled=False)
    value = with_fact.value(Objective(Goal.GUARANTEED, 1), 0, 1)
    monkeypatch.setattr(facts_module, switch, lambda *_: False)
    without = FastEngine(game, board, compiled=False)
    assert without.value(Objective(Goal.GUARANTEED, 1), 0, 1) == value
    assert with_fact.nodes < without.nodes


OWN_ISOLATED_DEALS = [("britannica", 0, 1), ("britannica", 6, 1), ("hoyle-modernized", 7, 1),
                      ("early-hoyle", 3, 2), ("peel+pairs=divided", 515, 1)]
"""(rules, seed, seat) of ``_small_deal`` deals: on the two britannica ones fact 5b used under
the lowest-card lead rules gets the seat's guaranteed value wrong (found by searching seeds);
the others are deals of the rulesets where it is used."""


def test_own_isolated_cards_agree_with_reference() -> None:
    """Fact 5b (the target on lead plays its isolated cards first): every seat's value for
    every goal against the reference."""
    for rules, seed, _ in OWN_ISOLATED_DEALS:
        game, board = _small_deal(False, rules, seed)
        fast, reference = BothCores(game, board), Reference(game, board)
        for goal in Goal:
            for seat in range(1, game.players + 1):
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    rules, seed, seat, goal)


def test_a_wrong_own_isolation_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of fact 5b: used under the lowest-card lead rules (where leaving a
    card out changes which leads are legal) it gets the values of the britannica deals
    wrong."""
    from popejoan_solver.search import facts as facts_module

    monkeypatch.setattr(facts_module, "own_isolation_applies",
                        lambda goal, lead_any, awards, own: fast_own_isolation_applies(
                            goal, True, awards, own))
    for rules, seed, seat in OWN_ISOLATED_DEALS[:2]:
        game, board = _small_deal(False, rules, seed)
        assert _mutant_differs(game, board, Objective(Goal.GUARANTEED, seat)), (rules, seed)


def test_own_isolation_holds_only_where_its_argument_does() -> None:
    """Fact 5b's conditions, checked directly (no small deal among those searched showed the
    wrong versions): not for the best case, nor under the lowest-card rules; for the paranoid
    value not where an award the target takes has another seat's card (going out sooner could
    lose it), and the target's Pope kept in hand; for the forced win neither matters."""
    own, other, pope = 0b0110, 0b1000, 0b0100
    shared, alone = ((own | other, 3),), ((own, 3), (other, -2))
    assert fast_own_isolation_applies(Goal.GUARANTEED, True, alone, own)
    assert not fast_own_isolation_applies(Goal.GUARANTEED, True, shared, own)
    assert fast_own_isolation_applies(Goal.FORCED_WIN, True, shared, own)
    assert not fast_own_isolation_applies(Goal.BEST_CASE, True, alone, own)
    assert not fast_own_isolation_applies(Goal.GUARANTEED, False, alone, own)
    assert not fast_own_isolation_applies(Goal.FORCED_WIN, False, (), own)
    assert fast_own_kept_apart(Goal.GUARANTEED, pope) == pope
    assert fast_own_kept_apart(Goal.FORCED_WIN, pope) == 0


def _kept_card_above_position() -> tuple[Game, Board, int]:
    """peel with divided pairs, hearts trumps: seat 2 on lead holds J♥ and Q♥, the top of its
    stretch, and the Q♥ pays the target (seat 1, who played the K♥) its half of Matrimony.
    The J♥ is isolated, but it cannot be played without the Q♥ above it (found by a review)."""
    from popejoan_solver.model.cards import parse_card
    from popejoan_solver.model.deal import Deal

    rules = get_ruleset("peel+pairs=divided")

    def cards(*names: str) -> int:
        return sum(1 << parse_card(name) for name in names)

    hands = [cards("4C", "4D"), cards("3C", "AD", "3D", "JH", "QH"), cards("7C", "TD", "5S")]
    played = [cards("KH", "2S"), cards("3S"), 0]
    deal = Deal.create(hands, rules.table.pack & ~(sum(hands) | sum(played)), parse_card("TH"),
                       rules, played=played, leader=2)
    return Game.from_deal(deal), Board(1, 8, 1, 1, 1, 1, 1, 1), deal.played_mask


def _isolated_ignoring_kept_above(stretch: tuple[int, ...], in_play: int,
                                  dealt: tuple[int, ...], played: int, seat: int,
                                  keep_apart: int) -> int:
    """A wrong fact 5: a card kept apart above an isolated card in its stretch ignored (the
    first version: it played the J♥ and left the Q♥ above it)."""
    held = dealt[seat] & ~played
    others = in_play & ~played & ~held
    found, cards = 0, held & ~keep_apart
    while cards:
        low = cards & -cards
        cards ^= low
        if not stretch[low.bit_length() - 1] & others:
            found |= low
    return found


def test_isolated_cards_below_a_kept_card_are_not_played_first() -> None:
    """Fact 5 in the middle of a deal: a card kept apart (here one of the target's divided
    award) above an isolated card keeps it in hand; every seat's value and goal against the
    reference (the first version gave the target 7 for 8)."""
    game, board, played = _kept_card_above_position()
    fast, reference = BothCores(game, board), Reference(game, board)
    for goal in (Goal.GUARANTEED, Goal.FORCED_WIN, Goal.BEST_CASE):
        for seat in range(1, game.players + 1):
            objective = Objective(goal, seat)
            assert fast.value(objective, played, 2) == reference.value(objective, played, 2), (
                goal, seat)
    assert reference.value(Objective(Goal.GUARANTEED, 1), played, 2) == 8


def test_a_kept_card_above_ignored_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test of that condition: the Python engine ignoring it gives the target 7."""
    from popejoan_solver.search import facts as facts_module

    monkeypatch.setattr(facts_module, "isolated_cards", _isolated_ignoring_kept_above)
    game, board, played = _kept_card_above_position()
    assert FastEngine(game, board, compiled=False).value(
        Objective(Goal.GUARANTEED, 1), played, 2) == 7


def _suit_tops(rules_name: str) -> list[Deal]:
    """Three-player deals in which a run can reach the top card of a suit while the bottom
    card of the next suit is in play (the top is a stop: "The four kings ... are always fixed
    stops", Hoyle's Games, early edition; the ace under ace high)."""
    rules = get_ruleset(rules_name)
    order = rules.table.suit_order
    deals = []
    for suit in range(3):
        below, top = (card_name(make_card(suit, r)) for r in order[-2:])
        bottom = card_name(make_card(suit + 1, order[0]))
        filler = [card_name(make_card(3 if suit < 2 else 0, r)) for r in (3, 6, 9)]
        hands = [f"{below} {filler[0]}", f"{top} {filler[1]}", f"{bottom} {filler[2]}"]
        deals.append(composed(hands, card_name(make_card(suit, order[0])), rules_name))
    return deals


@pytest.mark.parametrize("rules_name", ["hoyle-modernized", "parlett"])
def test_the_engines_agree_where_a_run_meets_the_top_of_a_suit(rules_name: str) -> None:
    for deal in _suit_tops(rules_name):
        game = Game.from_deal(deal)
        board = Board(3, 2, 2, 1, 1, 1, 1, 2)
        fast = BothCores(game, board)
        reference = Reference(game, board)
        for seat in range(1, deal.players + 1):
            for goal in Goal:
                objective = Objective(goal, seat)
                assert fast.value(objective, 0, 1) == reference.value(objective, 0, 1), (
                    rules_name, [card_name(c) for c in deal.hands], seat, goal)
