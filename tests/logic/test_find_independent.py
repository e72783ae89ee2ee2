"""`find` against an exhaustive checker of its own: every completion of a nearly fixed deal.

The checker here uses only the rules model (``Position.play``, the ruleset's options): its own
search over lines and its own minimax, nothing of ``logic/find.py`` but the public query API.
With most of the deal fixed by ``hold``/``dead``, it enumerates every deal ``find`` could
return and asserts that ``find`` returns exactly one deal for each class of deals (same hands)
that has the property, each one having it, and claims "no such deal" only when there is none.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from functools import cache

import pytest

from popejoan_solver.cli import main
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.model.cards import PACK, POPE, Rank, iter_mask, make_card, parse_card
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import PairRule, PopeTurnup, Ruleset, get_ruleset

Hands = tuple[int, ...]


def _unplayed(deal: Deal) -> bool:
    """Read from the ruleset's option itself: a turned-up Pope ends the deal unplayed."""
    return deal.rules.pope_turnup is PopeTurnup.ENDS_DEAL and deal.turnup == POPE


def _game(rules: Ruleset, hands: Hands) -> Game:
    """The game of ``hands`` (every other card dead) with a turn-up that does not end the deal:
    the turn-up plays no part in play otherwise, so one search serves every turn-up of the
    same hands (the one that ends the deal is :func:`_unplayed`'s)."""
    dead = PACK & ~sum(hands)
    ends = rules.table.ends_deal_turnup
    turnup = next(c for c in iter_mask(dead) if c != ends)
    return Game.from_deal(Deal.create(hands, dead, turnup, rules))


@cache
def _pair_endings(rules: Ruleset, hands: Hands, pair: int) -> frozenset[bool]:
    """Whether the lines of play end with both cards of ``pair`` played: {True}, {False}, or
    both when some lines do and some do not (someone out). Played cards stay played and every
    line ends, so a line is decided once both are played, and a search stops once it has
    found both answers."""
    memo: dict[tuple[int, int], frozenset[bool]] = {}

    def walk(pos: Position) -> frozenset[bool]:
        key = (pos.played, pos.leader)
        if key not in memo:
            both = pos.played & pair == pair
            if both or pos.is_over:
                memo[key] = frozenset({both})
            else:
                found: set[bool] = set()
                for card in pos.legal_leads():
                    found |= walk(pos.play(card)[1])
                    if len(found) == 2:
                        break
                memo[key] = frozenset(found)
        return memo[key]
    return walk(Position(_game(rules, hands), 0, 1))


@cache
def _forces(rules: Ruleset, hands: Hands, seat: int) -> bool:
    """Plain minimax: ``seat`` goes out first whatever the others lead."""
    memo: dict[tuple[int, int], bool] = {}

    def wins(pos: Position) -> bool:
        key = (pos.played, pos.leader)
        if key not in memo:
            if pos.is_over:
                memo[key] = pos.winner == seat
            else:
                after = (wins(pos.play(c)[1]) for c in pos.legal_leads())
                memo[key] = any(after) if pos.leader == seat else all(after)
        return memo[key]
    return wins(Position(_game(rules, hands), 0, 1))


def has_property(deal: Deal, prop: Property, seat: int) -> bool:
    """The property, decided by exhaustive play; an unplayed deal pays nothing, nobody is out."""
    if prop is Property.FIRST_LEAD_OUT:
        pos = Position(Game.from_deal(deal), 0, 1)
        return not _unplayed(deal) and any(pos.play(c)[0].winner == seat
                                           for c in pos.legal_leads())
    if prop is Property.FORCED_WIN:
        return not _unplayed(deal) and _forces(deal.rules, deal.hands, seat)
    king, queen = make_card(deal.trumps, Rank.KING), make_card(deal.trumps, Rank.QUEEN)
    together = deal.holder(king) == deal.holder(queen) is not None
    divided = deal.rules.pairs is PairRule.DIVIDED  # both played, by anyone, pays
    if not (together or divided):
        return False  # never paid, and not in one hand: neither property
    played = (frozenset({False}) if _unplayed(deal)
              else _pair_endings(deal.rules, deal.hands, 1 << king | 1 << queen))
    if prop is Property.MATRIMONY_ALWAYS_PAID:
        return played == {True}
    return together and True not in played


