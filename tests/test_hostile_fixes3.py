"""Regression tests for the third hostile-user pass (docs/reviews/hostile-pass-3.md): each test
names its finding and failed before the fix."""

from __future__ import annotations

import random

from popejoan_solver import deal_random, deal_to_line, view
from popejoan_solver.seat import sample_deals
from popejoan_solver.seat.sampling import seeded


def test_a_negative_seed_draws_deals_of_its_own() -> None:
    """Finding 1: ``sample_deals`` (and ``advise --seed``) drew the same deals for ``-S`` as
    for ``S`` (``random.Random`` takes a seed's absolute value); seeds from 0 are unchanged."""
    known = view(deal_random(4, 7), 1)
    lines = {seed: [deal_to_line(d) for d in sample_deals(known, 3, seed)]
             for seed in (1, -1, 2, -2)}
    assert lines[1] != lines[-1]
    assert lines[2] != lines[-2]
    assert lines[-1] == [deal_to_line(d) for d in sample_deals(known, 3, -1)]
    assert seeded(5).random() == random.Random(5).random()
