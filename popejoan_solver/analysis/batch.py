"""Batch solving of seeded deals into SQLite: resumable, loss-free, local or on Dask.

Deal ``i`` of ``(ruleset, players)`` is ``deal_random(players, seed, ruleset, index=i)``, the
same deal ``popejoan deal --players P --seed S --index i --rules R`` prints. Each result is one
row written in its own transaction (SQLite's atomic commit), so a run stopped by Ctrl-C,
``kill -9`` or a lost worker keeps every finished row and no half-written one; run again, it
solves only what is missing. The seed and the per-deal time limit are stored with the file:
results made with other settings are refused, not mixed.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, deal_random
from ..model.errors import PopeJoanError
from ..model.notation import deal_to_json
from ..model.rules import get_ruleset
from ..search import solve

FORMAT: Final = "popejoan-batch"
VERSION: Final = 1

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS deals (
    rules TEXT NOT NULL,
    players INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    deal TEXT NOT NULL,
    guaranteed TEXT NOT NULL,
    forced_win TEXT NOT NULL,
    best_case TEXT NOT NULL,
    leads TEXT NOT NULL,
    exact INTEGER NOT NULL,
    nodes INTEGER NOT NULL,
    seconds REAL NOT NULL,
    PRIMARY KEY (rules, players, idx)
);
"""


class BatchFileError(PopeJoanError):
    """The output file is not a batch file of ours, or was made with other settings."""


def _require_sqlite(path: Path) -> None:
    """Refuse a file that is not SQLite before sqlite3 would try to open it as a database."""
    with path.open("rb") as handle:
        if handle.read(16) != b"SQLite format 3\x00":
            raise BatchFileError(f"{path} is not a popejoan batch file (not SQLite)")


@dataclass(frozen=True)
class Task:
    """One deal to solve."""

    rules: str
    players: int
    index: int
    seed: int
    time_limit: float | None


def parse_players(text: str) -> list[int]:
    """``3-8``, ``4`` or ``3,5,7`` to a list of player counts."""
    counts: list[int] = []
    try:
        for part in text.split(","):
            low, sep, high = part.strip().partition("-")
            counts += list(range(int(low), int(high) + 1)) if sep else [int(low)]
    except ValueError:
        raise PopeJoanError(f"--players wants 3-8, 4 or 3,5,7, not {text!r}") from None
    bad = [n for n in counts if not MIN_PLAYERS <= n <= MAX_PLAYERS]
    if bad or not counts:
        raise PopeJoanError(f"player counts must be from {MIN_PLAYERS} to {MAX_PLAYERS}: {text!r}")
    return sorted(set(counts))


def solve_task(task: Task) -> dict[str, Any]:
    """Solve one deal: every seat's values and seat 1's leads (runs in a worker)."""
    rules = get_ruleset(task.rules)
    deal = deal_random(task.players, task.seed, rules, task.index)
    started = time.perf_counter()
    solution = solve(deal, time_limit=task.time_limit, with_line=False, threads=1)
    return {
        "rules": task.rules,
        "players": task.players,
        "idx": task.index,
        "deal": json.dumps(deal_to_json(deal), ensure_ascii=False),
        "guaranteed": json.dumps([s.guaranteed.to_json() for s in solution.seats]),
        "forced_win": json.dumps([s.forced_win.to_json(boolean=True) for s in solution.seats]),
        "best_case": json.dumps([s.best_case.to_json() for s in solution.seats]),
        "leads": json.dumps({lead.to_json()["card"]: lead.guaranteed.to_json()
                             for lead in solution.leads}),
        "exact": int(solution.exact),
        "nodes": solution.stats.nodes,
        "seconds": time.perf_counter() - started,
    }


class BatchStore:
    """The SQLite file: its settings, the rows done, and one transaction per new row."""

    def __init__(self, path: Path, seed: int, time_limit: float | None) -> None:
        self.path = path
        if path.exists() and path.is_dir():
            raise BatchFileError(f"{path} is a directory")
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            _require_sqlite(path)
        self.db = sqlite3.connect(path, timeout=30)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            settings = {"format": FORMAT, "version": str(VERSION), "seed": str(seed),
                        "time_limit": "none" if time_limit is None else repr(time_limit)}
            tables = {r[0] for r in self.db.execute(
                "SELECT name FROM sqlite_master WHERE type='table'")}
            if tables and "meta" not in tables:
                raise BatchFileError(f"{path} is an SQLite file, but not a popejoan batch file")
            with self.db:
                self.db.executescript(SCHEMA)
                stored = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
                if not stored:
                    self.db.executemany("INSERT INTO meta VALUES (?, ?)", settings.items())
                    stored = settings
            if stored.get("format") != FORMAT:
                raise BatchFileError(f"{path} is not a popejoan batch file")
            for key in ("version", "seed", "time_limit"):
                if stored.get(key) != settings[key]:
                    raise BatchFileError(
                        f"{path} was made with {key} {stored.get(key)}, not {settings[key]}: "
                        f"use another --out file, or the same settings to resume")
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise BatchFileError(f"{path} is not a popejoan batch file ({exc})") from None

    def done(self) -> set[tuple[str, int, int]]:
        return {(r, p, i) for r, p, i in self.db.execute("SELECT rules, players, idx FROM deals")}

    def add(self, row: dict[str, Any]) -> None:
        with self.db:  # one row, one transaction
            self.db.execute(
                "INSERT OR IGNORE INTO deals VALUES (:rules, :players, :idx, :deal, :guaranteed,"
                " :forced_win, :best_case, :leads, :exact, :nodes, :seconds)", row)

    def close(self) -> None:
        self.db.close()


