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
"""

from __future__ import annotations

import asyncio
import ctypes
import errno
import itertools
import json
import math
import multiprocessing
import os
import re
import secrets
import signal
import socket
import sqlite3
import stat
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    Future,
    ProcessPoolExecutor,
    ThreadPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Final, Protocol

from ..model.arguments import check_time_limit
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, deal_random
from ..model.errors import CONTROL_CHARACTERS, PopeJoanError, clip
from ..model.notation import deal_to_json
from ..model.rules import get_ruleset
from ..search.api import solve, usable_cores
from .outfile import check_output_path

FORMAT: Final = "popejoan-batch"
VERSION: Final = 1

MAX_DEALS: Final = 10 ** 7
"""Most deals per ruleset and player count: ten million, checked before any work is planned."""

WORKERS_PER_CORE: Final = 4
"""``--workers`` may be at most four per core (at least 8): each worker holds its own tables."""

EXIT_TERMINATED: Final = 143
"""Exit status after SIGTERM (128 + 15, as a shell reports it), with one ``error:`` line."""

CONNECT_SECONDS: Final = 5.0
"""How long to wait for a Dask scheduler to answer before giving up."""

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
SQLITE_MAGIC: Final = b"SQLite format 3\x00"
MAX_VALUE: Final = 10 ** 9
"""Largest counter value a row may hold; anything larger is a damaged row."""


class BatchFileError(PopeJoanError):
    """The output file is not a batch file of ours, was made with other settings, is damaged or
    cannot be read or written."""


class BatchWorkerError(PopeJoanError):
    """A worker process died or failed; every row stored before it stays in the file."""


class ClusterError(PopeJoanError):
    """A ``--cluster`` address that is malformed, unreachable or whose cluster failed."""


class BatchTerminatedError(PopeJoanError):
    """SIGTERM stopped the batch: the workers are stopped, every stored row is kept."""


TERMINATED_MESSAGE: Final = ("terminated (SIGTERM): the workers are stopped and every row "
                             "stored is kept; run the same command again to resume")
_TERMINATED = threading.Event()
"""Set by the SIGTERM handler, which may have fired inside an SQLite query (see :func:`_sql`)."""


def _show(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut short: an error line stays one short line whatever was typed."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


# ----------------------------------------------------------------------------- checks

def _table_info(sql: str, tables: Sequence[str] = ("meta", "deals")) -> dict[
        str, list[tuple[str, str, int]]]:
    """Each table's (name, type, primary-key position) columns, as SQLite reports them."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(sql)
        return {t: [(r[1], r[2].upper(), r[5]) for r in db.execute(f"PRAGMA table_info({t})")]
                for t in tables}
    finally:
        db.close()


EXPECTED_TABLES: Final = _table_info(SCHEMA)


def max_workers() -> int:
    """The most ``--workers`` allowed on this machine (see ``WORKERS_PER_CORE``)."""
    return max(8, WORKERS_PER_CORE * default_workers())


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
            raise PopeJoanError(f"--players wants 3-8, 4 or 3,5,7, not {_show(text)}") from None
        if not MIN_PLAYERS <= low <= high <= MAX_PLAYERS:
            raise PopeJoanError(f"player counts must be from {MIN_PLAYERS} to {MAX_PLAYERS}, "
                                f"a range low to high: {_show(text)}")
        counts.update(range(low, high + 1))
    return sorted(counts)


def parse_cluster(address: str) -> tuple[str, int]:
    """``tcp://HOST:PORT`` (or ``HOST:PORT``) to the host and port; anything else is refused."""
    match = re.fullmatch(r"(?:tcp://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]{1,253}):([0-9]{1,5})",
                         address)
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise ClusterError(f"--cluster wants a Dask scheduler address tcp://HOST:PORT (port "
                           f"1-65535), not {_show(address)}")
    return match.group(1).strip("[]"), int(match.group(2))


def reach_cluster(address: str) -> None:
    """Fail in seconds, not after Dask's long retries, when nothing answers at ``address``, or
    something that is not a Dask scheduler (its handshake has no time limit of its own)."""
    host, port = parse_cluster(address)
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ClusterError(f"cannot reach the Dask scheduler at {_show(address)}: {reason}") \
            from None
    with ThreadPoolExecutor(1) as thread:  # a thread: the caller may be running an event loop
        probe = thread.submit(asyncio.run, _handshake(address))
        try:
            probe.result()
        except Exception as exc:
            reason = (f"no answer within {CONNECT_SECONDS:g} s" if isinstance(exc, TimeoutError)
                      else f"{type(exc).__name__}: {clip(str(exc), 120)}")
            raise ClusterError(f"{_show(address)} did not answer as a Dask scheduler "
                               f"({reason})") from None


