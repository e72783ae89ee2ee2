"""``popejoan batch`` against bad input and faults: one ``error:`` line and status 2, never a
traceback, a silently wrong answer, unbounded memory or a worker left running; a killed batch
resumes to the rows of an undisturbed run.

What a refused command says and its status is checked in-process (``run_main``: the same as
a child's); a child keeps what is about the process: signals, workers, a memory cap, and
what a mistake would make unbounded (expanding a huge range, planning a billion tasks,
starting a billion workers) so that it could not take the test run with it."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from popejoan_solver.jobs.batch import MAX_DEALS, parse_players, read_rows, run_batch
from tests.contract import (
    ROOT,
    Outcome,
    assert_contract,
    assert_group_gone,
    default_sigint,
    run_cli,
    run_main,
)

BATCH = ["batch", "--rules", "hoyle-modernized", "--players", "5", "--deals", "60", "--seed",
         "4", "--workers", "2"]
"""A batch that runs for a few seconds on two workers: long enough to be killed midway."""


def _content(path: Path) -> list[tuple[Any, ...]]:
    """Every row but its timing."""
    return [(r["rules"], r["players"], r["idx"], json.dumps(r["deal"]), r["guaranteed"],
             r["forced_win"], r["best_case"], r["leads"], r["exact"]) for r in read_rows(path)]


def _count(out: Path) -> int:
    """Rows in a batch file, 0 while it is not there yet."""
    try:
        with sqlite3.connect(f"file:{out}?mode=ro", uri=True) as db:
            return int(db.execute("SELECT count(*) FROM deals").fetchone()[0])
    except sqlite3.Error:
        return 0


def _wait_for_rows(proc: subprocess.Popen[str], out: Path, count: int,
                   limit: float = 120) -> None:
    """Wait until the running batch ``proc`` has stored ``count`` rows in ``out``."""
    deadline = time.monotonic() + limit
    while _count(out) < count:
        assert proc.poll() is None, f"the batch ended first: {proc.communicate()[1][-2000:]}"
        assert time.monotonic() < deadline, f"{out} never reached {count} rows"
        time.sleep(0.1)


def _children(pid: int) -> list[int]:
    """The child processes of ``pid`` (its pool workers)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _start(out: Path) -> subprocess.Popen[str]:
    """The long batch in its own session (its process group is the batch and its workers)."""
    return subprocess.Popen([sys.executable, "-m", "popejoan_solver", *BATCH, "--out", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            cwd=ROOT, start_new_session=True,
                            preexec_fn=default_sigint)


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Any, ...]]:
    """The long batch's rows from a run nobody disturbed."""
    out = tmp_path_factory.mktemp("clean") / "clean.db"
    run_batch(out, ["hoyle-modernized"], [5], 60, seed=4, workers=2)
    return _content(out)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real batch file of 120 rows (quick parlett deals), closed cleanly: no log beside it."""
    out = tmp_path_factory.mktemp("small") / "small.db"
    run_batch(out, ["parlett"], [3, 4, 5, 6, 7, 8], 20, seed=1, workers=2)
    return out


def _resumes_to(out: Path, clean: list[tuple[Any, ...]]) -> None:
    """Running the long batch again finishes it, with the rows of an undisturbed run (the rerun
    in-process: it is the file that is resumed, not a process that is checked)."""
    assert_contract(run_main([*BATCH, "--out", str(out)], timeout=180), status=0)
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _content(out) == clean


def test_a_huge_player_range_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    """``--players 3-3000000000`` is refused before it is expanded into a list (no MemoryError,
    no traceback)."""
    out = tmp_path / "b.db"
    outcome = run_cli(["batch", "--players", "3-3000000000", "--deals", "1", "--seed", "1",
                       "--out", str(out)], timeout=20)
    assert_contract(outcome, within=10)
    assert "from 3 to 8" in outcome.stderr
    assert not out.exists()
    for text in ("8-3", "3-", "-3", "2-5", "3,,4", "9", "3-9" * 10_000):
        with pytest.raises(ValueError, match="player"):
            parse_players(text)
    assert parse_players("5, 3-4,4") == [3, 4, 5]


def test_too_many_deals_are_refused_naming_the_limit(tmp_path: Path) -> None:
    """``--deals 1000000000`` is refused, naming the limit, before any task is planned."""
    out = tmp_path / "b.db"
    outcome = run_cli(["batch", "--players", "3", "--deals", "1000000000", "--seed", "1",
                       "--out", str(out)], timeout=20)
    assert_contract(outcome, within=10)
    assert str(MAX_DEALS) in outcome.stderr
    assert not out.exists()
    study = run_cli(["study", "seat-values", "--rules", f"parlett:{'9' * 5000}", "--deals",
                     "1", "--out", str(out)], timeout=20)
    assert_contract(study, within=10)


def test_the_largest_batch_streams_its_tasks_in_flat_memory(tmp_path: Path) -> None:
    """Six times the ten-million-deal bound starts at once under a 2 GiB cap (a list of its
    tasks would not fit) and SIGTERM then stops it: one line, status 143, nothing left."""
    out = tmp_path / "big.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "popejoan_solver", "batch", "--rules", "parlett", "--players",
         "3-8", "--deals", str(MAX_DEALS), "--seed", "1", "--workers", "2", "--out", str(out)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        start_new_session=True, preexec_fn=lambda: _cap(2 << 30))
    try:
        _wait_for_rows(proc, out, 50, limit=60)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_contract(Outcome(proc.returncode, "", err, time.monotonic() - started), status=143,
                    within=5)
    assert err.startswith("error: terminated"), err
    assert_group_gone(proc.pid)


def _cap(memory: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def test_out_in_a_missing_or_unwritable_folder(tmp_path: Path) -> None:
    """A missing folder, a file used as a folder, and /proc (where even root cannot create a
    file): one error line each, not a traceback."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    places = [tmp_path / "missing" / "b.db", notes / "b.db"]
    if Path("/proc").is_dir():
        places.append(Path("/proc/popejoan-test.db"))
    for out in places:
        outcome = run_main(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                            "--seed", "1", "--out", str(out)], timeout=30)
        assert_contract(outcome)
        assert str(out) in outcome.stderr
    assert "does not exist" in run_main(["batch", "--rules", "parlett", "--players", "4",
                                         "--deals", "1", "--seed", "1", "--out",
                                         str(places[0])]).stderr