def plan(rules: Sequence[str], players: Sequence[int], deals: int, seed: int,
         time_limit: float | None, done: set[tuple[str, int, int]]) -> list[Task]:
    """Every task not yet in the file, in a stable order."""
    return [Task(r, p, i, seed, time_limit) for r in rules for p in players for i in range(deals)
            if (r, p, i) not in done]


Progress = Callable[[int, int], None]


def run_local(tasks: Sequence[Task], workers: int, store: BatchStore,
              progress: Progress | None = None) -> int:
    """Solve on a pool of ``workers`` processes (one worker is a pool of one, so that one and
    two workers compare like with like); every result is stored as it arrives."""
    finished = 0
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint)
    pending: set[Future[dict[str, Any]]] = set()
    queue = iter(tasks)
    try:
        for task in _take(queue, 2 * workers):
            pending.add(pool.submit(solve_task, task))
        while pending:
            complete, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                store.add(future.result())
                finished += 1
                if progress:
                    progress(finished, len(tasks))
                for task in _take(queue, 1):
                    pending.add(pool.submit(solve_task, task))
    except BaseException:
        # Ctrl-C or an error: every stored row stays; stop the workers now rather than
        # letting them finish deals nobody will store.
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        raise
    pool.shutdown()
    return finished


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (no traceback per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _take(iterator: Iterator[Task], count: int) -> list[Task]:
    out = []
    for task in iterator:
        out.append(task)
        if len(out) == count:
            break
    return out


def solve_tasks(tasks: list[Task]) -> list[dict[str, Any]]:
    """Solve a chunk of tasks (one Dask task: fewer, larger tasks cost less to schedule)."""
    return [solve_task(task) for task in tasks]


def run_dask(tasks: Sequence[Task], address: str, store: BatchStore,
             progress: Progress | None = None) -> int:
    """Send the tasks to a Dask distributed scheduler; a lost worker's tasks are retried.

    Tasks go in chunks of up to 16 deals, small enough that every worker gets at least about
    sixteen chunks; every row of a finished chunk is stored at once, each in its own
    transaction.
    """
    from distributed import Client, as_completed

    finished = 0
    with Client(address, timeout="30s") as client:
        threads = max(1, sum(client.nthreads().values()))
        size = max(1, min(16, len(tasks) // (16 * threads)))
        chunks = [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]
        futures = client.map(solve_tasks, chunks, pure=False, retries=3)
        for future, rows in as_completed(futures, with_results=True):
            for row in rows:
                store.add(row)
            finished += len(rows)
            future.release()
            if progress:
                progress(finished, len(tasks))
    return finished


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)


@dataclass(frozen=True)
class BatchReport:
    planned: int
    already: int
    solved: int
    seconds: float


def run_batch(out: Path, rules: Sequence[str], players: Sequence[int], deals: int, seed: int,
              *, workers: int | None = None, cluster: str | None = None,
              time_limit: float | None = None, progress: Progress | None = None) -> BatchReport:
    """Solve every missing deal of the study into ``out``."""
    for name in rules:
        get_ruleset(name)  # an unknown ruleset is an error before any work
    if deals < 1:
        raise PopeJoanError("--deals must be at least 1")
    store = BatchStore(out, seed, time_limit)
    try:
        done = store.done()
        tasks = plan(rules, players, deals, seed, time_limit, done)
        already = len(rules) * len(players) * deals - len(tasks)
        started = time.monotonic()
        if cluster:
            solved = run_dask(tasks, cluster, store, progress)
        else:
            solved = run_local(tasks, workers or default_workers(), store, progress)
        return BatchReport(len(tasks) + already, already, solved, time.monotonic() - started)
    finally:
        store.close()


def read_rows(path: Path) -> Iterable[dict[str, Any]]:
    """Every row of a batch file, values decoded from JSON."""
    if not path.is_file():
        raise BatchFileError(f"no such batch file: {path}")
    _require_sqlite(path)
    db = sqlite3.connect(path)
    try:
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError:
            raise BatchFileError(f"{path} is not a popejoan batch file") from None
        if meta.get("format") != FORMAT:
            raise BatchFileError(f"{path} is not a popejoan batch file")
        db.row_factory = sqlite3.Row
        rows = db.execute("SELECT * FROM deals ORDER BY rules, players, idx").fetchall()
    finally:
        db.close()
    for row in rows:
        data = dict(row)
        for key in ("deal", "guaranteed", "forced_win", "best_case", "leads"):
            data[key] = json.loads(data[key])
        yield data


def tty_progress() -> Progress | None:
    """A progress bar with rate and ETA on a terminal (tqdm), nothing otherwise."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    bar: list[Any] = []

    try:
        size = os.get_terminal_size(sys.stderr.fileno())
    except OSError:
        size = os.terminal_size((0, 0))
    # A terminal that reports no size (a bare pseudo-terminal) would get no bar at all.
    columns = size.columns or 80
    rows = size.lines or 24

    def update(done: int, total: int) -> None:
        if not bar:
            bar.append(tqdm(total=total, unit="deal", file=sys.stderr, smoothing=0.1,
                            ncols=columns, nrows=rows))
        bar[0].n = done
        bar[0].refresh()
        if done == total:
            bar[0].close()
    return update
