"""Batch solving of seeded deals into SQLite: resumable, loss-free, local or on Dask.

Deal ``i`` of ``(ruleset, players)`` is ``deal_random(players, seed, ruleset, index=i)``, the
same deal ``popejoan deal --players P --seed S --index i --rules R`` prints. Each result is one
row written in its own transaction (SQLite's atomic commit), so a run stopped by Ctrl-C,
``kill -9`` or a lost worker keeps every finished row and no half-written one; run again, it
solves only what is missing. The seed and the per-deal time limit are stored with the file:
results made with other settings are refused, not mixed.

Hostile input and faults (issue 10) are one :class:`~popejoan_solver.model.errors.PopeJoanError`:
every argument is checked before any work (at most ``MAX_DEALS`` deals per ruleset and player
count, ``max_workers()`` workers), tasks are made as they are needed, a file that is not ours
or is damaged is refused saying why, a worker that dies ends the run with the rows kept, and
workers die with the batch process however it ends (SIGTERM: one line, ``EXIT_TERMINATED``).
Reading (``stats``) opens the file read-only and creates nothing beside it.

The machinery is shared with matches: the worker pool (:mod:`.pool`), the SQLite store
(:mod:`.store`), a Dask cluster (:mod:`.cluster`) and SIGTERM (:mod:`.stopping`). This module
is the batch's own part (its tasks, its rows, the plan, the run and the reading) and names the
errors and helpers a caller of :func:`run_batch` needs.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..model.arguments import check_time_limit
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, deal_random
from ..model.errors import CONTROL_CHARACTERS, PopeJoanError, clip, quote_short
from ..model.notation import deal_to_json
from ..model.rules import get_ruleset
from ..search.api import solve
from .cluster import ClusterError, parse_cluster, reach_cluster, run_dask
from .pool import (
    WORKERS_PER_CORE,
    BatchWorkerError,
    Progress,
    default_workers,
    max_workers,
    run_local,
    tty_progress,
)
from .stopping import EXIT_TERMINATED, BatchTerminatedError, sigterm_stops_the_run
from .store import (
    BatchFileError,
    FileKind,
    check_kind,
    connect_read_only,
    fingerprint,
    inspect_path,
    open_store,
    setup_script,
    sql_errors,
    table_info,
)

__all__ = [
    "EXIT_TERMINATED", "MAX_DEALS", "BatchFileError", "BatchReport", "BatchStore",
    "BatchTerminatedError", "BatchWorkerError", "ClusterError", "Progress", "Task",
    "check_request", "parse_players", "plan", "read_rows", "run_batch", "solve_task",
    "solve_tasks", "tty_progress",
]

FORMAT: Final = "popejoan-batch"
VERSION: Final = 1

MAX_DEALS: Final = 10 ** 7
"""Most deals per ruleset and player count: ten million, checked before any work is planned."""

BLOCK: Final = 4096
"""Deal indices looked up in the file at a time while planning (memory stays flat)."""

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

COLUMNS: Final = ("rules", "players", "idx", "deal", "guaranteed", "forced_win", "best_case",
                  "leads", "exact", "nodes", "seconds")
JSON_COLUMNS: Final = ("deal", "guaranteed", "forced_win", "best_case", "leads")
MAX_VALUE: Final = 10 ** 9
"""Largest counter value a row may hold; anything larger is a damaged row."""

EXPECTED_TABLES: Final = table_info(SCHEMA, ("meta", "deals"))
BATCH_FILE: Final = FileKind(FORMAT, EXPECTED_TABLES, "batch file")


def parse_players(text: str) -> list[int]:
    """``3-8``, ``4`` or ``3,5,7`` to a list of player counts.

    Each range is checked against 3-8 before it is expanded, so ``3-3000000000`` is refused at
    once instead of filling memory.
    """
    counts: set[int] = set()
    for part in text.split(","):
        low_text, sep, high_text = part.strip().partition("-")
        try:
            low = int(low_text)
            high = int(high_text) if sep else low
        except ValueError:
            raise PopeJoanError(f"--players wants 3-8, 4 or 3,5,7, not "
                                f"{quote_short(text)}") from None
        if not MIN_PLAYERS <= low <= high <= MAX_PLAYERS:
            raise PopeJoanError(f"player counts must be from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                                f"a range low to high: {quote_short(text)}")
        counts.update(range(low, high + 1))
    return sorted(counts)


def check_request(rules: Sequence[str], players: Sequence[int], deals: int,
                  workers: int | None, time_limit: float | None,
                  cluster: str | None) -> tuple[list[str], list[int]]:
    """Every argument of a batch checked before any file is touched or task planned; returns
    the rulesets and player counts without repeats."""
    names = list(dict.fromkeys(rules))
    if not names:
        raise PopeJoanError("no ruleset to solve: --rules names none")
    for name in names:
        get_ruleset(name)  # an unknown ruleset is an error before any work
    counts = sorted(set(players))
    if not counts:
        raise PopeJoanError("no player count to solve: --players names none")
    for count in counts:
        if not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise PopeJoanError(f"player counts must be from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                                f"not {count}")
    if not 1 <= deals <= MAX_DEALS:
        raise PopeJoanError(f"--deals must be from 1 to {MAX_DEALS} (per ruleset and player "
                            f"count), not {deals}")
    if workers is not None and not 1 <= workers <= max_workers():
        raise PopeJoanError(f"--workers must be from 1 to {max_workers()} on this machine "
                            f"({WORKERS_PER_CORE} per core), not {workers}")
    check_time_limit(time_limit)
    if cluster is not None:
        parse_cluster(cluster)
    return names, counts


@dataclass(frozen=True)
class Task:
    """One deal to solve."""

    rules: str
    players: int
    index: int
    seed: int
    time_limit: float | None

    def describe(self) -> str:
        return f"solving deal {self.index} of {self.rules}, {self.players} players"


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


def solve_tasks(tasks: list[Task]) -> list[dict[str, Any]]:
    """Solve a chunk of tasks (one Dask task: fewer, larger tasks cost less to schedule)."""
    return [solve_task(task) for task in tasks]


class BatchStore:
    """The SQLite file: its settings, the rows done, and one transaction per new row."""

    def __init__(self, path: Path, seed: int, time_limit: float | None) -> None:
        self.path = path
        settings = {"format": FORMAT, "version": str(VERSION), "seed": str(seed),
                    "time_limit": "none" if time_limit is None else repr(time_limit)}
        self.db = open_store(path, SCHEMA, settings)
        try:
            with sql_errors(path, "write to"):
                self._prepare(settings)
        except BaseException:
            self.db.close()
            raise

    def _prepare(self, settings: dict[str, str]) -> None:
        """Check a file we resume (ours, undamaged, same settings); an SQLite file with no
        tables yet is set up in one transaction, so a kill leaves either nothing or a whole,
        empty batch file."""
        path = self.path
        tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        stored = check_kind(self.db, path, BATCH_FILE) if tables else {}
        if stored and "deals" not in tables:
            raise BatchFileError(f"{path} is damaged: it has settings but no deals table")
        if not stored and "deals" in tables and self.db.execute(
                "SELECT 1 FROM deals LIMIT 1").fetchone():
            raise BatchFileError(f"{path} is not a popejoan batch file (rows but no settings)")
        self.db.execute("PRAGMA journal_mode=WAL")
        if not stored:
            self.db.executescript(setup_script(SCHEMA, settings))
            stored = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        for key in ("version", "seed", "time_limit"):
            if stored.get(key) != settings[key]:
                raise BatchFileError(
                    f"{path} was made with {key} {clip(str(stored.get(key)), 60)}, not "
                    f"{settings[key]}: use another --out file, or the same settings to resume")

    def count_done(self, rules: str, players: int, deals: int) -> int:
        """How many of the first ``deals`` deals of ``(rules, players)`` the file holds."""
        with sql_errors(self.path, "read"):
            row = self.db.execute("SELECT count(*) FROM deals WHERE rules = ? AND players = ?"
                                  " AND idx >= 0 AND idx < ?", (rules, players, deals)).fetchone()
        return int(row[0])

    def done_between(self, rules: str, players: int, low: int, high: int) -> set[int]:
        """The indices from ``low`` up to ``high`` that the file holds."""
        with sql_errors(self.path, "read"):
            return {int(r[0]) for r in self.db.execute(
                "SELECT idx FROM deals WHERE rules = ? AND players = ? AND idx >= ? AND idx < ?",
                (rules, players, low, high))}

    def add(self, row: dict[str, Any]) -> None:
        with sql_errors(self.path, "write to"), self.db:  # one row, one transaction
            self.db.execute(
                "INSERT OR IGNORE INTO deals VALUES (:rules, :players, :idx, :deal, :guaranteed,"
                " :forced_win, :best_case, :leads, :exact, :nodes, :seconds)", row)

    def close(self) -> None:
        self.db.close()


def plan(store: BatchStore, rules: Sequence[str], players: Sequence[int], deals: int, seed: int,
         time_limit: float | None) -> Iterator[Task]:
    """Every task not yet in the file, in a stable order, made as it is needed: the file is
    asked about ``BLOCK`` indices at a time, so memory stays flat however many deals."""
    for name in rules:
        for count in players:
            for low in range(0, deals, BLOCK):
                high = min(deals, low + BLOCK)
                done = store.done_between(name, count, low, high)
                for index in range(low, high):
                    if index not in done:
                        yield Task(name, count, index, seed, time_limit)


@dataclass(frozen=True)
class BatchReport:
    """What a batch did: deals planned, already in the file, solved now, and the time taken."""

    planned: int
    already: int
    solved: int
    seconds: float


def run_batch(out: Path, rules: Sequence[str], players: Sequence[int], deals: int, seed: int,
              *, workers: int | None = None, cluster: str | None = None,
              time_limit: float | None = None, progress: Progress | None = None) -> BatchReport:
    """Solve every missing deal of the study into ``out``.

    Every argument is checked first (see :func:`check_request`), the cluster is reached before
    the file is created, and the tasks are made as they are needed; the counts come from SQL.
    """
    rules, players = check_request(rules, players, deals, workers, time_limit, cluster)
    if cluster is not None:
        reach_cluster(cluster)
    store = BatchStore(out, seed, time_limit)
    try:
        planned = len(rules) * len(players) * deals
        already = sum(store.count_done(r, p, deals) for r in rules for p in players)
        remaining = planned - already
        tasks = plan(store, rules, players, deals, seed, time_limit)
        started = time.monotonic()
        with sigterm_stops_the_run():
            if remaining == 0:
                solved = 0
            elif cluster is not None:
                solved = run_dask(tasks, remaining, cluster, store, progress, solve_tasks)
            else:
                count = min(workers or default_workers(), remaining)
                solved = run_local(tasks, remaining, count, store, progress, solve_task)
        return BatchReport(planned, already, solved, time.monotonic() - started)
    finally:
        store.close()


def _row_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a decoded row, or None: a damaged row is refused, never counted."""
    players = data["players"]
    if not isinstance(data["rules"], str) or CONTROL_CHARACTERS.search(data["rules"]):
        return "its ruleset is not text without control characters"
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"its player count is {quote_short(str(players))}"
    if type(data["idx"]) is not int or data["idx"] < 0:
        return f"its deal index is {quote_short(str(data['idx']))}"
    if data["exact"] not in (0, 1) or type(data["exact"]) is not int:
        return "its exact flag is neither 0 nor 1"
    if type(data["nodes"]) is not int or data["nodes"] < 0:
        return "its node count is not a whole number"
    seconds = data["seconds"]
    if type(seconds) not in (int, float) or not math.isfinite(seconds) or seconds < 0:
        return "its time is not a number of seconds"
    for key in ("guaranteed", "forced_win", "best_case"):
        if not isinstance(data[key], list) or len(data[key]) != players:
            return f"{key} is not a list of {players} values"
    if not isinstance(data["leads"], dict):
        return "leads is not a table of cards"
    if data["exact"]:
        if any(type(v) is not int or abs(v) > MAX_VALUE for v in data["guaranteed"]):
            return "an exact row's guaranteed values are not whole numbers"
        if any(type(v) is not bool for v in data["forced_win"]):
            return "an exact row's forced wins are not true or false"
    return None