async def _handshake(address: str) -> None:
    """Connect to a Dask scheduler and exchange Dask's handshake, within ``CONNECT_SECONDS``."""
    from distributed.comm.core import connect

    url = address if address.startswith("tcp://") else f"tcp://{address}"
    comm = await asyncio.wait_for(connect(url, timeout=CONNECT_SECONDS), CONNECT_SECONDS)
    await comm.close()


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


# ----------------------------------------------------------------------------- the file

def _wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def _has_content(path: Path) -> bool:
    """A write-ahead log or journal beside the file that may hold rows not yet in it."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _inspect(path: Path, *, writing: bool, noun: str = "batch file") -> bool:
    """Refuse what cannot be a ``noun`` before SQLite opens it (a folder, a device, a pipe,
    another kind of file, a truncated database); true when the file is new or empty."""
    try:
        info = path.stat()
    except FileNotFoundError:
        if not writing:
            raise BatchFileError(f"no such {noun}: {path}") from None
        folder = path.parent
        if not folder.exists():
            raise BatchFileError(f"cannot create {path}: folder {folder} does not exist") from None
        if not folder.is_dir():
            raise BatchFileError(f"cannot create {path}: {folder} is not a folder") from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise BatchFileError(f"cannot create {path}: folder {folder} is not writable") \
                from None
        return True
    except OSError as exc:
        raise BatchFileError(f"cannot use {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise BatchFileError(f"{path} is a folder, not a {noun}")
    if not stat.S_ISREG(info.st_mode):
        raise BatchFileError(f"{path} is not a regular file (a device, pipe or socket), "
                             f"not a {noun}")
    if info.st_size == 0:
        if writing:
            return True
        raise BatchFileError(f"{path} is empty, not a {noun}")
    if writing and not os.access(path, os.W_OK):
        raise BatchFileError(f"cannot write to {path}: it is read-only")
    try:
        with path.open("rb") as handle:
            header = handle.read(100)
    except OSError as exc:
        raise BatchFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    _check_header(path, header, info.st_size, noun)
    return False


def _check_header(path: Path, header: bytes, size: int, noun: str = "batch file") -> None:
    """SQLite's file header against the file's size: a cut-off file is called truncated."""
    if not (header.startswith(SQLITE_MAGIC) or SQLITE_MAGIC.startswith(header)):
        raise BatchFileError(f"{path} is not a popejoan {noun} (not SQLite)")
    if size < 100:
        raise BatchFileError(f"{path} is damaged: truncated to {size} bytes, shorter than "
                             f"SQLite's 100-byte header")
    raw = int.from_bytes(header[16:18], "big")
    page = 65536 if raw == 1 else raw
    if page < 512 or page & (page - 1):
        raise BatchFileError(f"{path} is damaged: its header gives a page size of {raw}")
    if _has_content(_wal(path)):
        return  # the log may hold pages the file does not have yet: SQLite checks those
    if size % page:
        raise BatchFileError(f"{path} is damaged: truncated ({size} bytes, not a whole number "
                             f"of {page}-byte pages)")
    pages = int.from_bytes(header[28:32], "big")
    if pages and header[24:28] == header[92:96] and pages * page > size:
        raise BatchFileError(f"{path} is damaged: truncated ({size} bytes; its header says "
                             f"{pages * page})")


def _database_error(path: Path, exc: sqlite3.Error, doing: str) -> PopeJoanError:
    """One readable message for an SQLite error, saying what is wrong with the file."""
    name = getattr(exc, "sqlite_errorname", "")
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or (
            not name and type(exc) is sqlite3.DatabaseError):
        return BatchFileError(f"{path} is damaged ({exc})")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return BatchFileError(f"{path} is locked by another process ({exc})")
    if name.startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")):
        return BatchFileError(f"cannot {doing} {path}: {exc} (is it, or its folder, read-only?)")
    return BatchFileError(f"cannot {doing} {path}: {exc}")


@contextmanager
def _sql(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite's errors into :class:`BatchFileError`, and an interrupted query (Ctrl-C, see
    :func:`_interruptible`) back into KeyboardInterrupt."""
    try:
        yield
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_INTERRUPT":
            # sqlite3 swallows what the signal handler raised inside its callback.
            if _TERMINATED.is_set():
                raise BatchTerminatedError(TERMINATED_MESSAGE) from None
            raise KeyboardInterrupt from None
        raise _database_error(path, exc, doing) from None


