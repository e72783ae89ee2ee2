"""The statistics of studies and standings (``popejoan_solver/studies/stats.py``): Student's t
for few values, rates kept within 0 to 1, no interval from one value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.jobs.match import run_match


def test_intervals_of_a_few_values_use_students_t() -> None:
    """Every "95% interval" of a mean (standings over a few units, advice over a few samples,
    stats) uses Student's t, not 1.96 standard errors whatever the count (for two units that
    covers about 70%). The quantiles against the printed table (two-sided 95%) and, where SciPy
    is installed, against it to 1e-9."""
    from popejoan_solver.studies.stats import mean_ci, t95

    table = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 10: 2.228, 20: 2.086,
             30: 2.042, 60: 2.000, 120: 1.980}
    for df, printed in table.items():
        assert round(t95(df), 3) == printed
    mean, _, high = mean_ci([0.0, 2.0])
    assert (mean, high - mean) == (1.0, pytest.approx(12.706204736174694))  # sd √2, n 2
    try:
        from scipy.stats import t as student
    except ImportError:
        return
    for df in [*range(1, 60), 99, 500, 999, 1000, 1001, 4000, 10**6]:
        assert t95(df) == pytest.approx(student.ppf(0.975, df), abs=1e-9)


def test_a_share_of_optimal_leads_stays_a_rate() -> None:
    """The interval of a share of optimal leads stays within 0 to 1 (a rate), however few the
    deals."""
    from popejoan_solver.studies.hoyle_maxims import MaximSummary

    _, low, high = MaximSummary("random lead", (0.25, 0.9166666), (0.0, 1.0)).optimal_rate
    assert (low, high) == (0.0, 1.0)


def test_one_value_gives_no_interval_and_no_separation(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One unit (``match --deals 1``) or one sample (``advise --samples 1``) has no interval (not
    the zero-width ``[mean, mean]``), and standings call no pair "separated"."""
    import math

    from popejoan_solver.studies.stats import mean_ci, mean_ci_from_sums

    for mean, low, high in (mean_ci([5.0]), mean_ci_from_sums(1, 5.0, 25.0)):
        assert mean == 5.0
        assert math.isnan(low)
        assert math.isnan(high)
    out = tmp_path / "one.db"
    run_match(out, ["hoyle", "random", "lowest"], 3, 1, 2, workers=1)
    assert main(["standings", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)  # strict JSON: no NaN
    assert data["units"] == 1
    assert all(b["ci95"] == [None, None] for b in data["bots"])
    assert not any(p["separates"] for p in data["pairs"])
    assert main(["standings", str(out)]) == 0
    text = capsys.readouterr().out
    assert "separated" not in text
    assert "[-, -]" in text
