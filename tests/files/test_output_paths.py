"""Output paths: every command that writes a file follows one set of rules (docs/contract.md,
"Output paths"; ``popejoan_solver/files/writing.py``): a device, pipe or socket refused
before the work with one ``error:`` line; a symbolic link written through, never replaced; a
failed or interrupted write leaving no empty or half-written file; a full disk an error that
names the file, standard output's included.

The commands run in-process (``run_main``: the same message, status and files as a child's),
but where the point is the process: its standard output on a full disk and a file size
limit (RLIMIT_FSIZE, a limit of the process) keep a child."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from popejoan_solver.files import writing as outfile
from popejoan_solver.jobs.batch import run_batch
from popejoan_solver.jobs.match import run_match
from popejoan_solver.model.errors import PopeJoanError
from tests.contract import Outcome, assert_contract, run_cli, run_main

DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
        "A589K.2349Q.A34689TJK.A345678Q ^3D")
"""Six cards a hand: solved and graphed in a moment."""
CARDS = [f"{rank}{suit}" for suit in "CDHS" for rank in "A23456789TJQK"]
PLAY_INPUT = ("\n".join(line for _ in range(20) for card in CARDS for line in (card, "n"))
              + "\n").encode()
"""Answers that play any deal to its end: every card in turn (the legal one is taken) and
"n" at each choice inside a run."""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A batch file for ``stats`` and a match file for ``standings`` (made in-process)."""
    folder = tmp_path_factory.mktemp("inputs")
    run_batch(folder / "b.db", ["parlett"], [3], 1, 1, workers=1)
    run_match(folder / "m.db", ["hoyle", "random"], 3, 2, 1, workers=1)
    return {"batch": str(folder / "b.db"), "match": str(folder / "m.db")}


Command = Callable[[str, dict[str, str]], list[str]]

WRITERS: dict[str, Command] = {
    "solve --record": lambda p, f: ["solve", DEAL, "--record", p],
    "play --record": lambda p, f: ["play", "--seat", "1", "--bots", "lowest,lowest",
                                   "--record", p],
    "graph --output": lambda p, f: ["graph", DEAL, "--format", "dot", "--output", p],
    "stats --plot": lambda p, f: ["stats", f["batch"], "--plot", p],
    "standings --plot": lambda p, f: ["standings", f["match"], "--plot", p],
    "batch --out": lambda p, f: ["batch", "--rules", "parlett", "--players", "3", "--deals",
                                 "1", "--seed", "1", "--workers", "1", "--out", p],
    "match --out": lambda p, f: ["match", "--bots", "lowest,random", "--players", "3",
                                 "--deals", "1", "--seed", "1", "--workers", "1", "--out", p],
    "study --out": lambda p, f: ["study", "seat-values", "--deals", "1", "--players", "3",
                                 "--rules", "parlett", "--workers", "1", "--out", p],
}
"""Every command that writes a file, its path P (named ``*.png``, which each accepts)."""

FOLDER_WRITERS: dict[str, Command] = {
    "study --report": lambda p, f: ["study", "seat-values", "--deals", "1", "--players", "3",
                                    "--rules", "parlett", "--workers", "1", "--out",
                                    str(Path(p).parent / "s.db"), "--report", p],
    "standings --records": lambda p, f: ["standings", f["match"], "--records", p],
    "prove --certificate": lambda p, f: ["prove", "--theorem", "kings-are-stops",
                                         "--certificate", p],
    "find --certificate": lambda p, f: ["find", "first-lead-out", "--certificate", p],
}
"""Every command that writes a folder of files."""


