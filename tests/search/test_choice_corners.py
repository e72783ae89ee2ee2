"""The engines against the reference on deals generated to hit each corner of the choices
inside a run, not only random ones: for every reading of the Pope in lieu of a stop and for
Spinado's Spin, under ace low and ace high and each lead rule, with the choice card held by
each seat in turn. The corners, each checked reached by walking the model's run trees:

* Spin on a card that stops the run anyway (the case where declining and spinning leave the
  same seat on lead), and there when the A♦ could not be led next (a lower diamond held under
  ace high, or any lower card under the lowest in hand): only then does the Spin on the stop
  change what its holder can do;
* Spin by a seat not on lead, in the middle of a run; Spin that puts its holder out;
* the Pope in lieu after a King (the reading that allows it), on the 7♦ (the missing card is
  the 8♦, the card above it the Pope itself), by the seat on lead and by another seat, and as
  its holder's last card.

Every seat's guaranteed value, forced win and best case, at the outset and after each way each
first lead's run can go, from the Python engine and the compiled core against the reference
engine (which plays through the rules model)."""

from __future__ import annotations

import functools
import random
from collections.abc import Iterator

import pytest

from popejoan_solver.model.cards import POPE, Card, Mask, Rank, Suit, iter_mask, make_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Choice, Game, Position, Run, RunTree, StopReason
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.model.table import SPIN, ChoiceKind
from popejoan_solver.search.api import play_board
from popejoan_solver.search.fast import COMPILED, FastEngine
from tests.search.cores import Reference, disagreements

SEVEN_OF_DIAMONDS = make_card(Suit.DIAMONDS, Rank.SEVEN)
LEADS = ["any", "lowest-of-suit", "lowest-in-hand"]
ACES = ["low", "high"]
READINGS = ["run-continues", "pope-leads", "pope-leads-after-king"]

SPIN_CORNERS = ("spin on a stop", "spin by another seat", "spin goes out")
SPIN_ON_STOP_UNLEADABLE = "spin on a stop, the A-diamond not leadable next"
LIEU_CORNERS = ("in lieu on the 7D", "in lieu by the leader", "in lieu by another seat",
                "the Pope as its holder's last card")
LIEU_AFTER_KING = "in lieu after a King"


def expected_corners(rules: Ruleset, holder: int | None = None) -> set[str]:
    """The corners a ruleset has (with the choice card in ``holder``'s hand, 0-based): the A♦
    is never barred from a lead under ace low (it is the lowest card) or under any card; under
    the lowest in hand with the ace low, eldest, who leads first, must lead an ace, and leads
    the A♦ before another seat can lead; the Pope follows a King only where the reading says."""
    if rules.game.value == "spinado":
        unleadable = rules.ace.value == "high" and rules.lead.value != "any"
        corners = set(SPIN_CORNERS) | ({SPIN_ON_STOP_UNLEADABLE} if unleadable else set())
        if holder == 0 and rules.ace.value == "low" and rules.lead.value == "lowest-in-hand":
            corners.discard("spin by another seat")
        return corners
    after_king = rules.pope_in_lieu.value == "pope-leads-after-king"
    return set(LIEU_CORNERS) | ({LIEU_AFTER_KING} if after_king else set())


def _runs(tree: RunTree) -> Iterator[Run]:
    if isinstance(tree, Run):
        yield tree
    else:
        for option in tree.options:
            yield from _runs(option)


def _choices(tree: RunTree) -> Iterator[Choice]:
    if isinstance(tree, Choice):
        yield tree
        for option in tree.options:
            yield from _choices(option)


def corners_of(game: Game) -> set[str]:
    """The corners of the choices that play of ``game`` reaches."""
    found: set[str] = set()
    for position in Position(game, 0, 1).reachable():
        for lead in position.legal_leads():
            tree = game.run_tree(position.played, position.leader, lead)
            for choice in _choices(tree):
                found |= _corners(game, position, choice)
    return found


def _corners(game: Game, position: Position, choice: Choice) -> set[str]:
    declined, taken = choice.options
    found: set[str] = set()
    other = choice.chooser != position.leader
    if choice.kind is ChoiceKind.SPIN:
        assert isinstance(taken, Run)
        found |= {"spin by another seat"} if other else set()
        found |= {"spin goes out"} if taken.reason is StopReason.OUT else set()
        if isinstance(declined, Run) and declined.cards == taken.cards[:-1] \
                and declined.reason is not StopReason.OUT:
            found.add("spin on a stop")
            after = Position(game, position.played | declined.mask, declined.leader_after)
            if SPIN not in after.legal_leads():
                found.add(SPIN_ON_STOP_UNLEADABLE)
        return found
    assert isinstance(declined, Run)
    found.add("in lieu by another seat" if other else "in lieu by the leader")
    found |= {LIEU_AFTER_KING} if declined.reason is StopReason.TOP else set()
    found |= {"in lieu on the 7D"} if declined.stop_card == SEVEN_OF_DIAMONDS else set()
    if any(r.winner == choice.chooser and r.cards[-1] == POPE for r in _runs(taken)):
        found.add("the Pope as its holder's last card")
    return found


