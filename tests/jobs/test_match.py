"""Duplicate matches: the rotations, conservation, resuming after kill -9, records that the
referee accepts, standings against an independent computation, bad input."""

from __future__ import annotations

import json
import math
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.jobs.batch import run_batch
from popejoan_solver.jobs.match import read_match, run_match, session_records
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.referee import replay
from popejoan_solver.studies.standings import standings

CHEAP = ["hoyle", "random", "lowest"]


def _popejoan(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "popejoan_solver", *args], capture_output=True,
                          text=True, timeout=timeout, check=False)


@pytest.fixture(scope="module")
def session_match(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two bots at four players (B < n), sessions of three deals."""
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 4, 6, 3, session=3, workers=1)
    return out


def test_every_bot_holds_every_seat_of_every_deal_once(session_match: Path) -> None:
    _, rows = read_match(session_match)
    assert len(rows) == 2 * 6  # two rotations of six deals
    held: dict[tuple[int, int, str], int] = defaultdict(int)
    for row in rows:
        for seat, bot in enumerate(row.seats):
            held[row.index, seat, bot] += 1
    assert set(held.values()) == {1}
    assert len(held) == 6 * 4 * 2
    # Three bots at three players (B = n) and four bots at three (B > n) too.
    for bots in (CHEAP, [*CHEAP, "hoyle:peek"]):
        out = session_match.parent / f"b{len(bots)}.db"
        run_match(out, bots, 3, 2, 1, workers=1)
        _, rows = read_match(out)
        counts: dict[tuple[int, int, str], int] = defaultdict(int)
        for row in rows:
            for seat, bot in enumerate(row.seats):
                counts[row.index, seat, bot] += 1
        assert set(counts.values()) == {1}
        assert len(counts) == 2 * 3 * len(bots)


def test_records_replay_to_the_stored_values_and_conserve_counters(session_match: Path) -> None:
    settings, rows = read_match(session_match)
    stored = {(r.session, r.rotation, r.deal): r.values for r in rows}
    units = list(session_records(settings, rows))
    assert len(units) == 4
    for session, rotation, record in units:
        result = replay(record)
        assert result.error is None
        for k, deal in enumerate(result.deals):
            assert deal.values == stored[session, rotation, k]
        board = result.deals[-1].board_after.total()
        assert sum(result.totals) + board == 0  # every counter is a player's or the board's


def test_standings_against_an_independent_computation(session_match: Path) -> None:
    settings, rows = read_match(session_match)
    result = standings(settings, rows)
    per_unit: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for name, value in zip(row.seats, row.values, strict=True):
            per_unit[name][row.session].append(value)
    t95 = 12.706204736174694  # Student's t, two-sided 95%, 1 degree of freedom: two units
    for bot in result.bots:
        plays = [v for unit in per_unit[bot.name].values() for v in unit]
        means = [statistics.fmean(unit) for unit in per_unit[bot.name].values()]
        assert len(means) == 2
        half = t95 * statistics.stdev(means) / math.sqrt(len(means))
        assert bot.plays == len(plays) == 6 * 4  # every seat of six deals, once
        assert bot.mean == pytest.approx(statistics.fmean(plays))
        assert bot.ci95 == pytest.approx((statistics.fmean(means) - half,
                                          statistics.fmean(means) + half))
    (pair,) = result.pairs
    diffs = [statistics.fmean(per_unit[pair.a][u]) - statistics.fmean(per_unit[pair.b][u])
             for u in per_unit[pair.a]]
    assert pair.difference == pytest.approx(statistics.fmean(diffs))
    half = t95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    assert pair.ci95 == pytest.approx((pair.difference - half, pair.difference + half))


def test_standings_command_json_records_and_check(session_match: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["standings", str(session_match), "--json", "--records", str(tmp_path),
                 "--plot", str(tmp_path / "s.png")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {b["name"] for b in data["bots"]} == {"hoyle", "random"}
    assert set(data["bots"][0]) >= {"name", "mean", "ci95", "plays"}
    assert set(data["pairs"][0]) >= {"a", "b", "difference", "ci95"}
    assert (tmp_path / "s.png").stat().st_size > 0
    assert main(["check", str(tmp_path / "s1-r1.json"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["legal"] is True


def _rows(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT session, rotation, deal, idx, seats, vals, record FROM plays "
                          "ORDER BY session, rotation, deal").fetchall()
    finally:
        db.close()


def test_resume_after_kill_9(tmp_path: Path) -> None:
    """Killed mid-run, the same command finishes the match: the same rows as a run never
    stopped (every decision is seeded by the match seed, the deal and the seat). Twenty deals
    (60 deal-plays) leave four fifths of the match to resume once 12 rows are stored: the
    point, a kill in the middle, needs no longer match."""
    args = ["match", "--bots", ",".join(CHEAP), "--players", "8", "--deals", "20",
            "--seed", "4", "--workers", "2"]
    killed = tmp_path / "killed.db"
    process = subprocess.Popen([sys.executable, "-m", "popejoan_solver", *args, "--out",
                                str(killed)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    stored = 0
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.2)
        try:
            stored = len(_rows(killed))
        except sqlite3.Error:
            stored = 0
        if stored >= 12:
            break
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)
    partial = len(_rows(killed))
    assert 0 < partial < 60, "kill the run while it is half done"
    resumed = _popejoan(*args, "--out", str(killed))
    assert resumed.returncode == 0, resumed.stderr
    assert f"{partial} already there" in resumed.stdout
    whole = tmp_path / "whole.db"
    run_match(whole, CHEAP, 8, 20, 4, workers=1)
    assert _rows(killed) == _rows(whole)
    assert len(_rows(whole)) == 60


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "hoyle,alphazero"], "unknown bot"),
    (["--bots", "hoyle,,random"], "empty spec"),
    (["--bots", "pimc:samples=0"], "samples"),
    (["--bots", "hoyle", "--players", "9"], "--players"),
    (["--bots", "hoyle", "--session", "4", "--deals", "6"], "whole number of sessions"),
    (["--bots", "hoyle", "--rules", "nonesuch"], "nonesuch"),
    (["--bots", "hoyle", "--cluster", "nowhere"], "cluster"),
])
def test_bad_match_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     args: list[str], message: str) -> None:
    base = {"--players": "3", "--deals": "2", "--seed": "1"}
    for i in range(0, len(args), 2):
        base.pop(args[i], None)
    extra = [x for k, v in base.items() for x in (k, v)]
    assert main(["match", *args, *extra, "--out", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:")
    assert message in err
    assert err.count("\n") == 1
    assert not (tmp_path / "x.db").exists()


def test_other_settings_are_refused_and_a_batch_file_is_not_a_match(
        session_match: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(PopeJoanError, match="was made with"):
        run_match(session_match, ["hoyle", "random"], 4, 6, 99, session=3, workers=1)
    not_ours = tmp_path / "batch.db"
    run_batch(not_ours, ["hoyle-modernized"], [8], 1, 1, workers=1)
    assert main(["standings", str(not_ours)]) == 2
    assert "not a popejoan match file" in capsys.readouterr().err
    assert main(["standings", str(tmp_path / "missing.db")]) == 2
    assert "no such match file" in capsys.readouterr().err
    assert main(["standings", str(session_match), "--seat", "9"]) == 2
    assert "--seat must be from 1 to 4" in capsys.readouterr().err
    assert main(["standings", str(session_match), "--maxims", "pimc"]) == 2
    assert "not a bot of this match" in capsys.readouterr().err
    assert main(["standings", str(session_match), "--plot", str(tmp_path / "p.pdf")]) == 2
    assert ".png or .svg" in capsys.readouterr().err


def test_hoyle_agrees_with_every_maxim_and_seat_standings(session_match: Path) -> None:
    """The hoyle bot is the maxims from its view: agreement 1 for every maxim (and random's is
    below); at one seat, each bot plays once per deal of a unit."""
    from popejoan_solver.studies.agreement import agreement

    settings, rows = read_match(session_match)
    found = agreement(settings, rows, "hoyle")
    assert found.counts["all leads"][0] > 0
    assert all(leads == same for leads, same in found.counts.values())
    leads, same = agreement(settings, rows, "random").counts["all leads"]
    assert same < leads
    dealer = standings(settings, rows, seat=4)
    assert all(b.plays == 6 for b in dealer.bots)  # six deals, once each at the dealer's seat
    values = [r.values[3] for r in rows if r.seats[3] == "hoyle"]
    assert dealer.bots[[b.name for b in dealer.bots].index("hoyle")].mean == pytest.approx(
        statistics.fmean(values))


def test_resume_with_fewer_deals_reports_what_it_planned(tmp_path: Path) -> None:
    """After a 4-deal match, ``match ... --deals 2`` printed "4 deal-plays in m.db: 8 already
    there" (batch says "2 deals: 2 already there")."""
    out = tmp_path / "m.db"
    run_match(out, ["lowest", "random"], 3, 4, 1, workers=1)
    report = run_match(out, ["lowest", "random"], 3, 2, 1, workers=1)
    assert report.played == 0
    assert report.already == report.planned == 4
