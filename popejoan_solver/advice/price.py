"""The price of information: each seat's double-dummy value against what it can expect from
its own view (``docs/advice.md``, "The price of information").

For every seat: ``double_dummy``, its guaranteed value in the real deal with every hand seen
(:func:`solve`), and ``expected``, the mean of that value over the deals the seat cannot tell
apart — what it expects to be worth were it shown every hand now. For the seat on lead also
``single_dummy``, the mean of the one lead it must choose without seeing (the advised lead),
and ``price = expected - single_dummy``: what seeing the other hands before this lead is worth
(the expected value of perfect information of the decision; never negative).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..intervals import mean_ci
from ..model.deal import Deal
from ..model.play import Run
from ..search import Value, solve
from .leads import (
    DEFAULT_SAMPLES,
    EXACT_LIMIT,
    Advice,
    advise,
    consistent_deals,
    deals_wanted,
    finite,
    position_after,
)
from .values import TT_ENTRIES


@dataclass(frozen=True)
class SeatPrice:
    """One seat's values (seats from 1)."""

    seat: int
    double_dummy: Value
    expected: float
    expected_ci95: tuple[float, float]
    single_dummy: float | None
    """The seat on lead: its advised lead's mean; None for the other seats (no choice now)."""
    deals: int

    @property
    def price(self) -> float | None:
        return None if self.single_dummy is None else self.expected - self.single_dummy

    def to_json(self) -> dict[str, Any]:
        price = self.price
        return {"seat": self.seat, "double_dummy": self.double_dummy.to_json(),
                "expected": finite(self.expected),
                "expected_ci95": [finite(x) for x in self.expected_ci95],
                "single_dummy": None if self.single_dummy is None else finite(self.single_dummy),
                "price": None if price is None else finite(price), "deals": self.deals}


@dataclass(frozen=True)
class Prices:
    """Every seat's price of information at one position."""

    seats: tuple[SeatPrice, ...]
    complete: bool


def _expected(deals: Sequence[Deal], seat: int,
              deadline: float | None) -> tuple[list[int], bool]:
    """The seat's guaranteed value on each deal, up to the deadline (and whether all)."""
    values: list[int] = []
    for deal in deals:
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            return values, False
        result = solve(deal, seats=[seat], with_line=False, threads=1, time_limit=remaining,
                       tt_entries=TT_ENTRIES).seat(seat).guaranteed
        if not result.is_exact:
            return values, False
        values.append(result.lower)
    return values, True


def price_of_information(deal: Deal, *, line: Sequence[Run] = (),
                         samples: int = DEFAULT_SAMPLES, seed: int = 0, exact: bool = False,
                         time_limit: float | None = None, exact_limit: int = EXACT_LIMIT,
                         lead_advice: Advice | None = None) -> Prices:
    """Each seat's double-dummy value, its expectation from its own view, and for the seat on
    lead the single-dummy value and the price, at the position ``line`` reaches.
    ``lead_advice``: the paranoid advice for the seat on lead, if already computed."""
    from ..seat import knowledge

    deadline = None if time_limit is None else time.monotonic() + time_limit
    known = [knowledge(deal, s, line) for s in range(1, deal.players + 1)]
    here = position_after(deal, line, known[0].deal_board)
    truth = solve(here, with_line=False, time_limit=time_limit)
    leader = here.leader
    left = None if deadline is None else max(deadline - time.monotonic(), 1e-3)
    lead = lead_advice if lead_advice is not None and lead_advice.model == "paranoid" else \
        advise(deal, leader, line=line, samples=samples, seed=seed, exact=exact,
               time_limit=left)
    complete = truth.exact and lead.complete
    out = []
    for seat in range(1, deal.players + 1):
        if seat == leader:
            out.append(SeatPrice(seat, truth.seat(seat).guaranteed, lead.double_dummy_mean,
                                 lead.double_dummy_ci95, lead.single_dummy, lead.deals))
            continue
        count, deals = consistent_deals(known[seat - 1], samples, seed, exact, exact_limit,
                                        deadline)
        found, done = _expected(deals, seat, deadline)
        done = done and len(deals) == deals_wanted(count, samples, exact)
        complete = complete and done
        mean, low, high = mean_ci([float(v) for v in found])
        if exact:  # every deal: no sampling error; cut short, the first of a fixed order
            low, high = (mean, mean) if done else (math.nan, math.nan)
        out.append(SeatPrice(seat, truth.seat(seat).guaranteed, mean, (low, high), None,
                             len(found)))
    return Prices(tuple(out), complete)

