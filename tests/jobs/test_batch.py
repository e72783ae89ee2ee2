"""Batch studies: reproducible rows, resuming after a kill, refusing foreign files, the Dask
path equal to the local one, statistics and the maxims study."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest

from popejoan_solver.cli import main
from popejoan_solver.jobs.batch import (
    MAX_DEALS,
    BatchStore,
    parse_players,
    plan,
    read_rows,
    run_batch,
)
from popejoan_solver.model.cards import PACK, CardSet, card_name, iter_mask, mask_of, parse_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import solve
from popejoan_solver.studies.hoyle_maxims import hoyle_advice, study
from popejoan_solver.studies.stats import groups, wilson
from tests.contract import default_sigint


def _content(path: Path) -> list[tuple[Any, ...]]:
    """Every row but its timing."""
    return [(r["rules"], r["players"], r["idx"], json.dumps(r["deal"]), r["guaranteed"],
             r["forced_win"], r["best_case"], r["leads"], r["exact"]) for r in read_rows(path)]


def test_rows_are_the_seeded_deals_solved(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    report = run_batch(out, ["parlett"], [5], 3, seed=9, workers=1)
    assert (report.planned, report.solved) == (3, 3)
    rows = list(read_rows(out))
    for row in rows:
        deal = deal_random(5, 9, get_ruleset("parlett"), row["idx"])
        solution = solve(deal)
        assert row["guaranteed"] == [s.guaranteed.lower for s in solution.seats]
        assert row["forced_win"] == [bool(s.forced_win.lower) for s in solution.seats]
        assert row["leads"] == {card_name(lead.card): lead.guaranteed.lower
                                for lead in solution.leads}


def test_resume_solves_only_what_is_missing(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["britannica"], [6, 7], 2, seed=1, workers=2)
    again = run_batch(out, ["britannica"], [6, 7], 4, seed=1, workers=2)
    assert (again.already, again.solved) == (4, 4)
    keys = [(r["players"], r["idx"]) for r in read_rows(out)]
    assert sorted(keys) == [(p, i) for p in (6, 7) for i in range(4)]


def _wait_for_rows(out: Path, count: int, limit: float = 120) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if out.exists():
            try:
                with sqlite3.connect(out) as db:
                    if db.execute("SELECT count(*) FROM deals").fetchone()[0] >= count:
                        return
            except sqlite3.OperationalError:
                pass


def test_kill_9_loses_nothing_and_duplicates_nothing(tmp_path: Path) -> None:
    out = tmp_path / "killed.db"
    argv = [sys.executable, "-m", "popejoan_solver", "batch", "--rules", "hoyle-modernized",
            "--players", "6", "--deals", "40", "--seed", "3", "--workers", "2", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    _wait_for_rows(out, 3)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    partial = len(list(read_rows(out)))
    assert partial >= 3
    assert subprocess.run(argv, capture_output=True, check=False).returncode == 0
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    clean = tmp_path / "clean.db"
    run_batch(clean, ["hoyle-modernized"], [6], 40, seed=3, workers=2)
    assert _content(out) == _content(clean)


def test_ctrl_c_stops_the_workers_keeps_the_rows_and_resumes(tmp_path: Path) -> None:
    """Ctrl-C reaches the whole foreground process group: the workers ignore it, the parent
    stops them, says so in one line and exits 130; rerunning finishes the study. Four hundred
    deals (about 0.01 s of search each: twenty once took two seconds, and now finish before the
    interrupt lands) leave most of the study to the rerun once three rows are stored: the
    point, an interruption in the middle, needs no longer study."""
    out = tmp_path / "interrupted.db"
    argv = [sys.executable, "-m", "popejoan_solver", "batch", "--rules", "hoyle-modernized",
            "--players", "5", "--deals", "400", "--seed", "4", "--workers", "2", "--out",
            str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=default_sigint)
    _wait_for_rows(out, 3)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.startswith("error: interrupted"), err
    assert err.count("\n") == 1, err
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):  # no worker is left running
        os.killpg(proc.pid, 0)
    kept = len(list(read_rows(out)))
    assert 3 <= kept < 400
    assert subprocess.run(argv, capture_output=True, check=False).returncode == 0
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(r["idx"] for r in read_rows(out)) == list(range(400))


def test_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    """On a terminal, stderr shows a bar with the count, the rate and the time left; piped, the
    same run prints no bar."""
    import pty

    argv = [sys.executable, "-m", "popejoan_solver", "batch", "--rules", "parlett", "--players",
            "5", "--deals", "6", "--seed", "2", "--workers", "1"]
    master, slave = pty.openpty()
    proc = subprocess.Popen([*argv, "--out", str(tmp_path / "tty.db")],
                            stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closes when the process ends
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    assert proc.wait(timeout=120) == 0
    text = shown.decode(errors="replace")
    assert "6/6" in text, text
    assert "deal/s" in text, text
    assert "<" in text, text  # elapsed<remaining
    piped = subprocess.run([*argv, "--out", str(tmp_path / "pipe.db")], capture_output=True,
                           text=True, check=False)
    assert piped.returncode == 0
    assert "deal/s" not in piped.stderr


def test_foreign_or_mismatched_files_are_refused(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.db"
    base = ["batch", "--rules", "parlett", "--players", "4", "--deals", "1", "--out", str(out)]
    assert main([*base, "--seed", "1"]) == 0
    assert main([*base, "--seed", "2"]) == 2
    assert "made with seed 1" in capsys.readouterr().err
    assert main([*base, "--seed", "1", "--time-limit", "5"]) == 2
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    for bad in (text, other):
        capsys.readouterr()
        assert main(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                     "--seed", "1", "--out", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ")
        assert "not a popejoan batch file" in err
        assert main(["stats", str(bad)]) == 2
    for argv in (["--players", "2-9"], ["--players", "x"], ["--rules", "nope"]):
        assert main(["batch", "--deals", "1", "--seed", "1", "--out", str(out), *argv]) == 2


def test_a_deal_past_the_time_limit_is_recorded_with_bounds(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["hoyle-modernized"], [3], 1, seed=2026, workers=1, time_limit=0.001)
    (row,) = read_rows(out)
    assert row["exact"] == 0
    assert any(isinstance(v, dict) for v in row["guaranteed"])


def test_dask_cluster_gives_the_local_results(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    local = tmp_path / "local.db"
    remote = tmp_path / "dask.db"
    run_batch(local, ["parlett", "hoyle-modernized"], [5, 8], 3, seed=4, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None, processes=True) as cluster:
        report = run_batch(remote, ["parlett", "hoyle-modernized"], [5, 8], 3, seed=4,
                           cluster=cluster.scheduler_address)
    assert report.solved == 12
    assert _content(remote) == _content(local)


def test_stats_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["parlett"], [6, 8], 5, seed=5, workers=2)
    png = tmp_path / "fig.png"
    assert main(["stats", str(out), "--json", "--plot", str(png)]) == 0
    data = json.loads(capsys.readouterr().out)
    (first, second) = data["groups"]
    assert {"rules", "players", "deals", "forced_win_rate", "any_forced_win_rate",
            "mean_guaranteed"} <= set(first)
    assert (first["players"], first["deals"], len(first["forced_win_rate"])) == (6, 5, 6)
    assert png.read_bytes()[:4] == b"\x89PNG"
    rows = list(read_rows(out))
    wins = sum(1 for r in rows if r["players"] == 8 and r["forced_win"][0])
    assert second["forced_win_rate"][0] == pytest.approx(wins / 5)
    assert main(["stats", str(out), "--plot", str(tmp_path / "x.gif")]) == 2


def test_wilson_and_player_ranges() -> None:
    low, high = wilson(0, 10)
    assert low == 0.0
    assert 0.25 < high < 0.35
    assert parse_players("3-5,8") == [3, 4, 5, 8]


def _eldest_holds(cards: str, turnup: str) -> Deal:
    """A 3-player hoyle-modernized deal: eldest holds ``cards``, the rest dealt in order."""
    mine = CardSet.parse(cards).mask
    up = parse_card(turnup)
    rest = [c for c in iter_mask(PACK) if not mine >> c & 1 and c != up]
    hands = [mine, mask_of(rest[:12]), mask_of(rest[12:24])]
    return Deal.create(hands, mask_of(rest[24:]) | 1 << up, up, get_ruleset("hoyle-modernized"))


@pytest.mark.parametrize(("cards", "turnup", "lead", "maxim"), [
    ("QC KC 9D 3H 6H 2S 4S 5S 7S 9S JS AD", "8H", "QC", "known stop"),
    ("9D 3H 6H 2S 4S 5S 7S 9S JS AD 2C 5C", "8H", "9D", "Pope"),
    ("9H JH KH 3C 9C 3D TD 2S 8S AC 5S 5D", "9S", "9H", "sequence to a King"),
    ("3H 6H AC 6C JC AD 6D JD JH AS 6S JS", "9S", "3H", "close pair"),
    ("AC 6C JC AD 6D JD AH 6H JH AS 6S JS", "9S", "AC", "longest suit"),
])
def test_hoyle_advice_follows_the_order_of_the_text(cards: str, turnup: str, lead: str,
                                                     maxim: str) -> None:
    card, chosen = hoyle_advice(_eldest_holds(cards, turnup))
    assert (card_name(card), chosen) == (lead, maxim)


def test_maxims_study_compares_with_the_optimal_leads(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["hoyle-modernized"], [7], 6, seed=8, workers=2)
    results = study(read_rows(out))
    summary = results[7]
    assert summary["all advice"].deals == 6
    assert summary["random lead"].deals == 6
    assert all(c >= 0 for c in summary["all advice"].costs)
    assert set(summary) - {"all advice", "random lead"} <= {
        "known stop", "Pope", "sequence to a King", "close pair", "longest suit"}
    assert groups(read_rows(out))[0].deals == 6


def test_study_commands_write_their_reports(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "s.db"
    reports = tmp_path / "studies"
    assert main(["study", "seat-values", "--rules", "parlett,britannica:2", "--players", "7-8",
                 "--deals", "3", "--seed", "1", "--out", str(db), "--report", str(reports)]) == 0
    text = (reports / "seat-values.md").read_text()
    assert "| parlett | 7 | 3 |" in text
    assert "| britannica | 8 | 2 |" in text
    assert (reports / "seat-values.png").read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    assert main(["study", "hoyle-maxims", "--players", "8", "--deals", "3", "--seed", "1",
                 "--out", str(tmp_path / "m.db"), "--report", str(reports)]) == 0
    assert "| 8 | **all advice** | 3 |" in (reports / "hoyle-maxims.md").read_text()
    assert main(["study", "seat-values", "--rules", "parlett:x", "--deals", "1",
                 "--out", str(db)]) == 2


def test_plan_is_a_stream_and_the_counts_come_from_the_file(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["parlett"], [4], 3, seed=1, workers=1)
    store = BatchStore(out, 1, None)
    try:
        tasks = plan(store, ["parlett"], [4], MAX_DEALS, 1, None)
        assert isinstance(tasks, types.GeneratorType)
        assert [next(tasks).index for _ in range(3)] == [3, 4, 5]
        assert store.count_done("parlett", 4, MAX_DEALS) == 3
    finally:
        store.close()
    again = run_batch(out, ["parlett"], [4], 5, seed=1, workers=1)
    assert (again.planned, again.already, again.solved) == (5, 3, 2)
