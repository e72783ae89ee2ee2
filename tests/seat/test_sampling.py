"""Counting and sampling the deals consistent with a seat's knowledge.

The sampler is tested for exact uniformity against the full list of consistent deals by a
chi-square goodness-of-fit test at a fixed seed and significance 0.001; the tail probability
of the chi-square law is computed here (closed forms for integer degrees of freedom), not
taken from a library, and checked against tabulated critical values.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from popejoan_solver import deal_to_line, view
from popejoan_solver.model.deal import Deal, deal_random, validate
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import (
    CountingLimitError,
    SamplingError,
    all_deals,
    count_deals,
    knowledge,
    sample_deals,
)
from popejoan_solver.seat.counting import Group, Placements, can_place, relaxed
from popejoan_solver.seat.sampling import placements, seeded
from tests.seat.test_knowledge import FAMILIES, cases, random_line, same_view

SIGNIFICANCE = 0.001


def chi2_tail(x: float, df: int) -> float:
    """P(X >= x) for X chi-square with ``df`` degrees of freedom (df >= 1): for even df
    ``exp(-x/2) * sum_{i<df/2} (x/2)^i / i!``; for odd df ``erfc(sqrt(x/2))`` plus
    ``exp(-x/2) * sum_{i=1}^{(df-1)/2} (x/2)^(i-1/2) / Gamma(i+1/2)``."""
    half = x / 2
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return math.exp(-half) * total
    total = math.erfc(math.sqrt(half))
    term = math.sqrt(half) / math.gamma(1.5)
    for i in range(1, (df + 1) // 2):
        total += math.exp(-half) * term
        term *= half / (i + 0.5)
    return total


@pytest.mark.parametrize(("df", "critical"), [(1, 10.828), (2, 13.816), (5, 20.515),
                                              (10, 29.588), (29, 58.301), (100, 149.449)])
def test_chi2_tail_matches_tabulated_critical_values(df: int, critical: float) -> None:
    """The 0.001 critical values of the chi-square law (NIST/SEMATECH e-Handbook, 1.3.6.7.4)."""
    assert chi2_tail(critical, df) == pytest.approx(SIGNIFICANCE, rel=2e-3)


def chi2_statistic(observed: Counter[tuple[tuple[int, ...], int]], expected_each: float,
                   cells: int) -> float:
    seen = sum((n - expected_each) ** 2 / expected_each for n in observed.values())
    return seen + (cells - len(observed)) * expected_each


def key(deal: Deal) -> tuple[tuple[int, ...], int]:
    return deal.hands, deal.dead


def small_knowledge(family: str, lo: int, hi: int, seed: int = 7,
                    groups: int = 1) -> tuple[Deal, int, list[Run]]:
    """A case with ``lo`` to ``hi`` consistent deals and at least ``groups`` groups."""
    for deal, seat, line in cases(family, 30, seed):
        k = knowledge(deal, seat + 1, line)
        if lo <= count_deals(k) <= hi and len(placements(k).groups) >= groups:
            return deal, seat, line
    raise AssertionError(f"no {family} case with {lo} to {hi} deals")


@pytest.mark.parametrize("family", ["britannica", "spinado"])
def test_sampler_is_uniform_chi_square(family: str) -> None:
    deal, seat, line = small_knowledge(family, 8, 60)
    k = knowledge(deal, seat + 1, line)
    every = [key(d) for d in all_deals(k, 1000)]
    assert len(set(every)) == len(every) == count_deals(k)
    per_cell = 60
    draws = sample_deals(k, per_cell * len(every), seed=2026)
    observed = Counter(key(d) for d in draws)
    assert set(observed) <= set(every)
    statistic = chi2_statistic(observed, per_cell, len(every))
    assert chi2_tail(statistic, len(every) - 1) > SIGNIFICANCE
    # the test has power: the same draws with one deal's share moved to another are refused
    skewed = Counter(observed)
    skewed[every[0]] += skewed[every[1]] // 2 + per_cell // 2
    skewed[every[1]] = 0
    assert chi2_tail(chi2_statistic(skewed, per_cell, len(every)), len(every) - 1) \
        < SIGNIFICANCE


def test_sampler_by_rejection_is_uniform_chi_square(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the exact count is refused, draws from looser constraints (merged down to what a
    twelve-state budget counts) kept when they fit: the same chi-square test."""
    deal, seat, line = small_knowledge("britannica", 8, 60, seed=9, groups=2)
    k = knowledge(deal, seat + 1, line)
    every = [key(d) for d in all_deals(k, 1000)]
    found = placements(k)
    assert relaxed(found.groups, found.need, 12).total() > len(every)  # looser, to reject
    monkeypatch.setattr("popejoan_solver.seat.counting.MAX_STEPS", 0)
    monkeypatch.setattr("popejoan_solver.seat.sampling.PROPOSAL_STEPS", 12)
    placements.cache_clear()  # the count made above with the true budget is kept
    with pytest.raises(CountingLimitError):
        count_deals(k)
    per_cell = 40
    try:
        draws = sample_deals(k, per_cell * len(every), seed=7)
    finally:
        placements.cache_clear()  # nothing counted with the forced budgets is kept
    observed = Counter(key(d) for d in draws)
    assert set(observed) <= set(every)
    statistic = chi2_statistic(observed, per_cell, len(every))
    assert chi2_tail(statistic, len(every) - 1) > SIGNIFICANCE