def _interruptible(db: sqlite3.Connection) -> None:
    """Let Ctrl-C stop a long query (a check of a large file) within a moment: the handler runs
    Python code, where the interrupt is raised, and SQLite then stops the query."""
    db.set_progress_handler(lambda: 0, 100_000)


@dataclass(frozen=True)
class FileKind:
    """What kind of SQLite file of ours: its format tag, its tables' columns, and its name in
    messages (the batch file here; the match file of ``analysis.match`` shares the machinery)."""

    format: str
    tables: dict[str, list[tuple[str, str, int]]]
    noun: str


BATCH_FILE: Final = FileKind(FORMAT, EXPECTED_TABLES, "batch file")


def _check_ours(db: sqlite3.Connection, path: Path,
                kind: FileKind = BATCH_FILE) -> dict[str, str]:
    """The file's settings, after checking that its tables are a ``kind`` file's and that
    SQLite finds no damage; raises :class:`BatchFileError` otherwise."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" not in tables:
        raise BatchFileError(f"{path} is an SQLite file, but not a popejoan {kind.noun} "
                             f"(no meta table)")
    for table, expected in kind.tables.items():
        if table not in tables:
            continue
        found = [(r[1], r[2].upper(), r[5]) for r in db.execute(f"PRAGMA table_info({table})")]
        if found != expected:
            names = ", ".join(c[0] for c in found)
            wanted = ", ".join(c[0] for c in expected)
            raise BatchFileError(f"{path} is not a popejoan {kind.noun}: its {table} table has "
                                 f"columns ({clip(names, 200)}), not ({wanted})")
    stored = dict(db.execute("SELECT key, value FROM meta").fetchall())
    if stored and stored.get("format") != kind.format:
        raise BatchFileError(f"{path} is not a popejoan {kind.noun} (format "
                             f"{_show(str(stored.get('format')))})")
    problems = [r[0] for r in db.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        first = str(problems[0]).replace("*** in database main ***", "")
        raise BatchFileError(f"{path} is damaged: {clip(first, 200)}")
    return {str(k): str(v) for k, v in stored.items()}


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


NO_HARD_LINKS: Final = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS,
                                   errno.EMLINK})
"""What ``os.link`` fails with on a file system that has no hard links (FAT, some network and
FUSE file systems)."""


def open_store(path: Path, schema: str, settings: dict[str, str],
               noun: str = "batch file") -> sqlite3.Connection:
    """Open the SQLite file ``path`` for writing, by the rules of every output path
    (``analysis.outfile``): a device, pipe or socket refused, a symbolic link written through.
    A new file is made whole beside it (its tables and ``settings``), then linked into place:
    a failure (a full disk) leaves no file, and of two runs racing to make it one makes it
    and the other opens it (and checks its settings as any file it resumes)."""
    fresh = _inspect(path, writing=True, noun=noun)
    target = check_output_path(path)
    if fresh:
        _create_whole(path, target, schema, settings)
    with _sql(path, "open"):
        db = sqlite3.connect(target, timeout=30)
    try:
        with _sql(path, "write to"):
            _interruptible(db)
            db.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        db.close()
        raise
    return db


def setup_script(schema: str, settings: dict[str, str]) -> str:
    """The tables and the settings in one transaction (a settings row another run wrote
    first is kept, and then compared)."""
    values = ", ".join(f"({_quote(k)}, {_quote(v)})" for k, v in settings.items())
    return f"BEGIN IMMEDIATE; {schema} INSERT OR IGNORE INTO meta VALUES {values}; COMMIT;"


def _create_whole(path: Path, target: Path, schema: str, settings: dict[str, str]) -> None:
    """Make the new file ``target`` (``path`` through any link) complete in a temporary file
    beside it, then link it into place; an empty file there is replaced."""
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.new")
    try:
        with _sql(path, "create"):
            db = sqlite3.connect(temporary)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(setup_script(schema, settings))
            finally:
                db.close()
        try:
            os.link(temporary, target)
        except FileExistsError:  # another run made it first, or an empty file is there
            if target.stat().st_size == 0:
                os.replace(temporary, target)
        except OSError as exc:
            if exc.errno not in NO_HARD_LINKS:
                raise
            if not target.exists():  # a file system without hard links: renamed instead
                os.replace(temporary, target)
    except OSError as exc:
        raise BatchFileError(f"cannot create {path}: {exc.strerror or exc}") from None
    finally:
        for leftover in (temporary, _wal(temporary), temporary.with_name(temporary.name + "-shm")):
            leftover.unlink(missing_ok=True)


class BatchStore:
    """The SQLite file: its settings, the rows done, and one transaction per new row."""

    def __init__(self, path: Path, seed: int, time_limit: float | None) -> None:
        self.path = path
        settings = {"format": FORMAT, "version": str(VERSION), "seed": str(seed),
                    "time_limit": "none" if time_limit is None else repr(time_limit)}
        self.db = open_store(path, SCHEMA, settings)
        try:
            with _sql(path, "write to"):
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
        stored = _check_ours(self.db, path) if tables else {}
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
        with _sql(self.path, "read"):
            row = self.db.execute("SELECT count(*) FROM deals WHERE rules = ? AND players = ?"
                                  " AND idx >= 0 AND idx < ?", (rules, players, deals)).fetchone()
        return int(row[0])

    def done_between(self, rules: str, players: int, low: int, high: int) -> set[int]:
        """The indices from ``low`` up to ``high`` that the file holds."""
        with _sql(self.path, "read"):
            return {int(r[0]) for r in self.db.execute(
                "SELECT idx FROM deals WHERE rules = ? AND players = ? AND idx >= ? AND idx < ?",
                (rules, players, low, high))}

    def add(self, row: dict[str, Any]) -> None:
        with _sql(self.path, "write to"), self.db:  # one row, one transaction
            self.db.execute(
                "INSERT OR IGNORE INTO deals VALUES (:rules, :players, :idx, :deal, :guaranteed,"
                " :forced_win, :best_case, :leads, :exact, :nodes, :seconds)", row)

    def close(self) -> None:
        self.db.close()


def _quote(text: str) -> str:
    """An SQL string literal (settings are written in the one-transaction set-up script)."""
    return "'" + text.replace("'", "''") + "'"


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


Progress = Callable[[int, int], None]


# ----------------------------------------------------------------------------- local workers

PR_SET_PDEATHSIG: Final = 1


def die_with_parent(parent: int, *, thread_bound: bool = True) -> None:
    """Make this worker die when the batch process (or the web server) does, even by ``kill
    -9``: a thread that watches the parent's pid and, when ``thread_bound`` (the parent's
    thread that started the worker lives as long as the parent), Linux's parent-death signal
    too."""
    if thread_bound and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="popejoan-watch-parent").start()


def _watch_parent(parent: int) -> None:
    """Kill this worker once its parent is gone (it is then adopted by another process)."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)


