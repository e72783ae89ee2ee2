"""Regression tests for the second hostile-user pass (/tmp/h6/hostile-findings.md): each test
names its finding and failed before the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.analysis.match import read_match, run_match
from popejoan_solver.cli import main


@pytest.fixture(scope="module")
def small_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals of three players between hoyle and random (well under a second)."""
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 3, 2, 1, workers=1)
    return out


def test_maxims_at_one_seat_counts_only_that_seat(
        small_match: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 1: ``--seat N --maxims BOT`` ignored ``--seat`` (the whole match's counts)."""
    per_seat = []
    for seat in (1, 2, 3):
        assert main(["standings", str(small_match), "--maxims", "random", "--seat", str(seat),
                     "--json"]) == 0
        rows = json.loads(capsys.readouterr().out)["maxims"]
        per_seat.append(next(r["leads"] for r in rows if r["maxim"] == "all leads"))
    assert main(["standings", str(small_match), "--maxims", "random", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["maxims"]
    total = next(r["leads"] for r in rows if r["maxim"] == "all leads")
    assert sum(per_seat) == total
    assert all(0 < leads < total for leads in per_seat)


def test_maxims_still_writes_records_and_refuses_a_plot(
        small_match: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 1: with ``--maxims``, ``--records DIR`` wrote nothing and ``--plot`` was
    dropped, both silently."""
    settings, _ = read_match(small_match)
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--records",
                 str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("s*-r*.json"))) == 2 * len(settings.bots)
    capsys.readouterr()
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--plot",
                 str(tmp_path / "p.png")]) == 2
    assert capsys.readouterr().err.startswith("error: --plot draws the standings")
    assert not (tmp_path / "p.png").exists()
