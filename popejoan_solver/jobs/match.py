"""Duplicate matches between bots, stored like a batch: SQLite, resumable, local or on Dask.

**The design.** Bots ``b_0 .. b_{B-1}`` and ``n`` players. Each session of ``K`` deals (``K``
= 1: a single deal) is played once per *rotation* ``r = 0 .. B-1``: player ``p`` (the places
round the table) is bot ``b_{(p + r) mod B}``. Deal ``k`` of session ``j`` is the seeded deal
``deal_random(n, seed, rules, j*K + k)``; it is dealt by player ``(n - 1 + k) mod n``, so seat
``s`` (1 = eldest) is player ``(k + s) mod n``, and its board is the last deal's board
re-dressed (``docs/records.md``, sessions). So in every deal each bot holds every seat's
cards exactly once over the ``B`` rotations, whatever ``B`` and ``n`` (with ``B < n`` a bot
also holds other seats beside itself in a rotation; with ``B > n`` a rotation seats only
``n`` of the bots): the luck of the cards cancels between bots within the session.

**Storage.** The file shares the batch file's machinery (:mod:`.store`, :mod:`.pool`,
:mod:`.cluster`): one row per
played deal, each in its own transaction; a run stopped any way (Ctrl-C, ``kill -9``) keeps
every stored row and the same command plays only the sessions not finished (a session's deals
are played again from its first, deterministically, and the rows already there are kept).
Settings (seed, rules, players, bots, session length) are stored and a resume with others is
refused. Every row keeps its deal's record, so every session can be exported as a record that
``popejoan check`` referees (:func:`session_records`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from ..bots.driver import PlayedDeal, play_session, session_record
from ..bots.registry import make_bot
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS
from ..model.errors import CONTROL_CHARACTERS, PopeJoanError
from ..model.record import Record, record_from_json, record_to_json
from ..model.rules import get_ruleset
from .cluster import parse_cluster, reach_cluster, run_dask
from .pool import Progress, default_workers, max_workers, run_local
from .stopping import sigterm_stops_the_run
from .store import (
    BatchFileError,
    FileKind,
    check_kind,
    connect_read_only,
    inspect_path,
    open_store,
    setup_script,
    sql_errors,
    table_info,
)

FORMAT: Final = "popejoan-match"
VERSION: Final = 1
MAX_DEALS: Final = 1_000_000
MAX_SESSION: Final = 100

SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS plays (
    session INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    deal INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    seats TEXT NOT NULL,
    vals TEXT NOT NULL,
    record TEXT NOT NULL,
    decisions TEXT NOT NULL,
    PRIMARY KEY (session, rotation, deal)
);
"""
COLUMNS: Final = ("session", "rotation", "deal", "idx", "seats", "vals", "record", "decisions")


KIND: Final = FileKind(FORMAT, table_info(SCHEMA, ("meta", "plays")), "match file")
"""The match file: its format tag and its tables as SQLite reports them."""


@dataclass(frozen=True)
class MatchSettings:
    """What a match file is made with; a resume must give the same."""

    rules: str
    players: int
    bots: tuple[str, ...]
    seed: int
    session: int

    def to_meta(self) -> dict[str, str]:
        return {"format": FORMAT, "version": str(VERSION), "rules": self.rules,
                "players": str(self.players), "bots": json.dumps(list(self.bots)),
                "seed": str(self.seed), "session": str(self.session)}

    @classmethod
    def from_meta(cls, meta: dict[str, str], path: Path) -> MatchSettings:
        try:
            settings = cls(meta["rules"], int(meta["players"]), tuple(json.loads(meta["bots"])),
                           int(meta["seed"]), int(meta["session"]))
        except (KeyError, ValueError, TypeError) as exc:
            raise BatchFileError(f"{path} is damaged: its settings are incomplete ({exc})") \
                from None
        if any(not isinstance(text, str) or CONTROL_CHARACTERS.search(text)
               for text in (settings.rules, *settings.bots)):
            # the names are printed (standings): text a terminal would act on is refused
            raise BatchFileError(f"{path} is damaged: its ruleset or a bot's name is not "
                                 "text without control characters")
        return settings