def _worker_init(parent: int) -> None:
    """Workers leave Ctrl-C and SIGTERM handling to the parent, which stops them (no traceback
    per worker), and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)


def _pool_context() -> Any:
    """Fork on Linux, so every worker's parent is the batch process itself (see
    the :func:`die_with_parent`); the platform's default elsewhere."""
    return multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that leave Ctrl-C and SIGTERM to this process (which
    stops them with :func:`stop_pool`) and die with it."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(),
                               initializer=_worker_init, initargs=(os.getpid(),))


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now rather than letting them finish work nobody will use (a
    batch's deals, the web server's searches at shutdown)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + 2
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1)
    # The pool's manager thread closes its wake-up pipe on its way out; the interpreter's exit
    # wakes every such thread without the pool's lock (CPython 3.11), so a pipe closed at that
    # moment printed "OSError: [Errno 9] Bad file descriptor" under the one error line.
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(2)


class Sink(Protocol):
    """Where a worker's results go: each stored as it arrives (see :class:`BatchStore`)."""

    def add(self, row: Any) -> None: ...


def _result(future: Future[Any], task: Any) -> Any:
    """A worker's row; an unexpected failure in it becomes one error naming the task."""
    try:
        return future.result()
    except (BrokenProcessPool, PopeJoanError):
        raise
    except Exception as exc:
        raise BatchWorkerError(f"{task.describe()} failed: {type(exc).__name__}: {exc}") \
            from None


