"""``popejoan standings``: ``--maxims`` per seat, ``--records`` and ``--plot``, and strict JSON
for a match without a complete unit."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.jobs.match import read_match, run_match


@pytest.fixture(scope="module")
def small_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two deals of three players between hoyle and random (well under a second)."""
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 3, 2, 1, workers=1)
    return out


def test_maxims_at_one_seat_counts_only_that_seat(
        small_match: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--seat N --maxims BOT`` counts that seat's leads only: the seats' counts add up to the
    whole match's."""
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
    """With ``--maxims``, ``--records DIR`` still writes the records and ``--plot`` is refused,
    never dropped silently."""
    settings, _ = read_match(small_match)
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--records",
                 str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("s*-r*.json"))) == 2 * len(settings.bots)
    capsys.readouterr()
    assert main(["standings", str(small_match), "--maxims", "hoyle", "--plot",
                 str(tmp_path / "p.png")]) == 2
    assert capsys.readouterr().err.startswith("error: --plot draws the standings")
    assert not (tmp_path / "p.png").exists()


def test_records_folder_is_made_when_new(small_match: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """``standings --records NEW`` makes a folder that does not exist yet (never for a match file
    that cannot be read, nor under a missing parent)."""
    assert main(["standings", str(tmp_path / "missing.db"), "--records",
                 str(tmp_path / "never")]) == 2
    assert not (tmp_path / "never").exists()
    capsys.readouterr()
    assert main(["standings", str(small_match), "--records", str(tmp_path / "new")]) == 0
    assert len(list((tmp_path / "new").glob("s*-r*.json"))) == 4
    assert main(["standings", str(small_match), "--records",
                 str(tmp_path / "no" / "such")]) == 2
    assert capsys.readouterr().err.startswith("error: --records ")


def test_standings_without_a_complete_unit_is_strict_json(
        small_match: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A match file whose every unit is unfinished gives strict JSON (``null``, never ``NaN``,
    which a browser or jq refuses) and no "nan" in the text."""
    import shutil
    import sqlite3

    copy = tmp_path / "unfinished.db"
    shutil.copy(small_match, copy)
    with sqlite3.connect(copy) as db:
        db.execute("DELETE FROM plays WHERE rotation = 0")
    db.close()
    assert main(["standings", str(copy), "--json"]) == 0

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in the JSON")

    data = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert data["units"] == 0
    assert all(b["mean"] is None for b in data["bots"])
    assert main(["standings", str(copy)]) == 0
    assert "nan" not in capsys.readouterr().out