def test_sampling_is_reproducible_by_seed() -> None:
    deal = deal_random(4, 11, get_ruleset("britannica"))
    line = random_line(deal, random.Random(3), 5)
    k = knowledge(deal, 3, line)
    first = sample_deals(k, 20, seed=5)
    assert first == sample_deals(k, 20, seed=5)
    assert first != sample_deals(k, 20, seed=6)


def test_counting_by_groups_equals_brute_force_on_random_constraints() -> None:
    """Placements' count, list and draws, and the flow test of where a card may go, against
    enumerating every assignment card by card."""
    rng = random.Random(1)
    orientations = set()
    for _ in range(80):
        locations = rng.randint(2, 4)
        cards = list(range(rng.randint(1, 7)))
        allowed = [(c, rng.randint(1, (1 << locations) - 1)) for c in cards]
        need = [0] * locations
        for _card in cards:
            need[rng.randrange(locations)] += 1
        brute = set()
        for choice in range(locations ** len(cards)):
            got = [0] * locations
            for card, places in allowed:
                choice, loc = divmod(choice, locations)
                if not places >> loc & 1:
                    break
                got[loc] |= 1 << card
            else:
                if [g.bit_count() for g in got] == need:
                    brute.add(tuple(got))
        groups: dict[int, list[int]] = {}
        for card, places in allowed:
            groups.setdefault(places, []).append(card)
        found = Placements([Group(p, tuple(cs)) for p, cs in groups.items()], need)
        orientations.add(found.transposed)
        assert found.total() == len(brute)
        listed = list(found.every())
        assert len(listed) == len(set(listed))
        assert set(listed) == brute
        if brute:
            assert {found.draw(rng) for _ in range(5)} <= brute
        ordered = found.groups
        for index, group in enumerate(ordered):
            for loc in range(locations):
                possible = any(got[loc] >> group.cards[0] & 1 for got in brute)
                assert can_place(ordered, index, loc, need) == possible
    assert orientations == {False, True}, "both ways of counting were exercised"


def test_worst_first_leads_are_counted_fast() -> None:
    """At the first lead of 3 and 8 players, the counts are exact multinomials."""
    for players in (3, 8):
        deal = deal_random(players, 1)
        k = knowledge(deal, 1)
        sizes = [*k.need]
        expected = math.factorial(sum(sizes))
        for size in sizes:
            expected //= math.factorial(size)
        assert count_deals(k) == expected


def test_too_many_deals_to_list_and_bad_counts_are_refused() -> None:
    k = knowledge(deal_random(3, 1), 1)
    with pytest.raises(SamplingError, match="over the limit"):
        all_deals(k, 1000)
    with pytest.raises(SamplingError, match="number of samples"):
        sample_deals(k, -1, 0)


def test_an_exploding_count_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the step limit the count stops with one error rather than running on."""
    monkeypatch.setattr("popejoan_solver.seat.counting.MAX_STEPS", 5)
    groups = [Group(0b1111, (0, 1, 2, 3)), Group(0b1110, (4, 5, 6, 7)),
              Group(0b0111, (8, 9, 10, 11)), Group(0b1011, (12, 13, 14, 15))]
    with pytest.raises(CountingLimitError, match="too many ways"):
        Placements(groups, [4, 4, 4, 4]).total()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(family=st.sampled_from(sorted(FAMILIES)), players=st.integers(3, 8),
       seed=st.integers(0, 10**6), runs=st.integers(0, 12), seat=st.integers(0, 7))
def test_every_sample_is_a_valid_consistent_position(family: str, players: int, seed: int,
                                                     runs: int, seat: int) -> None:
    """On real deals: each sampled position is a valid deal, keeps what the seat sees, and
    replays the line with the same runs."""
    rules = FAMILIES[family]
    deal = deal_random(players, seed, rules)
    seat %= players
    line = random_line(deal, random.Random(seed), runs)
    k = knowledge(deal, seat + 1, line)
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    for sample in sample_deals(k, 3, seed):
        # the outset is validated and the line replayed: model.reachability refuses some
        # positions a Pope in lieu reaches (9D played under pope-leads, TD held)
        validate(sample.at_outset())
        assert sample.hands[seat] == position.game.held(position.played, seat + 1)
        assert sample.played_mask == position.played
        assert sample.leader == position.leader
        assert [h.bit_count() for h in sample.hands] == list(k.hand_sizes)
        outset = sample.at_outset()
        if rules.game.value == "spinado":
            outset = Deal(outset.hands, outset.dead, deal.turnup if outset.dead >> deal.turnup
                          & 1 else outset.turnup, rules)
        assert same_view(outset, deal, line, None)


def test_a_negative_seed_draws_deals_of_its_own() -> None:
    """``sample_deals`` (and ``advise --seed``) draws other deals for ``-S`` than for ``S``
    (``random.Random`` takes a seed's absolute value); seeds from 0 draw as ``random.Random``."""
    known = view(deal_random(4, 7), 1)
    lines = {seed: [deal_to_line(d) for d in sample_deals(known, 3, seed)]
             for seed in (1, -1, 2, -2)}
    assert lines[1] != lines[-1]
    assert lines[2] != lines[-2]
    assert lines[-1] == [deal_to_line(d) for d in sample_deals(known, 3, -1)]
    assert seeded(5).random() == random.Random(5).random()
