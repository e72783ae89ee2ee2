"""Choices inside a run, against the reference: both fast engines (the compiled core and the
pure-Python search) on deals generated to reach each choice (the three readings of the Pope in
lieu of a stop, and Spinado's Spin) under ace low and ace high and each lead rule, with the
choice card held by each seat in turn; every seat, every goal. Beside them: the smallest deal
where fact 4 taken to hold under run-continues was wrong, the run after the Pope in lieu tied
to the model's, and the mutation test of fact 4 in the general mode (docs/solver.md, "Choices
inside a run")."""

from __future__ import annotations

import random

import pytest

from popejoan_solver.model.board import Board
from popejoan_solver.model.cards import POPE, Card, card_name, iter_mask, parse_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Choice, Game, Position
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.model.table import SPIN
from popejoan_solver.search import Goal, Objective, lead_values, solve
from popejoan_solver.search import facts as facts_module
from popejoan_solver.search.api import play_board
from popejoan_solver.search.fast import COMPILED, FastEngine
from popejoan_solver.search.result import Value
from popejoan_solver.search.slots import SlotGame, lieu_goes_on
from tests.model.test_play_and_settlement import composed
from tests.search.cores import BothCores, Reference, disagreements

READINGS = ["run-continues", "pope-leads", "pope-leads-after-king"]
LEAD_RULES = ["any", "lowest-of-suit", "lowest-in-hand"]
ACES = ["low", "high"]
VARIANTS = [(f"hoyle-modernized+pope_in_lieu={reading},lead={lead},ace={ace}", POPE)
            for reading in READINGS for lead in LEAD_RULES for ace in ACES] + [
    (f"spinado+lead={lead},ace={ace}", SPIN) for lead in LEAD_RULES for ace in ACES]
"""Every choice reading under each lead rule and ace, with its choice card."""

CORES = [pytest.param(False, id="python"),
         pytest.param(True, id="compiled", marks=pytest.mark.skipif(
             not COMPILED, reason="compiled core not built"))]

SEEDS = range(4)
"""Deals per (variant, seat holding the choice card) in the quick test (every seat holds it
in turn: 4 seeds make 14 deals a variant)."""