def check_match(bots: Sequence[str], players: int, deals: int, session: int,
                workers: int | None, cluster: str | None, rules: str) -> None:
    """Every argument checked before any file is touched (bots are made once to check them)."""
    get_ruleset(rules)
    for spec in bots:
        make_bot(spec, 0)
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise PopeJoanError(f"--players must be from {MIN_PLAYERS} to {MAX_PLAYERS}, not "
                            f"{players}")
    if not 1 <= session <= MAX_SESSION:
        raise PopeJoanError(f"--session must be from 1 to {MAX_SESSION} deals, not {session}")
    if not 1 <= deals <= MAX_DEALS or deals % session:
        raise PopeJoanError(f"--deals must be from 1 to {MAX_DEALS} and a whole number of "
                            f"sessions of {session}, not {deals}")
    if workers is not None and not 1 <= workers <= max_workers():
        raise PopeJoanError(f"--workers must be from 1 to {max_workers()} on this "
                            f"machine, not {workers}")
    if cluster is not None:
        parse_cluster(cluster)


@dataclass(frozen=True)
class MatchTask:
    """One session played in one rotation."""

    settings: MatchSettings
    session: int
    rotation: int

    def describe(self) -> str:
        return f"playing session {self.session} in rotation {self.rotation}"


def bots_by_player(settings: MatchSettings, rotation: int) -> list[str]:
    """The bot at each player's place in ``rotation``: player ``p`` is bot ``(p + r) mod B``."""
    count = len(settings.bots)
    return [settings.bots[(p + rotation) % count] for p in range(settings.players)]


def play_task(task: MatchTask) -> list[dict[str, Any]]:
    """Play one session in one rotation (runs in a worker): one row per deal."""
    s = task.settings
    names = bots_by_player(s, task.rotation)
    bots = [make_bot(name, s.seed) for name in names]
    played = play_session(get_ruleset(s.rules), s.players, s.seed, task.session * s.session,
                          s.session, bots, s.seed)
    return [_row(task, k, played[k], names) for k in range(len(played))]


def play_tasks(tasks: list[MatchTask]) -> list[list[dict[str, Any]]]:
    """A chunk of sessions (one Dask task)."""
    return [play_task(task) for task in tasks]


def _row(task: MatchTask, k: int, played: PlayedDeal, names: list[str]) -> dict[str, Any]:
    n = task.settings.players
    seats = [names[(k + seat) % n] for seat in range(n)]
    entry = record_to_json(session_record([played], seats))["deals"][0]
    return {"session": task.session, "rotation": task.rotation, "deal": k,
            "idx": task.session * task.settings.session + k, "seats": json.dumps(seats),
            "vals": json.dumps(list(played.values)), "record": json.dumps(entry),
            "decisions": json.dumps([[seat - 1, round(wall, 6), round(cpu, 6)]  # 0-based
                                     for seat, wall, cpu in played.decisions])}  # on file


class MatchStore:
    """The match file: its settings, which sessions are done, one transaction per deal."""

    def __init__(self, path: Path, settings: MatchSettings) -> None:
        self.path = path
        self.db = open_store(path, SCHEMA, settings.to_meta(), KIND.noun)
        try:
            with sql_errors(path, "write to"):
                self._prepare(settings)
        except BaseException:
            self.db.close()
            raise

    def _prepare(self, settings: MatchSettings) -> None:
        wanted = settings.to_meta()
        tables = {r[0] for r in self.db.execute(
            "SELECT name FROM sqlite_master WHERE type='table'")}
        stored = check_kind(self.db, self.path, KIND) if tables else {}
        self.db.execute("PRAGMA journal_mode=WAL")
        if not stored:
            self.db.executescript(setup_script(SCHEMA, wanted))
            stored = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        for key, value in wanted.items():
            if stored.get(key) != value:
                raise BatchFileError(
                    f"{self.path} was made with {key} {stored.get(key)!s:.60}, not {value}: use "
                    f"another --out file, or the same settings to resume")

    def done(self) -> dict[tuple[int, int], int]:
        """Deals stored per (session, rotation)."""
        with sql_errors(self.path, "read"):
            return {(int(s), int(r)): int(c) for s, r, c in self.db.execute(
                "SELECT session, rotation, count(*) FROM plays GROUP BY session, rotation")}

    def add(self, rows: list[dict[str, Any]]) -> None:
        """A played session's deals, each in its own transaction."""
        for row in rows:
            with sql_errors(self.path, "write to"), self.db:
                self.db.execute(
                    "INSERT OR IGNORE INTO plays VALUES (:session, :rotation, :deal, :idx, "
                    ":seats, :vals, :record, :decisions)", row)

    def close(self) -> None:
        self.db.close()


@dataclass(frozen=True)
class MatchReport:
    planned: int
    already: int
    played: int
    seconds: float