@pytest.fixture
def short_dir() -> Iterator[Path]:
    """A folder with a short path (a socket's path is at most 107 bytes)."""
    folder = Path(tempfile.mkdtemp(prefix="pj-out-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _special(kind: str, path: Path) -> None:
    """Make a FIFO, a socket or a character device (/dev/null's numbers) at ``path``."""
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(path))
    else:
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except (PermissionError, AttributeError):
            pytest.skip("cannot make a device node here (not root)")


def _kind(path: Path) -> int:
    return stat.S_IFMT(os.lstat(path).st_mode)


def _refused(outcome: Outcome, option: str) -> None:
    """One error line naming the option, nothing on standard output (no work done)."""
    assert_contract(outcome, 2, within=15)
    assert f"error: {option} " in outcome.stderr, outcome.stderr
    assert "not a regular file" in outcome.stderr or "not a folder" in outcome.stderr
    assert outcome.stdout == "", outcome.stdout


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_pipe_is_refused_before_the_work(writer: str, files: dict[str, str],
                                           short_dir: Path) -> None:
    """A FIFO with no reader once blocked ``solve --record`` and ``play --record`` before any
    work, and ``stats --plot`` for ever; each is now one line, at once."""
    path = short_dir / "out.png"
    _special("fifo", path)
    outcome = run_main(WRITERS[writer](str(path), files), stdin=PLAY_INPUT, timeout=20)
    _refused(outcome, writer.split()[1])
    assert _kind(path) == stat.S_IFIFO
    assert sorted(p.name for p in short_dir.iterdir()) == ["out.png"]


@pytest.mark.parametrize("kind", ["socket", "device"])
@pytest.mark.parametrize("writer", ["solve --record", "play --record", "stats --plot",
                                    "graph --output", "batch --out"])
def test_a_socket_or_device_is_refused_and_kept(writer: str, kind: str, files: dict[str, str],
                                               short_dir: Path) -> None:
    """``solve --record`` replaced a device with a regular file (as root, /dev/null), and
    ``play --record`` wrote into it."""
    path = short_dir / "out.png"
    _special(kind, path)
    before = _kind(path)
    outcome = run_main(WRITERS[writer](str(path), files), stdin=PLAY_INPUT, timeout=20)
    _refused(outcome, writer.split()[1])
    assert _kind(path) == before


@pytest.mark.parametrize("writer", list(FOLDER_WRITERS))
def test_a_folder_option_on_a_pipe_is_refused(writer: str, files: dict[str, str],
                                              short_dir: Path) -> None:
    path = short_dir / "out"
    _special("fifo", path)
    outcome = run_main(FOLDER_WRITERS[writer](str(path), files), timeout=30)
    _refused(outcome, writer.split()[1])
    assert sorted(p.name for p in short_dir.iterdir()) == ["out"]


def test_a_pipe_inside_the_report_folder_is_refused_before_the_study(
        short_dir: Path) -> None:
    """``study --report DIR`` with a FIFO for its figure ran the whole study, then said "File
    or stream is not seekable" without naming the file."""
    report = short_dir / "report"
    report.mkdir()
    _special("fifo", report / "seat-values.png")
    outcome = run_main(FOLDER_WRITERS["study --report"](str(report), {}), timeout=30)
    assert_contract(outcome, 2, within=15)
    assert "seat-values.png" in outcome.stderr
    assert "not a regular file" in outcome.stderr
    assert not (short_dir / "s.db").exists()  # refused before the study


# ----------------------------------------------------------------------------- links

def _link(short_dir: Path, existing: bool) -> tuple[Path, Path]:
    target = short_dir / "target.png"
    if existing:
        target.write_text("old")
    link = short_dir / "link.png"
    link.symlink_to(target.name)
    return link, target


@pytest.mark.parametrize("existing", [True, False], ids=["to-a-file", "dangling"])
@pytest.mark.parametrize("writer", ["solve --record", "play --record", "graph --output",
                                    "stats --plot", "batch --out"])
def test_a_symbolic_link_is_written_through(writer: str, existing: bool,
                                           files: dict[str, str], short_dir: Path) -> None:
    """``play --record LINK`` removed a dangling link and wrote a file in its place;
    ``solve --record LINK`` replaced the link: the target now gets the file."""
    link, target = _link(short_dir, existing)
    if writer == "batch --out" and existing:
        target.unlink()
        target.write_bytes(b"")  # an empty file is a new batch file
    outcome = run_main(WRITERS[writer](str(link), files), stdin=PLAY_INPUT, timeout=60)
    assert_contract(outcome, 0)
    assert link.is_symlink()
    assert os.readlink(link) == target.name
    assert target.is_file()
    assert target.stat().st_size > 3
    if writer in ("solve --record", "play --record"):
        assert run_main(["check", str(link)]).status in (0, 1)  # a record check reads
    assert sorted(p.name for p in short_dir.iterdir()
                  if not p.name.startswith("target.png-")) == ["link.png", "target.png"]


def test_a_link_to_a_device_is_refused(short_dir: Path) -> None:
    """The kind is that of the file the link points to."""
    device = short_dir / "fifo"
    _special("fifo", device)
    link = short_dir / "link.json"
    link.symlink_to(device)
    outcome = run_main(["solve", DEAL, "--record", str(link)], timeout=20)
    _refused(outcome, "--record")
    assert link.is_symlink()
    assert _kind(device) == stat.S_IFIFO


# ----------------------------------------------------------------------------- full disk

def _fill(folder: Path) -> None:
    """Fill the file system of ``folder`` to its last byte."""
    with contextlib.suppress(OSError), open(folder / "filler", "ab") as filler:
        while True:
            filler.write(b"\0" * 512)
            filler.flush()


@pytest.fixture
def full_disk() -> Iterator[Path]:
    """A 64 KiB tmpfs filled to the last byte (root only; skipped elsewhere: the tests on
    RLIMIT_FSIZE below run everywhere)."""
    folder = Path(tempfile.mkdtemp(prefix="pj-full-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                             capture_output=True, check=False).returncode == 0
    if not mounted:
        folder.rmdir()
        pytest.skip("cannot mount a tmpfs here (not root)")
    try:
        _fill(folder)
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)
        folder.rmdir()


def _no_space(outcome: Outcome, name: str, reason: str = "No space left on device") -> None:
    assert_contract(outcome, 2)
    assert f"error: cannot write {name}: {reason}" in outcome.stderr, outcome.stderr


@pytest.mark.parametrize("writer", ["solve --record", "graph --output", "stats --plot",
                                    "play --record"])
def test_a_full_disk_names_the_file_and_leaves_nothing(writer: str, files: dict[str, str],
                                                      full_disk: Path) -> None:
    """``stats --plot`` left a 0-byte file on a full disk; ``solve --record`` named its
    temporary file. Now: one line naming the file, the folder as it was."""
    path = full_disk / "out.png"
    outcome = run_main(WRITERS[writer](str(path), files), stdin=PLAY_INPUT)
    _no_space(outcome, str(path))
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


@pytest.mark.parametrize("writer", ["batch --out", "match --out"])
def test_a_new_sqlite_file_on_a_full_disk_leaves_nothing(writer: str, files: dict[str, str],
                                                        full_disk: Path) -> None:
    """SQLite made the new file before its tables: a full disk left an empty file."""
    path = full_disk / "out.db"
    outcome = run_main(WRITERS[writer](str(path), files))
    assert_contract(outcome, 2)
    assert str(path) in outcome.stderr
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler"]


def test_a_full_disk_keeps_the_old_file(files: dict[str, str], full_disk: Path) -> None:
    (full_disk / "filler").unlink()
    old = full_disk / "old.png"
    old.write_bytes(b"old")
    _fill(full_disk)
    _no_space(run_main(["stats", files["batch"], "--plot", str(old)]), str(old))
    assert old.read_bytes() == b"old"
    assert sorted(p.name for p in full_disk.iterdir()) == ["filler", "old.png"]


@pytest.mark.parametrize("argv", [["--help"], ["solve", "--help"], ["--version"],
                                  ["solve", DEAL, "--json"]])
def test_standard_output_on_a_full_disk_is_an_error(argv: list[str], full_disk: Path) -> None:
    """``popejoan --help > full-disk`` exited 0 (argparse drops the write error)."""
    outcome = run_cli(argv, stdout_file=full_disk / "out.txt")
    _no_space(outcome, "standard output")


@pytest.mark.parametrize("writer", ["stats --plot", "standings --plot", "solve --record"])
def test_a_file_size_limit_is_an_error_and_leaves_nothing(writer: str, files: dict[str, str],
                                                         short_dir: Path) -> None:
    """A write cut short (RLIMIT_FSIZE: EFBIG, as a full disk gives ENOSPC): no partial file."""
    path = short_dir / "out.png"
    outcome = run_cli(WRITERS[writer](str(path), files), file_size=300)
    _no_space(outcome, str(path), "File too large")
    assert list(short_dir.iterdir()) == []


def test_help_past_a_file_size_limit_is_an_error(short_dir: Path) -> None:
    outcome = run_cli(["--help"], stdout_file=short_dir / "help.txt", file_size=100)
    _no_space(outcome, "standard output", "File too large")


# ----------------------------------------------------------------------------- the helper

def test_an_interrupted_write_leaves_the_old_file(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "r.json"
    target.write_text("old")
    target.chmod(0o640)
    link = tmp_path / "link.json"
    link.symlink_to(target)

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        outfile.write_output(link, "half")
    assert target.read_text() == "old"
    assert link.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "r.json"]
    monkeypatch.undo()
    outfile.write_output(link, b"new")
    assert target.read_bytes() == b"new"
    assert link.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the old file's permissions kept


def test_the_helper_refuses_what_is_not_a_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for path, words in ((tmp_path / "fifo", "not a regular file"),
                        (tmp_path, "is a folder"),
                        (tmp_path / "no" / "x.json", "does not exist"),
                        ("", "names no file")):
        with pytest.raises(PopeJoanError, match=words):
            outfile.check_output_path(path, "--out")
        with pytest.raises(PopeJoanError, match=words):
            outfile.write_output(path, "x", "--out")
    with pytest.raises(PopeJoanError, match="not a folder"):
        outfile.check_output_folder(tmp_path / "fifo", "--report")
    assert outfile.check_output_folder(tmp_path / "a" / "b", parents=True) == \
        tmp_path / "a" / "b"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


def test_every_writer_goes_through_the_helper() -> None:
    """No command module or job writes a file another way (the SQLite and certificate folders
    are checked by it and written by their own rules)."""
    root = Path(outfile.__file__).resolve().parent.parent
    writers = ("write_text(", "write_bytes(", ".savefig(", '"w")', '"w",', '"wb"')
    found = []
    for module in root.rglob("*.py"):
        if module.relative_to(root).as_posix() in ("files/writing.py", "logic/certificates.py"):
            continue
        text = module.read_text(encoding="utf-8")
        found += [f"{module.name}: {w}" for w in writers if w in text]
    assert found == []


def test_a_record_written_through_a_link_is_a_record(short_dir: Path) -> None:
    link, target = _link(short_dir, existing=False)
    assert_contract(run_main(["solve", DEAL, "--seat", "1", "--record", str(link)]), 0)
    assert json.loads(target.read_text())["format"] == "popejoan-record"


def test_a_file_system_without_hard_links_still_gets_a_new_batch_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new file is linked into place; where there are no hard links (FAT), renamed."""
    import errno

    from popejoan_solver.jobs.batch import BatchStore

    def no_links(source: object, target: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    out = tmp_path / "b.db"
    BatchStore(out, 1, None).close()
    BatchStore(out, 1, None).close()  # and resumed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.db"]