def _hazard(rules: Ruleset, rng: random.Random, suits: list[int], card: Card) -> list[Card]:
    """Two cards in sequence, the next card out of play, and two cards in play above it: a run
    that stops there can be carried on by the Pope in lieu (under run-continues) to the cards
    above. Returned as [low, next, dead, above, beyond]."""
    succ, pack = rules.table.successor, rules.table.pack
    cards = [c for c in iter_mask(pack) if c // 13 in suits and c != card]
    while True:
        chain = [rng.choice(cards)]
        for _ in range(4):
            after = succ[chain[-1]]
            if after < 0 or after == card or not pack >> after & 1:
                break
            chain.append(after)
        if len(chain) == 5:
            return chain


def choice_deal(variant: str, card: Card, holder: int, players: int, per_hand: int,
                seed: int) -> Deal:
    """A deal from two suits (the choice card's and one more) with ``card`` in the hand of
    index ``holder`` (seat ``holder + 1``); one seat (often the one on lead) holding two cards in
    sequence whose run stops on a card out of play (:func:`_hazard`), the card above that
    dealt to any seat (often the same) and the next to another; the rest at random. Drawn
    again until some seat on lead at the outset has a lead whose run holds a choice."""
    rules = get_ruleset(variant)
    rng = random.Random(seed)
    for _ in range(1000):
        suits = [card // 13, rng.choice([s for s in range(4) if s != card // 13])]
        low, following, dead, above, beyond = _hazard(rules, rng, suits, card)
        hands = [0] * players
        hands[holder] |= 1 << card
        runner = rng.choice([0, rng.randrange(players)])  # the seat on lead, or any
        hands[runner] |= 1 << low | 1 << following
        hands[rng.choice([runner, rng.randrange(players)])] |= 1 << above
        hands[rng.choice([s for s in range(players) if s != runner])] |= 1 << beyond
        rest = [c for c in iter_mask(rules.table.pack) if c // 13 in suits
                and c not in (card, low, following, dead, above, beyond)]
        rng.shuffle(rest)
        for seat in range(players):
            while hands[seat].bit_count() < per_hand:
                hands[seat] |= 1 << rest.pop()
        deal = Deal.create(hands, rules.table.pack & ~sum(hands), rest[-1], rules)
        if _offers_choice(Game.from_deal(deal)):
            return deal
    raise AssertionError(f"no deal of {variant} with a choice (seed {seed})")


def _board(rules: Ruleset, seed: int) -> Board:
    if rules.game.value == "spinado":
        return Board(pope=0, matrimony=2 + seed % 5, intrigue=1 + seed % 3, ace=0, king=0,
                     queen=0, jack=0, game=3)
    return Board(*(1 + (seed * k) % 5 for k in range(1, 9)))


def _offers_choice(game: Game) -> bool:
    """Whether some seat, on lead at the outset, has a lead whose run holds a choice."""
    return any(isinstance(game.run_tree(0, seat, lead), Choice)
               for seat in range(1, game.players + 1) for lead in game.legal_leads(0, seat))


def _mismatches(variant: str, card: Card, seeds: range,
                after_first_runs: bool) -> list[tuple[object, ...]]:
    """Every (seed, holder, played, seat, goal, fast, reference) where the fast engine's two
    cores (:class:`BothCores`, which checks they agree) and the reference differ, the choice
    card held by each seat in turn, at the outset (and after each way each first lead's run
    can go)."""
    rules = get_ruleset(variant)
    wrong: list[tuple[object, ...]] = []
    for seed in seeds:
        players = 3 + seed % 2
        for holder in range(players):
            deal = choice_deal(variant, card, holder, players, 3 + seed % 2,
                               seed * 31 + holder)
            game, board = Game.from_deal(deal), _board(rules, seed)
            fast = BothCores(game, board)
            reference = Reference(game, board)
            start = Position(game, 0, 1)
            positions = [start]
            if after_first_runs:
                positions += [start.after(run) for lead in start.legal_leads()
                              for run in start.outcomes(lead)]
            wrong += [(seed, holder + 1, *row)
                      for row in disagreements(fast, reference, positions)]
    return wrong


@pytest.mark.parametrize(("variant", "card"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_fast_engines_agree_with_reference_on_choice_deals(variant: str, card: Card) -> None:
    """At the outset of each deal: every seat's guaranteed value, forced win and best case."""
    assert _mismatches(variant, card, SEEDS, after_first_runs=False) == []


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "card"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_fast_engines_agree_with_reference_on_more_choice_deals(variant: str,
                                                                card: Card) -> None:
    """The larger sweep: more deals, and after each way each first lead's run can go."""
    assert _mismatches(variant, card, range(4, 12), after_first_runs=True) == []


@pytest.mark.parametrize(("variant", "card"), [(v, c) for v, c in VARIANTS if "lead=any" in v],
                         ids=[v for v, _ in VARIANTS if "lead=any" in v])
def test_lead_values_agree_with_reference_on_choice_deals(variant: str, card: Card) -> None:
    """The leads of the seat on lead (the compiled core's batch where it is built): each
    lead's paranoid value and forced win, against the reference engine's, the choice card held
    by each seat in turn (lead=any, where the general mode keeps fact 4)."""
    for seed in range(2):
        players = 3 + seed % 2
        for holder in range(players):
            deal = choice_deal(variant, card, holder, players, 3 + seed % 2,
                               seed * 31 + holder)
            assert lead_values(deal) == lead_values(deal, engine="reference"), (seed, holder)


@pytest.mark.parametrize("compiled", CORES)
def test_the_pope_in_lieu_carries_an_own_run_on_to_going_out(compiled: bool) -> None:
    """Seat 1 leads 4C 5C (the 6C is dead); seat 2 plays the Pope in lieu, the run goes on to
    seat 1's 7C and seat 1 is out: Game 1, seat 2's 9C (the Pope played: no exemption) and
    seat 3's 8C. Leading the 5C first (as if 4C 5C were an ordinary run of seat 1's own
    cards) cannot reach that: the Pope after the 5C goes on to the 7C and the 8C, seat 3 out."""
    deal = composed(["4C 5C 7C", "9C 9D", "8C"], "KC",
                    "hoyle-modernized+pope_in_lieu=run-continues")
    board, _ = play_board(deal)
    game = Game.from_deal(deal)
    position = Position.from_deal(deal)
    run = next(r for r in position.outcomes(parse_card("4C")) if r.chosen is not None)
    assert run.step == "4C+9D@5C"
    assert run.winner == 1
    best = Objective(Goal.BEST_CASE, 1)
    assert Reference(game, board).value(best, 0, 1) == 3
    assert FastEngine(game, board, compiled=compiled).value(best, 0, 1) == 3
    if compiled:  # solve's own engine
        assert solve(deal, threads=1).seats[0].best_case == Value.exact(3)


@pytest.mark.parametrize("reading", READINGS)
@pytest.mark.parametrize("ace", ACES)
def test_the_run_after_the_pope_in_lieu_is_the_models(reading: str, ace: str) -> None:
    """``lieu_goes_on`` (the fast engines' card after the Pope in lieu, as the compiled core
    restates it) against the model's runs: every first lead's outcome where the Pope was
    played in lieu goes on to that card, or stops on the Pope."""
    variant = f"hoyle-modernized+pope_in_lieu={reading},ace={ace}"
    seen = 0
    for seed in range(12):
        deal = choice_deal(variant, POPE, seed % 3, 3, 4, 500 + seed)
        game = Game.from_deal(deal)
        slots = SlotGame(game, Board())
        for seat in range(1, 4):
            for lead in game.legal_leads(0, seat):
                for run in game.runs(0, seat, lead):
                    if run.chosen is None:
                        continue
                    stop = run.cards[run.chosen - 1]
                    before = 0
                    for played in run.cards[:run.chosen]:
                        before |= 1 << slots.slot_of[played]
                    goes_on = lieu_goes_on(
                        slots.slot_of[stop], slots.lieu_slot, slots.lieu_continues,
                        slots.in_play, before)
                    following = list(run.cards[run.chosen + 1:run.chosen + 2])
                    if not following and run.winner == game.holder(POPE):
                        continue  # the Pope was its player's last card
                    expected = [slots.card_of[goes_on]] if goes_on >= 0 else []
                    assert following == expected, (variant, seed, card_name(lead), run.step)
                    seen += bool(following)
    assert seen if reading == "run-continues" else not seen


WRONG_DEALS = [(0, 2), (1, 3), (2, 2)]
"""(seed, holder) of ``choice_deal`` under run-continues and lead=any, ace low, where fact 4
taken to hold though the Pope in lieu carries the own run on gives a wrong best case."""


def _old_own_run_skipped(run: int, own: int, goes_on: int) -> bool:
    """Fact 4 in the general mode as if the Pope in lieu never carried a run on."""
    return not run & ~own and bool(run & (run - 1))


def test_fact_4_where_the_pope_carries_the_run_on_is_caught(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation test: with the wrong fact 4 the Python engine's best case disagrees with
    the reference on each deal listed; the true fact agrees there (so do both cores, in the
    test above)."""
    variant = "hoyle-modernized+pope_in_lieu=run-continues,lead=any,ace=low"
    rules = get_ruleset(variant)
    for seed, holder in WRONG_DEALS:
        players = 3 + seed % 2
        deal = choice_deal(variant, POPE, holder, players, 3 + seed % 2, seed * 31 + holder)
        game, board = Game.from_deal(deal), _board(rules, seed)
        reference = Reference(game, board)
        want = [reference.value(Objective(Goal.BEST_CASE, s), 0, 1)
                for s in range(1, players + 1)]
        right = FastEngine(game, board, compiled=False)
        assert [right.value(Objective(Goal.BEST_CASE, s), 0, 1)
                for s in range(1, players + 1)] == want
        with monkeypatch.context() as patched:
            patched.setattr(facts_module, "own_run_skipped", _old_own_run_skipped)
            wrong = FastEngine(game, board, compiled=False)
            assert [wrong.value(Objective(Goal.BEST_CASE, s), 0, 1)
                    for s in range(1, players + 1)] != want, (seed, holder)
