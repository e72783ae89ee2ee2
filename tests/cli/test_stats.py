"""``popejoan stats``: strict JSON for deals past the time limit, damaged rows refused, read-only
folders and write-ahead logs, paths that are not batch files."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from popejoan_solver.jobs.batch import run_batch
from tests.contract import ROOT, Outcome, assert_contract, run_cli


def test_stats_of_deals_all_past_the_time_limit_is_valid_json(tmp_path: Path) -> None:
    out = tmp_path / "late.db"
    assert_contract(run_cli(["batch", "--rules", "early-hoyle", "--players", "3", "--deals",
                             "2", "--seed", "9", "--time-limit", "0.001", "--workers", "1",
                             "--out", str(out)]), 0)
    outcome = run_cli(["stats", str(out), "--json"])
    assert_contract(outcome, 0)

    def refuse(constant: str) -> object:
        raise AssertionError(f"{constant} is not JSON")

    group = json.loads(outcome.stdout, parse_constant=refuse)["groups"][0]
    assert group["exact_deals"] == 0
    assert group["forced_win_rate"] == [None, None, None]
    text = run_cli(["stats", str(out)])
    assert_contract(text, 0)
    assert "nan" not in text.stdout


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real batch file of 120 rows (quick parlett deals), closed cleanly: no log beside it."""
    out = tmp_path_factory.mktemp("small") / "small.db"
    run_batch(out, ["parlett"], [3, 4, 5, 6, 7, 8], 20, seed=1, workers=2)
    return out


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
