"""Hostile input and faults for ``batch``, ``stats`` and ``study`` (issue 10): one ``error:``
line and status 2 for bad input or a fault, never a traceback, a silently wrong answer,
unbounded memory or a worker left running."""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from popejoan_solver.jobs.batch import (
    MAX_DEALS,
    BatchStore,
    parse_players,
    plan,
    read_rows,
    run_batch,
)
from tests.contract import ROOT, Outcome, assert_contract, default_sigint, run_cli

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


def _live_members(pgid: int) -> list[int]:
    """Processes of the group that are still running (a zombie waiting to be reaped by
    whoever adopted it is not running)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    live = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            live.append(int(entry.name))
    return live


def _assert_gone(pgid: int, within: float = 5) -> None:
    deadline = time.monotonic() + within
    while (live := _live_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live, f"processes {live} of the batch are still running"


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
    """Running the long batch again finishes it, with the rows of an undisturbed run."""
    assert_contract(run_cli([*BATCH, "--out", str(out)], timeout=180), status=0)
    with sqlite3.connect(out) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _content(out) == clean


# ----------------------------------------------------------------------------- 1. up-front work

def test_a_huge_player_range_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    """``3-3000000000`` used to be expanded into a list (MemoryError, a traceback)."""
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
    """``--deals 1000000000`` used to plan a billion tasks before anything else."""
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
    _assert_gone(proc.pid)


def _cap(memory: int) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


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


# ----------------------------------------------------------------------------- 2. --out folder

def test_out_in_a_missing_or_unwritable_folder(tmp_path: Path) -> None:
    """A missing folder, a file used as a folder, and /proc (where even root cannot create a
    file): one error line each, not a traceback."""
    notes = tmp_path / "notes.txt"
    notes.write_text("hello")
    places = [tmp_path / "missing" / "b.db", notes / "b.db"]
    if Path("/proc").is_dir():
        places.append(Path("/proc/popejoan-test.db"))
    for out in places:
        outcome = run_cli(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                           "--seed", "1", "--out", str(out)], timeout=30)
        assert_contract(outcome)
        assert str(out) in outcome.stderr
    assert "does not exist" in run_cli(["batch", "--rules", "parlett", "--players", "4",
                                        "--deals", "1", "--seed", "1", "--out",
                                        str(places[0])]).stderr


# ----------------------------------------------------------------------------- 3. foreign table

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
    batch = run_cli(["batch", "--rules", "parlett", "--players", "4", "--deals", "2", "--seed",
                     "1", "--out", str(out)], timeout=30)
    assert_contract(batch)
    assert "deals table has columns (rules, players, score)" in batch.stderr
    assert out.read_bytes() == before
    stats = run_cli(["stats", str(out)], timeout=30)
    assert_contract(stats)
    assert "deals table" in stats.stderr


# ----------------------------------------------------------------------------- 4. damage

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
            outcome = run_cli(argv, timeout=60)
            assert_contract(outcome)
            assert "is damaged" in outcome.stderr, (name, outcome.stderr)
            if name.startswith("truncated"):
                assert "truncated" in outcome.stderr, (name, outcome.stderr)
            assert "not a popejoan batch file" not in outcome.stderr


def test_a_row_with_damaged_values_is_refused_not_counted(small: Path, tmp_path: Path) -> None:
    """Damage SQLite cannot see (a row's JSON cut short, a list of the wrong length)."""
    for change in ("guaranteed = '[1, 2'", "forced_win = '[true]'", "players = 99",
                   "seconds = 'soon'", "deal = '" + "[" * 100_000 + "'"):
        path = tmp_path / "row.db"
        shutil.copy(small, path)
        with sqlite3.connect(path) as db:
            db.execute(f"UPDATE deals SET {change} WHERE players = 5 AND idx = 7")
        db.close()
        outcome = run_cli(["stats", str(path)], timeout=30)
        assert_contract(outcome)
        assert "deal 7 of 'parlett'" in outcome.stderr, (change, outcome.stderr)
        assert "is damaged" in outcome.stderr, (change, outcome.stderr)


# ----------------------------------------------------------------------------- 5. --cluster

@pytest.mark.parametrize("address", ["nonsense", "tcp://", "tcp://127.0.0.1:1", "",
                                     "tcp://127.0.0.1:99999", "inproc://x"])
def test_a_bad_cluster_address_is_one_error_in_seconds(address: str, tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    outcome = run_cli(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                       "--seed", "1", "--cluster", address, "--out", str(out)], timeout=60)
    assert_contract(outcome, within=10)
    assert "scheduler" in outcome.stderr
    assert not out.exists()  # checked before the file is made


def test_a_cluster_address_that_never_answers_is_one_error_in_seconds(tmp_path: Path) -> None:
    """Something listens but says nothing: Dask's handshake alone would wait for ever."""
    out = tmp_path / "b.db"
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        outcome = run_cli(["batch", "--rules", "parlett", "--players", "4", "--deals", "1",
                           "--seed", "1", "--cluster", f"tcp://127.0.0.1:{port}", "--out",
                           str(out)], timeout=60)
    assert_contract(outcome, within=15)
    assert "did not answer as a Dask scheduler" in outcome.stderr
    assert not out.exists()


# ----------------------------------------------------------------------------- 6. a worker dies

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
    _assert_gone(proc.pid)
    assert 3 <= _count(out) < 60
    _resumes_to(out, clean)


# ----------------------------------------------------------------------------- 7. no ruleset

@pytest.mark.parametrize("rules", [",", "", " , "])
def test_no_ruleset_is_an_error_not_an_empty_batch(rules: str, tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    for argv in (["batch", "--rules", rules, "--players", "4", "--deals", "1", "--seed", "1"],
                 ["study", "seat-values", "--rules", rules, "--players", "4", "--deals", "1"]):
        outcome = run_cli([*argv, "--out", str(out)], timeout=30)
        assert_contract(outcome)
        assert "no ruleset" in outcome.stderr
        assert not out.exists()


def test_other_bad_numbers_are_refused_before_any_work(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    base = ["batch", "--rules", "parlett", "--players", "4", "--deals", "1", "--seed", "1",
            "--out", str(out)]
    for extra in (["--workers", "1000000000"], ["--time-limit", "nan"],
                  ["--time-limit", "-1"], ["--time-limit", "inf"]):
        assert_contract(run_cli([*base, *extra], timeout=30), within=10)
        assert not out.exists()
    study = run_cli(["study", "seat-values", "--rules", "parlett", "--players", "4", "--deals",
                     "1", "--time-limit", "0", "--out", str(out)], timeout=30)
    assert_contract(study)


# ----------------------------------------------------------------------------- 8. kill, SIGTERM

@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_killing_the_batch_leaves_no_worker_and_a_rerun_completes(
        how: signal.Signals, tmp_path: Path, clean: list[tuple[Any, ...]]) -> None:
    """Only the parent is signalled: its workers must not outlive it (they used to run on,
    holding the file open). SIGTERM is one ``error: terminated`` line and status 143."""
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
    _assert_gone(proc.pid, within=5)
    if how == signal.SIGTERM:
        assert_contract(Outcome(proc.returncode, "", err, time.monotonic() - started),
                        status=143, within=5)
        assert err.startswith("error: terminated"), err
    assert 3 <= _count(out) < 60
    _resumes_to(out, clean)


WORKER_SCRIPT = """
import ctypes, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from popejoan_solver.jobs import pool as jobs_pool
if sys.argv[1] == "watcher":
    def no_prctl(*args, **kwargs):
        raise OSError("no parent-death signal")
    ctypes.CDLL = no_prctl
else:
    jobs_pool.watch_parent = lambda parent: None
pool = ProcessPoolExecutor(1, mp_context=jobs_pool.pool_context(),
                           initializer=jobs_pool.worker_init, initargs=(os.getpid(),))
pool.submit(time.sleep, 120)
time.sleep(1)
print(*[p.pid for p in pool._processes.values()], flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux's /proc and prctl")
@pytest.mark.parametrize("alone", ["death-signal", "watcher"])
def test_each_guard_alone_kills_a_worker_whose_parent_died(alone: str) -> None:
    """The parent-death signal and the watcher thread each stop an orphaned worker."""
    proc = subprocess.Popen([sys.executable, "-c", WORKER_SCRIPT, alone], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "the pool never started"
        (worker,) = [int(pid) for pid in proc.stdout.readline().split()]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        _assert_gone(proc.pid, within=3)
    finally:
        if _live_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
    assert worker not in _live_members(proc.pid)


# ----------------------------------------------------------------------------- 9. read-only

def _names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_stats_creates_nothing_beside_the_file(small: Path, tmp_path: Path) -> None:
    path = tmp_path / "b.db"
    shutil.copy(small, path)
    outcome = run_cli(["stats", str(path), "--json"], timeout=30)
    assert_contract(outcome, status=0)
    assert sum(g["deals"] for g in json.loads(outcome.stdout)["groups"]) == 120
    assert _names(tmp_path) == {"b.db"}


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, list[str]]]:
    """A folder and a command prefix under which that folder cannot be written: chmod for a
    normal user; for root (whom chmod does not stop) a read-only bind mount in a user and
    mount namespace of its own."""
    folder = tmp_path / "ro"
    folder.mkdir()
    if os.geteuid() != 0:
        yield folder, []
        folder.chmod(0o755)
        return
    prefix = ["unshare", "-rm", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"',
              str(folder)]
    if shutil.which("unshare") is None or subprocess.run(
            [*prefix, "sh", "-c", f"! touch '{folder}/probe' 2>/dev/null"],
            capture_output=True, check=False).returncode != 0:
        pytest.skip("running as root, and no user namespace for a read-only mount here")
    yield folder, prefix


def _run_in(prefix: list[str], folder: Path, args: list[str]) -> Outcome:
    """``popejoan ARGS`` with ``folder`` read-only (see the ``read_only`` fixture)."""
    if not prefix:
        folder.chmod(0o555)
    started = time.monotonic()
    done = subprocess.run([*prefix, sys.executable, "-m", "popejoan_solver", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    return Outcome(done.returncode, done.stdout, done.stderr, time.monotonic() - started)


def test_stats_reads_a_file_in_a_read_only_folder(
        small: Path, read_only: tuple[Path, list[str]]) -> None:
    folder, prefix = read_only
    shutil.copy(small, folder / "b.db")
    outcome = _run_in(prefix, folder, ["stats", str(folder / "b.db"), "--json"])
    assert_contract(outcome, status=0)
    assert sum(g["deals"] for g in json.loads(outcome.stdout)["groups"]) == 120
    assert _names(folder) == {"b.db"}


def _with_log(small: Path, folder: Path) -> None:
    """A copy of ``small`` as a ``kill -9`` leaves it: its last change (rows 10 to 19 of every
    group deleted) only in the write-ahead log beside it."""
    work = folder.parent / "work"
    work.mkdir()
    shutil.copy(small, work / "b.db")
    db = sqlite3.connect(work / "b.db")
    with db:
        db.execute("DELETE FROM deals WHERE idx >= 10")
    for suffix in ("", "-wal", "-shm"):
        shutil.copy(work / f"b.db{suffix}", folder / f"b.db{suffix}")
    db.close()
    assert (folder / "b.db-wal").stat().st_size > 0


def test_stats_counts_the_rows_in_the_log_never_the_stale_file(
        small: Path, read_only: tuple[Path, list[str]]) -> None:
    """Reading the file as immutable would count the deleted rows: a silently wrong answer.
    With the log's -shm beside it, a read-only folder still works; without it, one error."""
    folder, prefix = read_only
    _with_log(small, folder)
    outcome = _run_in(prefix, folder, ["stats", str(folder / "b.db"), "--json"])
    assert_contract(outcome, status=0)
    assert [g["deals"] for g in json.loads(outcome.stdout)["groups"]] == [10] * 6
    if not prefix:
        folder.chmod(0o755)
    (folder / "b.db-shm").unlink()
    outcome = _run_in(prefix, folder, ["stats", str(folder / "b.db")])
    assert_contract(outcome)
    assert "write-ahead log" in outcome.stderr


# ----------------------------------------------------------------------------- 10, 11. stats

def test_stats_on_what_is_not_a_batch_file(tmp_path: Path) -> None:
    """Each is one line saying what the path is, within seconds (a pipe must not block)."""
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    noise = tmp_path / "noise.db"
    noise.write_bytes(os.urandom(50_000))
    text = tmp_path / "notes.txt"
    text.write_text("SQLite is a database\n" * 100)
    fake = tmp_path / "fake.db"
    fake.write_bytes(b"SQLite format 3\x00" + os.urandom(40_000))
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    expected = {
        str(tmp_path): "is a folder",
        str(tmp_path / "missing.db"): "no such batch file",
        "/dev/zero": "not a regular file",
        str(pipe): "not a regular file",
        str(empty): "is empty",
        str(noise): "not SQLite",
        str(text): "not SQLite",
        str(fake): "damaged",
    }
    for path, words in expected.items():
        outcome = run_cli(["stats", path], timeout=30)
        assert_contract(outcome, within=10)
        assert words in outcome.stderr, (path, outcome.stderr)


def test_stopping_a_pool_waits_for_its_manager_thread() -> None:
    """A batch stopped by SIGTERM once printed "Exception ignored in threading._shutdown ...
    OSError: [Errno 9] Bad file descriptor" under its one line: the interpreter's exit woke the
    pool's manager thread through a pipe that thread was closing. stop_pool now waits for it."""
    from concurrent.futures import ProcessPoolExecutor

    from popejoan_solver.jobs import pool as jobs_pool

    pool = ProcessPoolExecutor(1, mp_context=jobs_pool.pool_context())
    pool.submit(time.sleep, 30)
    time.sleep(0.5)
    manager = pool._executor_manager_thread  # type: ignore[attr-defined]
    assert manager is not None
    assert manager.is_alive()
    jobs_pool.stop_pool(pool)
    assert not manager.is_alive()