def completions(rules: Ruleset, players: int, hold: dict[int, int],
                dead: int) -> Iterator[Deal]:
    """Every deal with ``hold`` in the hands and ``dead`` dead, with every turn-up."""
    size = rules.table.cards_per_player(players)
    needs = [size - hold.get(s + 1, 0).bit_count() for s in range(players)]
    needs.append(rules.table.dead_hand_size(players) - dead.bit_count())
    fixed = dead
    for mask in hold.values():
        fixed |= mask
    free = list(iter_mask(PACK & ~fixed))
    assert sum(needs) == len(free) <= 8, "too many free cards to enumerate"
    for places in itertools.product(range(players + 1), repeat=len(free)):
        if [places.count(p) for p in range(players + 1)] != needs:
            continue
        masks = [hold.get(s + 1, 0) for s in range(players)] + [dead]
        for card, place in zip(free, places, strict=True):
            masks[place] |= 1 << card
        for turnup in iter_mask(masks[-1]):
            yield Deal.create(tuple(masks[:-1]), masks[-1], turnup, rules)


def check_against_enumeration(prop: Property, rules: Ruleset, players: int, seat: int,
                              hold: dict[int, int], dead: int) -> set[Hands]:
    """Run find to exhaustion and compare with the enumeration; the classes that have it."""
    expected = {d.hands for d in completions(rules, players, hold, dead)
                if has_property(d, prop, seat)}
    result = find_deals(FindQuery(prop, rules, players, seat, hold, dead,
                                  count=len(expected) + 5))
    hands = [d.hands for d in result.deals]
    assert len(hands) == len(set(hands)), "two deals with the same hands (item 4)"
    for deal in result.deals:
        assert has_property(deal, prop, seat), deal
    assert set(hands) == expected
    assert result.stats.exhausted
    assert not result.stats.undecided
    assert result.proved_none == (not expected)
    return expected


def _released(deal: Deal, free: int) -> tuple[dict[int, int], int]:
    """The deal as ``hold``/``dead`` constraints with the cards of ``free`` left open."""
    hold = {s + 1: deal.hands[s] & ~free for s in range(deal.players)}
    return {s: m for s, m in hold.items() if m}, deal.dead & ~free


def _cards(*names: str) -> int:
    mask = 0
    for name in names:
        mask |= 1 << parse_card(name)
    return mask


SCENARIOS = [  # (property, ruleset, players, seat, seed of the base deal)
    (Property.FIRST_LEAD_OUT, "hoyle-modernized", 8, 2, 1),
    (Property.FIRST_LEAD_OUT, "early-hoyle", 8, 4, 2),
    (Property.FIRST_LEAD_OUT, "parlett", 6, 3, 3),
    # a seed whose first deals have a forced win: a search over hundreds of candidates
    # (seed 4) only costs time here, and may meet its 60 s limit on a loaded machine
    (Property.FORCED_WIN, "hoyle-modernized", 8, 1, 3),
    (Property.FORCED_WIN, "early-hoyle", 8, 1, 1),
    (Property.MATRIMONY_NEVER_PAID, "hoyle-modernized", 8, 1, 6),
    (Property.MATRIMONY_NEVER_PAID, "early-hoyle", 8, 1, 7),
    (Property.MATRIMONY_ALWAYS_PAID, "parlett", 8, 1, 8),
    (Property.MATRIMONY_ALWAYS_PAID, "early-hoyle", 8, 1, 1),
    (Property.MATRIMONY_ALWAYS_PAID, "cassell", 8, 1, 1),
]


@pytest.mark.parametrize(("prop", "name", "players", "seat", "seed"), SCENARIOS)
def test_find_agrees_with_exhaustive_enumeration(prop: Property, name: str, players: int,
                                                 seat: int, seed: int) -> None:
    """Around a deal with the property, five cards left free (four for Matrimony's
    properties, each of whose deals plays out every line), twice."""
    rules = get_ruleset(name)
    rng = random.Random(seed)
    base = find_deals(FindQuery(prop, rules, players, seat, seed=seed, time_limit=60)).deals[0]
    count = 4 if prop in (Property.MATRIMONY_NEVER_PAID, Property.MATRIMONY_ALWAYS_PAID) else 5
    for _ in range(2):
        free = sum(1 << c for c in rng.sample(list(iter_mask(PACK)), count))
        hold, dead = _released(base, free)
        assert check_against_enumeration(prop, rules, players, seat, hold, dead)