def run_local(tasks: Iterable[Any], total: int, workers: int, store: Sink,
              progress: Progress | None = None,
              work: Callable[[Any], Any] = solve_task) -> int:
    """Run ``work`` (default: solve a deal) on each task on a pool of ``workers`` processes
    (one worker is a pool of one, so that one and two workers compare like with like); every
    result is stored as it arrives. ``total`` is how many tasks there are, for the progress
    bar; a task has ``describe()`` for an error line."""
    finished = 0
    pool = process_pool(workers)
    pending: dict[Future[Any], Any] = {}
    queue = iter(tasks)

    def submit(count: int) -> None:
        for task in itertools.islice(queue, count):
            pending[pool.submit(work, task)] = task

    try:
        submit(2 * workers)
        while pending:
            complete, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                store.add(_result(future, pending.pop(future)))
                finished += 1
                if progress:
                    progress(finished, total)
                submit(1)
    except BrokenProcessPool:
        # A worker was killed (kill -9, out of memory): keep what the others finished.
        try:
            for future, task in pending.items():
                if future.done() and not future.cancelled() and future.exception() is None:
                    store.add(_result(future, task))
        finally:
            stop_pool(pool)
        raise BatchWorkerError("a batch worker process died (killed, or out of memory?): every "
                               "row stored is kept; run the same command again to resume") \
            from None
    except BaseException:
        # Ctrl-C, SIGTERM or an error: every stored row stays.
        stop_pool(pool)
        raise
    pool.shutdown()
    return finished


@contextmanager
def _sigterm_stops_the_batch() -> Iterator[None]:
    """While a batch runs, SIGTERM raises :class:`BatchTerminatedError` in the main thread, so the
    workers are stopped and the command exits with one line; a second SIGTERM kills at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _TERMINATED.set()
        raise BatchTerminatedError(TERMINATED_MESSAGE)

    _TERMINATED.clear()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# ----------------------------------------------------------------------------- Dask

def solve_tasks(tasks: list[Task]) -> list[dict[str, Any]]:
    """Solve a chunk of tasks (one Dask task: fewer, larger tasks cost less to schedule)."""
    return [solve_task(task) for task in tasks]


def _chunks(tasks: Iterable[Task], size: int) -> Iterator[list[Task]]:
    queue = iter(tasks)
    while chunk := list(itertools.islice(queue, size)):
        yield chunk


def run_dask(tasks: Iterable[Any], total: int, address: str, store: Sink,
             progress: Progress | None = None,
             work: Callable[[list[Any]], list[Any]] = solve_tasks) -> int:
    """Send the tasks to a Dask distributed scheduler; a lost worker's tasks are retried.

    Tasks go in chunks of up to 16 deals, small enough that every worker gets at least about
    sixteen chunks, and only a few chunks per worker thread are sent ahead, so neither side
    holds the whole study; every row of a finished chunk is stored at once, each in its own
    transaction. Any failure of the cluster is one :class:`ClusterError`.
    """
    from distributed import Client, as_completed

    finished = 0
    try:
        with Client(address, timeout=f"{CONNECT_SECONDS}s") as client:
            threads = max(1, sum(client.nthreads().values()))
            size = max(1, min(16, total // (16 * threads)))
            chunks = _chunks(tasks, size)
            running = as_completed(with_results=True)
            for chunk in itertools.islice(chunks, 4 * threads):
                running.add(client.submit(work, chunk, pure=False, retries=3))
            for future, rows in running:
                for row in rows:
                    store.add(row)
                finished += len(rows)
                future.release()
                if progress:
                    progress(finished, total)
                for chunk in itertools.islice(chunks, 1):
                    running.add(client.submit(work, chunk, pure=False, retries=3))
    except PopeJoanError:
        raise
    except Exception as exc:  # distributed's connection, time-out and lost-worker errors
        raise ClusterError(f"the Dask cluster at {_show(address)} failed: "
                           f"{type(exc).__name__}: {exc}") from None
    return finished


# ----------------------------------------------------------------------------- a batch

def default_workers() -> int:
    """One worker per usable core."""
    return usable_cores()


@dataclass(frozen=True)
class BatchReport:
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
        with _sigterm_stops_the_batch():
            if remaining == 0:
                solved = 0
            elif cluster is not None:
                solved = run_dask(tasks, remaining, cluster, store, progress)
            else:
                count = min(workers or default_workers(), remaining)
                solved = run_local(tasks, remaining, count, store, progress)
        return BatchReport(planned, already, solved, time.monotonic() - started)
    finally:
        store.close()


# ----------------------------------------------------------------------------- reading

def _connect_read(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open a batch file read-only, creating nothing beside it; true when it was opened as
    immutable, which the caller must confirm after reading (see :func:`read_rows`).

    A file with no write-ahead log (or journal) with content is whole: SQLite may read it as
    immutable, which needs no ``-shm`` file, so a read-only folder works. With a log, only a
    read-only connection sees its rows; that needs the ``-shm`` file to exist or be creatable.
    """
    uri = "file:" + urllib.parse.quote(str(path.absolute())) + "?mode=ro"
    logged = _has_content(_wal(path)) or _has_content(path.with_name(path.name + "-journal"))
    try:
        db = sqlite3.connect(uri + ("" if logged else "&immutable=1"), uri=True)
    except sqlite3.Error as exc:
        raise _database_error(path, exc, "open") from None
    _interruptible(db)
    if logged:
        try:
            db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError as exc:
            db.close()
            if getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_CANTOPEN",
                                                                "SQLITE_READONLY")):
                raise BatchFileError(
                    f"cannot read {path}: its write-ahead log {_wal(path).name} holds rows not "
                    f"yet in the file, and SQLite cannot open its -shm file beside it in a "
                    f"read-only folder ({exc}); copy the files to a writable folder") from None
            raise _database_error(path, exc, "read") from None
        except sqlite3.Error as exc:
            db.close()
            raise _database_error(path, exc, "read") from None
    return db, not logged


