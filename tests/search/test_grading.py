"""Grading a record (``popejoan_solver/search/grading.py``): the text of a grade whose costs are
bounds."""

from __future__ import annotations

from pathlib import Path

import pytest

from popejoan_solver.jobs.match import read_match, run_match


@pytest.fixture(scope="module")
def small_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals of three players between hoyle and random (well under a second)."""
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 3, 2, 1, workers=1)
    return out


def test_grade_text_gives_a_bounded_total_cost_as_bounds(small_match: Path) -> None:
    """Where the time limit leaves costs as bounds, the text gives the total cost as ``8..151``,
    as each lead's cost is written (never a Python dict)."""
    from popejoan_solver.jobs.match import session_records
    from popejoan_solver.search.grading import describe, grade_record

    settings, rows = read_match(small_match)
    record = next(iter(session_records(settings, rows)))[2]
    result = grade_record(record, time_limit=1e-6)
    totals = [line for line in describe(result) if "total cost" in line]
    costs = [row["cost"] for row in result.players()]
    assert any(isinstance(cost, dict) for cost in costs)  # the limit left some bounds
    for line, cost in zip(totals, costs, strict=True):
        written = f"{cost['lower']}..{cost['upper']}" if isinstance(cost, dict) else str(cost)
        assert line.endswith(f"total cost {written}")
