"""``popejoan graph``: its output file (never a pipe or device replaced, no half-written file, a
missing folder named at once), a memory cap, and Ctrl-C. What a command says and its status is
checked in-process (``run_main``); the memory cap, a file size limit and Ctrl-C in a child."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from popejoan_solver.model.examples import HOYLE_DEAD_HAND_LINE
from tests.contract import (
    ROOT,
    assert_contract,
    assert_interrupted_past_warnings,
    interrupt_cli,
    run_cli,
    run_main,
)


def _fifo(tmp: Path) -> str:
    """A named pipe that nothing reads: writing it as a file would block or replace it."""
    os.mkfifo(tmp / "pipe")
    return str(tmp / "pipe")


def _small_line() -> str:
    from popejoan_solver.model.notation import deal_to_line
    from popejoan_solver.model.rules import RULESETS
    from tests.conftest import short_deal
    return deal_to_line(short_deal(3, 3, 1, RULESETS["hoyle-modernized"]))


SMALL: str = _small_line()


def test_a_fifo_or_device_is_never_replaced_by_graph_output(tmp_path: Path) -> None:
    pipe = _fifo(tmp_path)
    assert_contract(run_main(["graph", SMALL, "--format", "dot", "--output", pipe]))
    assert Path(pipe).is_fifo()
    assert Path("/dev/full").is_char_device()


GRAPH_DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
              "A589K.2349Q.A34689TJK.A345678Q ^3D")
"""A deal of six cards a hand: 565 states, about 100 KB of DOT, built in a moment."""


def test_graph_output_into_a_missing_folder_fails_before_the_graph_is_built(
        tmp_path: Path) -> None:
    """Hoyle's deal has more states than the default limit: found out only after seconds of
    building. A folder that does not exist is named at once instead."""
    target = tmp_path / "missing" / "g.dot"
    outcome = run_main(["graph", HOYLE_DEAD_HAND_LINE, "--format", "dot", "--output",
                        str(target)], timeout=60)
    assert_contract(outcome, 2, within=5)
    assert "does not exist" in outcome.stderr  # the folder, named (docs/contract.md)
    assert not target.parent.exists()


def test_graph_output_onto_a_folder_is_an_error(tmp_path: Path) -> None:
    outcome = run_main(["graph", GRAPH_DEAL, "--format", "dot", "--output", str(tmp_path)])
    assert_contract(outcome, 2, within=30)
    assert "is a folder, not a file" in outcome.stderr


@pytest.mark.parametrize(("memory_mb", "argv", "message"), [
    (300, [], "more than 200000 states"),
    (50, ["--max-states", "10000000"], "does not fit in memory"),
])
def test_graph_under_a_memory_cap_is_one_error_line(memory_mb: int, argv: list[str],
                                                   message: str) -> None:
    """The search keeps about 150 bytes a state, so the default limit of 200,000 states fits a
    small cap; running out of memory anyway is one clean error line, never a MemoryError
    traceback."""
    outcome = run_cli(["graph", HOYLE_DEAD_HAND_LINE, *argv], timeout=120,
                      memory=memory_mb << 20)
    assert_contract(outcome, 2, within=90)
    assert message in outcome.stderr


def _ignore_xfsz_and_cap_files() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (32 << 10, 32 << 10))


def test_a_failed_graph_write_leaves_no_half_written_file(tmp_path: Path) -> None:
    """Files are capped at 32 KB, the export is about 100 KB: the write fails part way. The
    old file at the path is kept as it was and no temporary file is left behind."""
    target = tmp_path / "g.dot"
    target.write_text("old\n")
    proc = subprocess.run([sys.executable, "-m", "popejoan_solver", "graph", GRAPH_DEAL,
                           "--format", "dot", "--output", str(target)],
                          capture_output=True, text=True, cwd=ROOT, timeout=60,
                          preexec_fn=_ignore_xfsz_and_cap_files, check=False)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.startswith("error:")] == [
        f"error: cannot write {target}: File too large"]
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]


def test_ctrl_c_during_graph_is_status_130_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "g.dot"
    assert_interrupted_past_warnings(interrupt_cli(
        ["graph", HOYLE_DEAD_HAND_LINE, "--max-states", "10000000", "--format", "dot",
         "--output", str(target)], after=6.0))
    assert list(tmp_path.iterdir()) == []