def run_match(out: Path, bots: Sequence[str], players: int, deals: int, seed: int, *,
              rules: str = "hoyle-modernized", session: int = 1, workers: int | None = None,
              cluster: str | None = None, progress: Progress | None = None) -> MatchReport:
    """Play every session of the match not yet in ``out`` (counts in deal-plays: each deal
    once per rotation)."""
    import time

    specs = list(bots)
    check_match(specs, players, deals, session, workers, cluster, rules)
    settings = MatchSettings(rules, players, tuple(specs), seed, session)
    if cluster is not None:
        reach_cluster(cluster)
    store = MatchStore(out, settings)
    try:
        done = store.done()
        sessions = deals // session
        tasks = [MatchTask(settings, j, r) for j in range(sessions) for r in range(len(specs))
                 if done.get((j, r), 0) < session]
        planned = sessions * len(specs) * session
        already = sum(min(c, session) for (j, _), c in done.items() if j < sessions)
        started = time.monotonic()
        with sigterm_stops_the_run():
            if not tasks:
                count = 0
            elif cluster is not None:
                count = run_dask(tasks, len(tasks), cluster, store, progress, play_tasks)
            else:
                pool = min(workers or default_workers(), len(tasks))
                count = run_local(tasks, len(tasks), pool, store, progress, play_task)
        return MatchReport(planned, already, count * session, time.monotonic() - started)
    finally:
        store.close()


# ----------------------------------------------------------------------------- reading

@dataclass(frozen=True)
class MatchRow:
    """One played deal of a match file."""

    session: int
    rotation: int
    deal: int
    index: int
    seats: tuple[str, ...]
    values: tuple[int, ...]
    record: dict[str, Any]
    decisions: tuple[tuple[int, float, float], ...]
    """Per decision: the seat (from 1), wall-clock and CPU seconds (NaN where not stored)."""


def read_match(path: Path) -> tuple[MatchSettings, list[MatchRow]]:
    """The settings and every row of a match file, read-only (a damaged file: one error)."""
    inspect_path(path, writing=False, noun=KIND.noun)
    db, _ = connect_read_only(path)
    try:
        with sql_errors(path, "read"):
            meta = check_kind(db, path, KIND)
            if not meta:
                raise BatchFileError(f"{path} is not a popejoan match file (no settings)")
            settings = MatchSettings.from_meta(meta, path)
            rows = [_decode(path, settings, raw) for raw in db.execute(
                f"SELECT {', '.join(COLUMNS)} FROM plays ORDER BY session, rotation, deal")]
    finally:
        db.close()
    return settings, rows


def _decode(path: Path, settings: MatchSettings, raw: Sequence[Any]) -> MatchRow:
    data = dict(zip(COLUMNS, raw, strict=True))
    try:
        seats = tuple(json.loads(data["seats"]))
        values = tuple(json.loads(data["vals"]))
        decisions = tuple((int(d[0]) + 1, float(d[1]), float(d[2]) if len(d) > 2 else math.nan)
                          for d in json.loads(data["decisions"]))
        record = json.loads(data["record"])
    except (TypeError, ValueError) as exc:
        raise BatchFileError(f"{path}: a row is damaged ({exc})") from None
    n = settings.players
    if (len(seats) != n or len(values) != n or any(type(v) is not int for v in values)
            or any(s not in settings.bots for s in seats) or not isinstance(record, dict)):
        raise BatchFileError(f"{path}: the row of session {data['session']}, rotation "
                             f"{data['rotation']}, deal {data['deal']} is damaged")
    return MatchRow(int(data["session"]), int(data["rotation"]), int(data["deal"]),
                    int(data["idx"]), seats, values, record, decisions)


def session_records(settings: MatchSettings, rows: Sequence[MatchRow]) -> Iterator[
        tuple[int, int, Record]]:
    """Each complete (session, rotation) as a record ``popejoan check`` referees: its deals in
    order, the players named by their bots (``P1 pimc``) round the table."""
    by_unit: dict[tuple[int, int], list[MatchRow]] = {}
    for row in rows:
        by_unit.setdefault((row.session, row.rotation), []).append(row)
    for (session, rotation), unit in sorted(by_unit.items()):
        if len(unit) != settings.session:
            continue
        names = [f"P{p + 1} {bot}" for p, bot in enumerate(bots_by_player(settings, rotation))]
        data = {"format": "popejoan-record", "version": 1, "rules": settings.rules,
                "players": names, "tags": {"Event": f"match session {session} rotation "
                                                    f"{rotation}"},
                "deals": [r.record for r in sorted(unit, key=lambda r: r.deal)]}
        yield session, rotation, record_from_json(data)