def test_a_deals_table_with_other_columns_is_refused(tmp_path: Path) -> None:
    """The right ``meta`` table and a ``deals`` table of other columns: refused by batch (and
    the file left as it was) and by stats, with the columns named."""
    out = tmp_path / "foreign.db"
    with sqlite3.connect(out) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.executemany("INSERT INTO meta VALUES (?, ?)", [
            ("format", "popejoan-batch"), ("version", "1"), ("seed", "1"),
            ("time_limit", "none")])
        db.execute("CREATE TABLE deals (rules TEXT, players INTEGER, score REAL)")
        db.execute("INSERT INTO deals VALUES ('parlett', 4, 1.5)")
    db.close()
    before = out.read_bytes()
    batch = run_main(["batch", "--rules", "parlett", "--players", "4", "--deals", "2",
                      "--seed", "1", "--out", str(out)], timeout=30)
    assert_contract(batch)
    assert "deals table has columns (rules, players, score)" in batch.stderr
    assert out.read_bytes() == before
    stats = run_main(["stats", str(out)], timeout=30)
    assert_contract(stats)
    assert "deals table" in stats.stderr


def _damaged(small: Path, folder: Path) -> dict[str, Path]:
    data = small.read_bytes()
    page = 4096
    assert len(data) > 12 * page
    made = {
        "overwritten": data[:7 * page] + b"\xff" * (3 * page) + data[10 * page:],
        "truncated": data[:len(data) // 2 + 100],
        "truncated to a page": data[:page],
        "truncated in the header": data[:50],
    }
    paths = {}
    for name, content in made.items():
        path = folder / (name.replace(" ", "-") + ".db")
        path.write_bytes(content)
        paths[name] = path
    return paths


def test_damaged_files_are_one_error_saying_what_is_wrong(small: Path, tmp_path: Path) -> None:
    for name, path in _damaged(small, tmp_path).items():
        for argv in (["stats", str(path)],
                     ["batch", "--rules", "parlett", "--players", "3-8", "--deals", "20",
                      "--seed", "1", "--workers", "1", "--out", str(path)]):
            outcome = run_main(argv, timeout=60)
            assert_contract(outcome)
            assert "is damaged" in outcome.stderr, (name, outcome.stderr)
            if name.startswith("truncated"):
                assert "truncated" in outcome.stderr, (name, outcome.stderr)
            assert "not a popejoan batch file" not in outcome.stderr


@pytest.mark.parametrize("address", ["nonsense", "tcp://", "tcp://127.0.0.1:1", "",
                                     "tcp://127.0.0.1:99999", "inproc://x"])
def test_a_bad_cluster_address_is_one_error_in_seconds(address: str, tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    outcome = run_main(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                        "--seed", "1", "--cluster", address, "--out", str(out)], timeout=60)
    assert_contract(outcome, within=10)
    assert "scheduler" in outcome.stderr
    assert not out.exists()  # checked before the file is made


def test_a_cluster_address_that_never_answers_is_one_error_in_seconds(tmp_path: Path) -> None:
    """Something listens but says nothing: Dask's handshake alone would wait for ever."""
    out = tmp_path / "b.db"
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        outcome = run_main(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                            "--seed", "1", "--cluster", f"tcp://127.0.0.1:{port}", "--out",
                            str(out)], timeout=60)
    assert_contract(outcome, within=15)
    assert "did not answer as a Dask scheduler" in outcome.stderr
    assert not out.exists()


