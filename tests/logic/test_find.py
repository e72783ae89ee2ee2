"""The deal search of ``find`` (``popejoan_solver/logic/find.py``): the query checked from Python,
the time limit bounding one long SAT call."""

from __future__ import annotations

import math
import time
from typing import Any

import pytest

from popejoan_solver.logic.find import FindQuery, Property, find_deals, parse_hold
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.rules import get_ruleset

HOYLE = get_ruleset("hoyle-modernized")


def test_find_query_is_checked_in_the_library_too() -> None:
    """From Python, not only from the command line: a wrong query raises PopeJoanError."""
    def query(**changes: Any) -> FindQuery:
        fields: dict[str, Any] = {"prop": Property.FIRST_LEAD_OUT, "rules": HOYLE,
                                  "players": 4}
        return FindQuery(**(fields | changes))

    eight_of_diamonds = 1 << 20  # 8D: a card of the 52, not of the Pope Joan pack
    for bad in (query(time_limit=math.nan), query(time_limit=math.inf),
                query(time_limit=-1.0), query(time_limit=0.0), query(count=0),
                query(hold={1: eight_of_diamonds}), query(dead=eight_of_diamonds),
                query(hold={1: 1, 2: 1}), query(hold={1: 1}, dead=1), query(hold={8: 1}),
                query(hold={0: 1}), query(seat=0), query(seat=5)):
        with pytest.raises(PopeJoanError):
            find_deals(bad)
    for text in ("1:", "1:8D", "\u00b2:AC", ":AC", "1"):
        with pytest.raises(PopeJoanError):
            parse_hold(text, 4)


def test_find_time_limit_also_bounds_one_long_sat_call() -> None:
    """The deadline interrupts the SAT solver itself, not only the loop around it."""
    started = time.monotonic()
    result = find_deals(FindQuery(Property.FORCED_WIN, HOYLE, 8, count=50, time_limit=0.5))
    assert time.monotonic() - started < 3
    assert result.stats.timed_out or result.stats.exhausted