def test_matrimony_always_paid_under_divided_pairs_needs_no_one_hand() -> None:
    """Under ``pairs=divided`` (Parlett: "one player takes all, or two players take half
    each") Matrimony is paid whoever plays its cards: deals with the King and Queen of trumps
    in two hands have the property too, and ``find`` returns them."""
    rules = get_ruleset("parlett+pairs=divided")
    base = find_deals(FindQuery(Property.MATRIMONY_ALWAYS_PAID, rules, 8, 1, seed=3,
                                time_limit=60)).deals[0]
    king, queen = (make_card(base.trumps, r) for r in (Rank.KING, Rank.QUEEN))
    rng = random.Random(5)
    others = [c for c in iter_mask(PACK) if c not in (king, queen, base.turnup)]
    free = 1 << king | 1 << queen | sum(1 << c for c in rng.sample(others, 2))
    hold, dead = _released(base, free)
    expected = check_against_enumeration(Property.MATRIMONY_ALWAYS_PAID, rules, 8, 1, hold, dead)
    assert any(hands_of(h, king) != hands_of(h, queen) for h in expected)


def hands_of(hands: Hands, card: int) -> int | None:
    """The index (from 0) of the hand that holds ``card``, None if dead."""
    return next((s for s, hand in enumerate(hands) if hand >> card & 1), None)


POPE_DEAL = ["7D TD QD KD 9S", "4D 5D AS 4S JS", "2C 3C 9C JC JH", "AC 5C 6C 6D 6H",
             "4C 5H 5S TS KS", "2D 8H QH 6S 7S", "TC AH 4H 7H 8S", "7C AD 3D JD QS"]
POPE_DEAD = "8C QC KC 9D 2H 3H 9H TH KH 2S 3S"


def test_an_unplayed_deal_never_pays_matrimony() -> None:
    """Item 2: only the Pope turn-up (trumps diamonds, K and Q in hand 1) gives this deal
    matrimony-never-paid, because under early-hoyle it ends the deal; under hoyle-modernized
    the deal is played and none exists."""
    hold = {s: _cards(*h.split()) for s, h in enumerate(POPE_DEAL, 1)}
    dead = _cards(*POPE_DEAD.split())
    prop = Property.MATRIMONY_NEVER_PAID
    assert check_against_enumeration(prop, get_ruleset("early-hoyle"), 8, 1, hold, dead)
    (deal,) = find_deals(FindQuery(prop, get_ruleset("early-hoyle"), 8, 1, hold, dead)).deals
    assert deal.turnup == POPE
    assert not check_against_enumeration(prop, get_ruleset("hoyle-modernized"), 8, 1, hold, dead)
    for other in (Property.FIRST_LEAD_OUT, Property.FORCED_WIN, Property.MATRIMONY_ALWAYS_PAID):
        found = find_deals(FindQuery(other, get_ruleset("cassell"), 8, 1, hold, dead, count=20))
        assert all(d.turnup != POPE and has_property(d, other, 1) for d in found.deals)


def test_a_later_seat_goes_out_on_the_first_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 1: seat 1 leads 2H and seat 2, holding 3H-7H, goes out in that run."""
    args = ["find", "first-lead-out", "--players", "8", "--seat", "2", "--hold", "1:2H",
            "--hold", "2:3H,4H,5H,6H,7H", "--count", "3"]
    assert main(args) == 0
    assert "no such deal" not in capsys.readouterr().out
    rules = get_ruleset("hoyle-modernized")
    hold = {1: _cards("2H"), 2: _cards("3H", "4H", "5H", "6H", "7H")}
    result = find_deals(FindQuery(Property.FIRST_LEAD_OUT, rules, 8, 2, hold, count=3))
    assert len(result.deals) == 3
    assert all(has_property(d, Property.FIRST_LEAD_OUT, 2) for d in result.deals)
    hold[2] = _cards("3H", "4H", "5H", "6H", "8H")  # the 7H dead stops the run at 6H
    none = find_deals(FindQuery(Property.FIRST_LEAD_OUT, rules, 8, 2, hold, _cards("7H")))
    assert none.proved_none


def test_count_gives_distinct_hands_whatever_the_turn_up(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Item 4: with every hand fixed there is one deal, whatever the dead hand's turn-ups."""
    rules = get_ruleset("hoyle-modernized")
    hold = {1: _cards("2H"), 2: _cards("3H", "4H", "5H", "6H", "7H")}
    (base,) = find_deals(FindQuery(Property.FIRST_LEAD_OUT, rules, 8, 2, hold)).deals
    hold = dict(enumerate(base.hands, 1))
    result = find_deals(FindQuery(Property.FIRST_LEAD_OUT, rules, 8, 2, hold, count=5))
    assert len(result.deals) == 1
    assert result.stats.exhausted
    assert check_against_enumeration(Property.FIRST_LEAD_OUT, rules, 8, 2, hold, base.dead)
    with pytest.raises(SystemExit):
        main(["find", "--help"])
    assert "same cards" in " ".join(capsys.readouterr().out.split())