def test_a_killed_worker_is_one_error_the_rows_kept_and_a_rerun_completes(
        tmp_path: Path, clean: list[tuple[Any, ...]]) -> None:
    out = tmp_path / "b.db"
    proc = _start(out)
    try:
        _wait_for_rows(proc, out, 3)
        workers = _children(proc.pid)
        assert workers
        started = time.monotonic()
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_contract(Outcome(proc.returncode, "", err, time.monotonic() - started), within=10)
    assert "worker process died" in err, err
    assert "resume" in err, err
    assert_group_gone(proc.pid)
    assert 3 <= _count(out) < 60
    _resumes_to(out, clean)


@pytest.mark.parametrize("rules", [",", "", " , "])
def test_no_ruleset_is_an_error_not_an_empty_batch(rules: str, tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    for argv in (["batch", "--rules", rules, "--players", "4", "--deals", "1", "--seed", "1"],
                 ["study", "seat-values", "--rules", rules, "--players", "4", "--deals", "1"]):
        outcome = run_main([*argv, "--out", str(out)], timeout=30)
        assert_contract(outcome)
        assert "no ruleset" in outcome.stderr
        assert not out.exists()


def test_other_bad_numbers_are_refused_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    base = ["batch", "--rules", "parlett", "--players", "4", "--deals", "1", "--seed", "1",
            "--out", str(out)]
    for extra in (["--workers", "1000000000"], ["--time-limit", "nan"],
                  ["--time-limit", "-1"], ["--time-limit", "inf"]):
        run = run_cli if extra[0] == "--workers" else run_main  # a billion workers: a child
        assert_contract(run([*base, *extra], timeout=30), within=10)
        assert not out.exists()
    study = run_main(["study", "seat-values", "--rules", "parlett", "--players", "4", "--deals",
                     "1", "--time-limit", "0", "--out", str(out)], timeout=30)
    assert_contract(study)


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_batch_leaves_no_worker_and_a_rerun_completes(
        how: signal.Signals, tmp_path: Path, clean: list[tuple[Any, ...]]) -> None:
    """Only the parent is signalled: its workers must not outlive it (holding the file open).
    SIGTERM is one ``error: terminated`` line and status 143; a rerun completes the file."""
    out = tmp_path / "b.db"
    proc = _start(out)
    try:
        _wait_for_rows(proc, out, 3)
        assert _children(proc.pid)
        started = time.monotonic()
        os.kill(proc.pid, how)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert_group_gone(proc.pid, within=5)
    if how == signal.SIGTERM:
        assert_contract(Outcome(proc.returncode, "", err, time.monotonic() - started),
                        status=143, within=5)
        assert err.startswith("error: terminated"), err
    assert 3 <= _count(out) < 60
    _resumes_to(out, clean)
