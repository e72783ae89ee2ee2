"""Input that is not a plain file (docs/contract.md, "Input"): a named pipe is read once it is
written to, and standard error says so while nothing writes to it; process substitution
(``/dev/fd/N``, a pipe) reads at once; a closed standard input and a line without end at
``play``'s prompt are one ``error:`` line each.

Reading a named pipe runs in-process (``run_main``: the same message and status as a
child's); what is about the process (Ctrl-C, its own standard input closed or a pipe, a
memory cap) keeps a child."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.contract import ROOT, assert_contract, interrupt_cli, run_cli, run_main

DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
        "A589K.2349Q.A34689TJK.A345678Q ^3D")


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "deal.fifo"
    os.mkfifo(path)
    return path


@contextlib.contextmanager
def _write_later(path: Path, text: str, after: float) -> Iterator[None]:
    """A writer that opens the named pipe ``after`` seconds from now."""
    def write() -> None:
        time.sleep(after)
        with open(path, "w", encoding="utf-8") as pipe:
            pipe.write(text)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    yield
    thread.join(timeout=30)


def _waiting_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("waiting:")]


def test_a_named_pipe_with_no_writer_says_so_and_stops_at_ctrl_c(fifo: Path) -> None:
    """``solve FIFO`` with no writer waited for ever and said nothing."""
    outcome = interrupt_cli(["stops", str(fifo)], after=4.0)  # started, and waiting
    assert outcome.status == 130, outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == 2, outcome.stderr
    assert lines[0].startswith("waiting: "), lines
    assert str(fifo) in lines[0]
    assert "named pipe" in lines[0]
    assert lines[1] == "error: interrupted"
    assert outcome.seconds < 1.5


@pytest.mark.parametrize("command", [["stops"], ["solve", "--seat", "1"], ["view", "--seat", "1"]])
def test_a_named_pipe_is_read_once_written(fifo: Path, command: list[str]) -> None:
    with _write_later(fifo, DEAL + "\n", after=3.0):
        outcome = run_main([command[0], str(fifo), *command[1:]], timeout=60)
    assert_contract(outcome, 0)
    assert len(_waiting_lines(outcome.stderr)) <= 1, outcome.stderr  # said once if at all
    assert outcome.stdout


def test_a_named_pipe_closed_unwritten_is_an_empty_deal(fifo: Path) -> None:
    with _write_later(fifo, "", after=0.2):
        outcome = run_main(["stops", str(fifo)], timeout=30)
    assert_contract(outcome, 2)
    assert "empty" in outcome.stderr


def test_a_pipe_given_by_name_reads_at_once() -> None:
    """``/dev/stdin`` is what process substitution gives: a pipe with its writer there."""
    outcome = run_cli(["stops", "/dev/stdin"], stdin=(DEAL + "\n").encode())
    assert_contract(outcome, 0)
    assert _waiting_lines(outcome.stderr) == []
    assert "stops:" in outcome.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash for <(...)")
def test_process_substitution_keeps_working() -> None:
    popejoan = f"{sys.executable} -m popejoan_solver"
    done = subprocess.run(
        ["bash", "-c", f"{popejoan} solve --seat 1 <({popejoan} deal --players 4 --seed 3)"],
        capture_output=True, text=True, timeout=60, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr
    assert "guaranteed" in done.stdout


# ----------------------------------------------------------------------------- stdin

@pytest.mark.parametrize("argv", [
    ["play", "--seat", "1", "--bots", "lowest,lowest"],
    ["view", "-", "--seat", "1"],
    ["advise", "-", "--seat", "1"],
    ["solve", "-"],
    ["check", "-"],
])
def test_a_closed_standard_input_is_one_line(argv: list[str]) -> None:
    """``play <&-`` printed a traceback (so did ``view -``); ``play`` refuses before the game
    (nothing on standard output)."""
    outcome = run_cli(argv, stdin_closed=True)
    assert_contract(outcome, 2, within=10)
    assert "standard input is closed" in outcome.stderr
    if argv[0] == "play":
        assert outcome.stdout == ""


def test_a_line_without_end_at_the_prompt_is_bounded() -> None:
    """A 50 MiB line at ``play``'s prompt was read whole; now at most 4096 characters are."""
    outcome = run_cli(["play", "--seat", "1", "--bots", "lowest,lowest"],
                      stdin=b"x" * (50 << 20), memory=1 << 30, timeout=60)
    assert_contract(outcome, 2)
    assert "a line longer than 4096 characters" in outcome.stderr


def test_a_long_answer_that_fits_is_still_asked_again() -> None:
    outcome = run_main(["play", "--seat", "1", "--bots", "lowest,lowest"],
                       stdin=b"x" * 4000 + b"\nq\n")
    assert_contract(outcome, 0)
    assert "not a card" in outcome.stdout
    assert "you left the table" in outcome.stdout
