"""The tables on disk: one SQLite database (WAL) in the server's data folder.

A table is its spec, the hashes of its seats' tokens and the list of events accepted (each
written, and committed, before its answer is sent); a session is rebuilt by replaying its
events (:func:`.session.replay`), so a server killed at any point resumes every table where
its last accepted decision left it. Tokens themselves are never stored: their SHA-256 is.
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from .session import Event
from .spec import TableSpec, spec_from_json

DATABASE: Final = "tables.sqlite3"
LOCK: Final = "tables.lock"
"""Held by the one server that keeps its tables in the folder (two would play them twice)."""


class FolderInUseError(OSError):
    """Another server keeps its tables in the data folder."""

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    tokens TEXT NOT NULL,
    created REAL NOT NULL,
    touched REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    table_id TEXT NOT NULL REFERENCES tables(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (table_id, number)
);
"""


@dataclass(frozen=True)
class StoredTable:
    """A table as stored: its id, spec, token hashes (per player, None for a bot), events
    and when it was last played (seconds since the epoch)."""

    id: str
    spec: TableSpec
    tokens: tuple[str | None, ...]
    events: tuple[Event, ...]
    touched: float


class Store:
    """The database (``folder`` None: in memory, lost when the server stops)."""

    def __init__(self, folder: Path | None) -> None:
        self._held: int | None = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            self._held = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(self._held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(self._held)
                raise FolderInUseError(0, "another popejoan server keeps its tables there "
                                          "(give it --data DIR of its own)") from None
        where = ":memory:" if folder is None else str(folder / DATABASE)
        self._db = sqlite3.connect(where, check_same_thread=False, isolation_level=None)
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)

    def create(self, table_id: str, spec: TableSpec, tokens: tuple[str | None, ...]) -> None:
        now = time.time()
        with self._lock:
            self._db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?)",
                             (table_id, json.dumps(spec.to_json()), json.dumps(tokens), now,
                              now))

    def append(self, table_id: str, number: int, event: Event) -> None:
        """Write the table's event ``number`` (from 0), committed before this returns."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute("INSERT INTO events VALUES (?, ?, ?)",
                                 (table_id, number, json.dumps(event.to_json())))
                self._db.execute("UPDATE tables SET touched = ? WHERE id = ?",
                                 (time.time(), table_id))
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def touch(self, table_id: str) -> None:
        with self._lock:
            self._db.execute("UPDATE tables SET touched = ? WHERE id = ?",
                             (time.time(), table_id))

    def delete(self, table_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM tables WHERE id = ?", (table_id,))

    def load(self) -> list[StoredTable]:
        """Every table stored, its events in order."""
        with self._lock:
            rows = self._db.execute("SELECT id, spec, tokens, touched FROM tables").fetchall()
            events: dict[str, list[Event]] = {row[0]: [] for row in rows}
            for table_id, text in self._db.execute(
                    "SELECT table_id, event FROM events ORDER BY table_id, number"):
                events[table_id].append(Event.from_json(json.loads(text)))
        return [StoredTable(row[0], spec_from_json(json.loads(row[1])),
                            tuple(json.loads(row[2])), tuple(events[row[0]]), row[3])
                for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._held is not None:
                os.close(self._held)
                self._held = None