def _decode(path: Path, raw: Sequence[Any]) -> dict[str, Any]:
    """One row as a dict with its JSON columns decoded, checked (see :func:`_row_problem`)."""
    data = dict(zip(COLUMNS, raw, strict=True))

    def label(value: Any) -> str:
        return str(value) if type(value) is int else quote_short(str(value), 20)

    where = (f"{path}: the row of deal {label(data['idx'])} of "
             f"{quote_short(str(data['rules']), 40)}, {label(data['players'])} players")
    for key in JSON_COLUMNS:
        try:
            data[key] = json.loads(data[key])
        except (TypeError, ValueError, RecursionError) as exc:
            raise BatchFileError(f"{where} is damaged ({key}: {clip(str(exc), 80)})") from None
    problem = _row_problem(data)
    if problem is not None:
        raise BatchFileError(f"{where} is damaged: {problem}")
    return data


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Every row of a batch file, in order, values decoded from JSON and checked.

    The file is opened read-only and creates nothing beside it (see
    :func:`.store.connect_read_only`); rows are streamed, not loaded at once. A file that is
    not a batch file, is damaged or changes while it is read is one :class:`BatchFileError`.
    """
    inspect_path(path, writing=False)
    before = fingerprint(path)
    db, immutable = connect_read_only(path)
    try:
        with sql_errors(path, "read"):
            meta = check_kind(db, path, BATCH_FILE)
            if not meta:
                raise BatchFileError(f"{path} is not a popejoan batch file (no settings)")
            if meta.get("version") != str(VERSION):
                raise BatchFileError(f"{path} is a popejoan batch file of version "
                                     f"{quote_short(str(meta.get('version')))}, not {VERSION}")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if "deals" not in tables:
                raise BatchFileError(f"{path} is damaged: it has settings but no deals table")
            cursor = db.execute(f"SELECT {', '.join(COLUMNS)} FROM deals "
                                f"ORDER BY rules, players, idx")
            for raw in cursor:
                yield _decode(path, raw)
    finally:
        db.close()
    if immutable and fingerprint(path) != before:
        raise BatchFileError(f"{path} changed while it was being read (a batch writing to it?): "
                             f"run the command again")