def corner_deal(rules: Ruleset, card: Card, holder: int, rng: random.Random) -> Deal:
    """Three hands of two to four cards from two suits (the choice card's and one more), the
    choice card in ``holder``'s hand, seeded with a short run whose next card is out of play
    (a stop to spin on or to replace) and, often, a King or the 6♦-7♦ to reach the others."""
    suits = [Suit.DIAMONDS, rng.choice([Suit.CLUBS, Suit.HEARTS, Suit.SPADES])]
    pool = [c for c in iter_mask(rules.table.pack) if c // 13 in suits and c != card]
    hands: list[Mask] = [0, 0, 0]
    hands[holder] |= 1 << card
    queens = [c for c in pool if c % 13 == Rank.QUEEN]
    low = rng.choice(queens if queens and rng.random() < 0.3 else pool)
    above = rules.table.successor[low]
    banned = {low}
    hands[0] |= 1 << low
    if above >= 0 and above != card and rules.table.pack >> above & 1:
        hands[rng.randrange(3)] |= 1 << above
        banned |= {above, rules.table.successor[above]}
    rest = [c for c in pool if c not in banned]
    rng.shuffle(rest)
    sizes = [rng.randint(2, 4) for _ in range(3)]
    for seat in range(3):
        while hands[seat].bit_count() < sizes[seat] and rest:
            hands[seat] |= 1 << rest.pop()
    dead = rules.table.pack & ~(hands[0] | hands[1] | hands[2])
    turnup = next(c for c in iter_mask(dead) if c != POPE)
    return Deal.create(hands, dead, turnup, rules)


@functools.cache
def corner_deals(variant: str, card: Card, tries: int = 1500) -> tuple[tuple[str, int, Deal], ...]:
    """For each corner of ``variant`` and each seat holding the choice card, the first
    generated deal that reaches it (a corner not reached fails the test that asks). Drawn
    once a session: the deals are a function of the arguments alone (the generator is
    seeded with the variant), and each core's test checks the same ones."""
    rules = get_ruleset(variant)
    wanted = {(corner, holder) for holder in range(3)
              for corner in expected_corners(rules, holder)}
    found: dict[tuple[str, int], Deal] = {}
    rng = random.Random(variant)
    for i in range(tries):
        holder = i % 3
        deal = corner_deal(rules, card, holder, rng)
        for corner in corners_of(Game.from_deal(deal)):
            if (corner, holder) in wanted and (corner, holder) not in found:
                found[corner, holder] = deal
        if len(found) == len(wanted):
            break
    missing = sorted(wanted - set(found))
    assert not missing, f"{variant}: no deal reached {missing}"
    return tuple((corner, holder, deal) for (corner, holder), deal in sorted(found.items()))


VARIANTS = [(f"hoyle-modernized+pope_in_lieu={r},lead={lead},ace={ace}", POPE)
            for r in READINGS for lead in LEADS for ace in ACES]
VARIANTS += [(f"spinado+lead={lead},ace={ace}", SPIN) for lead in LEADS for ace in ACES]

def mismatches(deal: Deal, compiled: bool) -> list[tuple[object, ...]]:
    """Where the fast engine and the reference differ: at the outset and after each way each
    first lead's run can go, every seat, every goal."""
    game = Game.from_deal(deal)
    board, _ = play_board(deal)
    fast = FastEngine(game, board, compiled=compiled)
    reference = Reference(game, board)
    start = Position(game, 0, 1)
    positions = [start] + [start.after(run) for lead in start.legal_leads()
                           for run in start.outcomes(lead)]
    return list(disagreements(fast, reference, positions))


CORES = [pytest.param(False, id="python"),
         pytest.param(True, id="compiled", marks=pytest.mark.skipif(
             not COMPILED, reason="compiled core not built"))]


@pytest.mark.parametrize("compiled", CORES)
@pytest.mark.parametrize(("variant", "card"), VARIANTS, ids=[v for v, _ in VARIANTS])
def test_the_engines_agree_with_the_reference_in_every_corner(variant: str, card: Card,
                                                             compiled: bool) -> None:
    wrong = {(corner, holder + 1): found
             for corner, holder, deal in corner_deals(variant, card)
             for found in [mismatches(deal, compiled)] if found}
    assert wrong == {}


def test_every_corner_is_some_rulesets() -> None:
    """The corners asked of the rulesets are all the corners there are."""
    every = set().union(*(expected_corners(get_ruleset(v)) for v, _ in VARIANTS))
    assert every == {*SPIN_CORNERS, SPIN_ON_STOP_UNLEADABLE, *LIEU_CORNERS, LIEU_AFTER_KING}
