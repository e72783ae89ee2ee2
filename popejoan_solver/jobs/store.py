"""The SQLite files of jobs, batch and match alike: one row per finished task, each in its own
transaction, so a run stopped any way keeps every finished row and no half-written one.

A file is checked before SQLite opens it (a folder, a device, another kind of file, a cut-off
database are refused saying why, :func:`inspect_path`) and its tables and settings after
(:func:`check_kind`); a new file is made whole beside its place and linked in
(:func:`open_store`); reading opens it read-only and creates nothing beside it
(:func:`connect_read_only`). Every SQLite error is one :class:`BatchFileError` saying what is
wrong with the file (:func:`sql_errors`).
"""

from __future__ import annotations

import errno
import os
import secrets
import sqlite3
import stat
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from ..files.writing import check_output_path
from ..model.errors import PopeJoanError, clip, quote_short
from .stopping import interruption

SQLITE_MAGIC: Final = b"SQLite format 3\x00"


class BatchFileError(PopeJoanError):
    """The output file is not a batch file of ours, was made with other settings, is damaged or
    cannot be read or written."""


def table_info(sql: str, tables: Sequence[str]) -> dict[str, list[tuple[str, str, int]]]:
    """Each table's (name, type, primary-key position) columns, as SQLite reports them for the
    schema ``sql``: what a file of that schema must show (:class:`FileKind`)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(sql)
        return {t: [(r[1], r[2].upper(), r[5]) for r in db.execute(f"PRAGMA table_info({t})")]
                for t in tables}
    finally:
        db.close()


def _wal(path: Path) -> Path:
    """The write-ahead log SQLite keeps beside ``path``."""
    return path.with_name(path.name + "-wal")


def _has_content(path: Path) -> bool:
    """A write-ahead log or journal beside the file that may hold rows not yet in it."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def inspect_path(path: Path, *, writing: bool, noun: str = "batch file") -> bool:
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
def sql_errors(path: Path, doing: str) -> Iterator[None]:
    """Turn SQLite's errors into :class:`BatchFileError`, and an interrupted query (Ctrl-C or
    SIGTERM, see :func:`_interruptible`) back into what interrupted it."""
    try:
        yield
    except sqlite3.Error as exc:
        if getattr(exc, "sqlite_errorname", "") == "SQLITE_INTERRUPT":
            # sqlite3 swallows what the signal handler raised inside its callback.
            raise interruption() from None
        raise _database_error(path, exc, doing) from None


def _interruptible(db: sqlite3.Connection) -> None:
    """Let Ctrl-C stop a long query (a check of a large file) within a moment: the handler runs
    Python code, where the interrupt is raised, and SQLite then stops the query."""
    db.set_progress_handler(lambda: 0, 100_000)


@dataclass(frozen=True)
class FileKind:
    """What kind of SQLite file of ours: its format tag, its tables' columns, and its name in
    messages (``jobs.batch``'s batch file, ``jobs.match``'s match file)."""

    format: str
    tables: dict[str, list[tuple[str, str, int]]]
    noun: str


def check_kind(db: sqlite3.Connection, path: Path, kind: FileKind) -> dict[str, str]:
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
                             f"{quote_short(str(stored.get('format')))})")
    problems = [r[0] for r in db.execute("PRAGMA quick_check(3)")]
    if problems != ["ok"]:
        first = str(problems[0]).replace("*** in database main ***", "")
        raise BatchFileError(f"{path} is damaged: {clip(first, 200)}")
    return {str(k): str(v) for k, v in stored.items()}


NO_HARD_LINKS: Final = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS,
                                   errno.EMLINK})
"""What ``os.link`` fails with on a file system that has no hard links (FAT, some network and
FUSE file systems)."""


def open_store(path: Path, schema: str, settings: dict[str, str],
               noun: str = "batch file") -> sqlite3.Connection:
    """Open the SQLite file ``path`` for writing, by the rules of every output path
    (``files.writing``): a device, pipe or socket refused, a symbolic link written through.
    A new file is made whole beside it (its tables and ``settings``), then linked into place:
    a failure (a full disk) leaves no file, and of two runs racing to make it one makes it
    and the other opens it (and checks its settings as any file it resumes)."""
    fresh = inspect_path(path, writing=True, noun=noun)
    target = check_output_path(path)
    if fresh:
        _create_whole(path, target, schema, settings)
    with sql_errors(path, "open"):
        db = sqlite3.connect(target, timeout=30)
    try:
        with sql_errors(path, "write to"):
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
        with sql_errors(path, "create"):
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


def _quote(text: str) -> str:
    """An SQL string literal (settings are written in the one-transaction set-up script)."""
    return "'" + text.replace("'", "''") + "'"


def connect_read_only(path: Path) -> tuple[sqlite3.Connection, bool]:
    """Open a batch or match file read-only, creating nothing beside it; true when it was
    opened as immutable, which the caller must confirm after reading: the file's
    :func:`fingerprint` unchanged.

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


def fingerprint(path: Path) -> tuple[int, int, int]:
    """The file's inode, size and time of change: a file read as immutable must show the same
    after the reading as before, or another process wrote to it meanwhile."""
    info = path.stat()
    return (info.st_ino, info.st_size, info.st_mtime_ns)