def _fingerprint(path: Path) -> tuple[int, int, int]:
    info = path.stat()
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _row_problem(data: dict[str, Any]) -> str | None:
    """What is wrong with a decoded row, or None: a damaged row is refused, never counted."""
    players = data["players"]
    if not isinstance(data["rules"], str) or CONTROL_CHARACTERS.search(data["rules"]):
        return "its ruleset is not text without control characters"
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        return f"its player count is {_show(str(players))}"
    if type(data["idx"]) is not int or data["idx"] < 0:
        return f"its deal index is {_show(str(data['idx']))}"
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
        return str(value) if type(value) is int else _show(str(value), 20)

    where = (f"{path}: the row of deal {label(data['idx'])} of {_show(str(data['rules']), 40)}, "
             f"{label(data['players'])} players")
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

    The file is opened read-only and creates nothing beside it (see :func:`_connect_read`);
    rows are streamed, not loaded at once. A file that is not a batch file, is damaged or
    changes while it is read is one :class:`BatchFileError`.
    """
    _inspect(path, writing=False)
    before = _fingerprint(path)
    db, immutable = _connect_read(path)
    try:
        with _sql(path, "read"):
            meta = _check_ours(db, path)
            if not meta:
                raise BatchFileError(f"{path} is not a popejoan batch file (no settings)")
            if meta.get("version") != str(VERSION):
                raise BatchFileError(f"{path} is a popejoan batch file of version "
                                     f"{_show(str(meta.get('version')))}, not {VERSION}")
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
            if "deals" not in tables:
                raise BatchFileError(f"{path} is damaged: it has settings but no deals table")
            cursor = db.execute(f"SELECT {', '.join(COLUMNS)} FROM deals "
                                f"ORDER BY rules, players, idx")
            for raw in cursor:
                yield _decode(path, raw)
    finally:
        db.close()
    if immutable and _fingerprint(path) != before:
        raise BatchFileError(f"{path} changed while it was being read (a batch writing to it?): "
                             f"run the command again")


class TtyProgress:
    """A progress bar with rate and ETA on standard error (tqdm), counting ``unit``s: called
    with (done, total) as the work goes, closed when done reaches total or by :meth:`close`
    (so that nothing is written after it on its line). Safe to call from another thread."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self._bar: Any = None
        self._lock = threading.Lock()
        try:
            size = os.get_terminal_size(sys.stderr.fileno())
        except OSError:
            size = os.terminal_size((0, 0))
        # A terminal that reports no size (a bare pseudo-terminal) would get no bar at all.
        self._columns = size.columns or 80
        self._rows = size.lines or 24

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        with self._lock:
            if self._bar is None:
                self._bar = tqdm(total=total, unit=self.unit, file=sys.stderr, smoothing=0.1,
                                 ncols=self._columns, nrows=self._rows)
            self._bar.n = done
            self._bar.refresh()
            if done == total:
                self._bar.close()

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (once the bar has begun)."""
        with self._lock:
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        """End the bar's line where the work stopped (a time limit, an error, Ctrl-C)."""
        with self._lock:
            if self._bar is not None:
                self._bar.close()


def tty_progress(unit: str = "deal") -> TtyProgress | None:
    """A progress bar counting ``unit``s on a terminal (:class:`TtyProgress`), nothing
    otherwise."""
    return TtyProgress(unit) if sys.stderr.isatty() else None
