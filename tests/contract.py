"""The command-line contract for bad input and faults, as one helper every hostile test uses.

A command run here gets a time bound and an address-space cap (``resource.setrlimit``) in its
own process group; :func:`assert_contract` then checks the exit status, that standard error
has no traceback and, for an error, exactly one line starting ``error:``.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MEMORY_CAP = 2 << 30
"""Address space a command may map (2 GiB): z3, the compiled core and their tables fit."""


@dataclass(frozen=True)
class Outcome:
    """What a command did: its status, its output and how long it took."""

    status: int
    stdout: str
    stderr: str
    seconds: float
    pid: int = 0
    """The process (and process-group) id, for checks after it ended."""


def _limits(memory: int, file_size: int | None = None, stdin_closed: bool = False) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    if file_size is not None:  # a write past it fails with EFBIG (Python ignores SIGXFSZ)
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
    if stdin_closed:
        os.close(0)


def run_cli(args: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60,
            memory: int = MEMORY_CAP, cwd: Path | None = None,
            env: dict[str, str] | None = None, stdout_file: Path | None = None,
            file_size: int | None = None, stdin_closed: bool = False) -> Outcome:
    """Run ``python -m popejoan_solver ARGS`` under a memory cap; killed (and failed) past
    ``timeout`` seconds, its whole process group with it. ``stdout_file``: standard output
    goes to that file (``Outcome.stdout`` is then empty); ``file_size``: no file may grow past
    that many bytes (RLIMIT_FSIZE: a full disk, as a write sees it); ``stdin_closed``: the
    command starts with no standard input at all (``<&-``)."""
    started = time.monotonic()
    with contextlib.ExitStack() as stack:
        out_to: Any = (stack.enter_context(open(stdout_file, "wb")) if stdout_file is not None
                       else subprocess.PIPE)
        proc = subprocess.Popen(
            [sys.executable, "-m", "popejoan_solver", *args],
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=out_to, stderr=subprocess.PIPE, cwd=cwd or ROOT,
            env=env, start_new_session=True,
            preexec_fn=lambda: _limits(memory, file_size, stdin_closed))
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise AssertionError(f"popejoan {' '.join(args)[:200]} ran past {timeout} s") \
                from None
    return Outcome(proc.returncode, (out or b"").decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"), time.monotonic() - started)


def assert_contract(outcome: Outcome, status: int = 2, *, within: float | None = None) -> None:
    """The status is ``status``; no traceback; an error status has one ``error:`` line."""
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.status == status, (outcome.status, outcome.stderr[-2000:])
    if status not in (0, 1):
        errors = [line for line in outcome.stderr.splitlines() if line.startswith("error:")]
        assert len(errors) == 1, outcome.stderr
    if within is not None:
        assert outcome.seconds < within, outcome.seconds


def default_sigint() -> None:
    """In a child before exec: Ctrl-C's default action, even when the test run itself was
    started with SIGINT ignored (a background job, some CI runners, pytest-xdist workers), so
    the command under test installs its own handler as it would in a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_cli(args: Sequence[str], *, after: float, timeout: float = 30,
                  when: Callable[[], bool] | None = None) -> Outcome:
    """Start ``python -m popejoan_solver ARGS`` in its own process group, send the group SIGINT
    (Ctrl-C) ``after`` seconds in, and wait; ``seconds`` is the time from the signal to the end.
    With ``when``, the ``after`` seconds count from the moment ``when()`` first holds (polled),
    so the signal lands in a chosen phase on a fast machine or a slow one. Fails if the command
    ended before the signal. The group's id is the returned ``pid``."""
    proc = subprocess.Popen([sys.executable, "-m", "popejoan_solver", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            start_new_session=True, preexec_fn=default_sigint)
    limit = time.monotonic() + timeout
    while when is not None and not when() and proc.poll() is None and time.monotonic() < limit:
        time.sleep(0.01)
    time.sleep(after)
    assert proc.poll() is None, f"popejoan {args[0]} ended before the signal"
    sent = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"popejoan {args[0]} ran on {timeout} s after Ctrl-C") from None
    return Outcome(proc.returncode, out.decode("utf-8", "replace"),
                   err.decode("utf-8", "replace"), time.monotonic() - sent, proc.pid)


def live_group_members(pgid: int) -> list[int]:
    """Processes of the group that are still running (a zombie waiting to be reaped by
    whoever adopted it is not running)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return []
    live = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            live.append(int(entry.name))
    return live


def assert_group_gone(pgid: int, within: float = 5) -> None:
    """No process of the group ``pgid`` is left running ``within`` seconds from now."""
    deadline = time.monotonic() + within
    while (live := live_group_members(pgid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not live, f"processes {live} of the batch are still running"


def assert_interrupted_past_warnings(outcome: Outcome) -> None:
    """Ctrl-C's contract for a command that may warn first (``find``, ``prove``, ``graph``):
    status 130 within 1.5 s, the ``warning:`` lines aside exactly one ``error: interrupted``,
    nothing on standard output (nothing half-written)."""
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.status == 130, (outcome.status, outcome.stderr[-2000:])
    assert [line for line in outcome.stderr.splitlines()
            if not line.startswith("warning:")] == ["error: interrupted"], outcome.stderr
    assert outcome.seconds < 1.5, outcome.seconds
    assert outcome.stdout == ""


def assert_interrupted(outcome: Outcome, within: float = 1.5) -> None:
    """Ctrl-C's contract: status 130 soon after the signal, one ``error: interrupted`` line,
    nothing on standard output (nothing half-written)."""
    assert "Traceback" not in outcome.stderr, outcome.stderr
    assert outcome.status == 130, (outcome.status, outcome.stderr[-2000:])
    lines = outcome.stderr.splitlines()
    assert len(lines) == 1, outcome.stderr
    assert lines[0].startswith("error: interrupted"), outcome.stderr
    assert outcome.stdout == ""
    assert outcome.seconds < within, outcome.seconds


class _Overtime(BaseException):
    """Raised in a command run in-process past its time bound: a BaseException, so that no
    handler of the command's own (``except Exception``, ``except OSError``) can take it."""


@contextlib.contextmanager
def _time_bound(seconds: float, what: str) -> Iterator[None]:
    """Fail with :class:`_Overtime` if the block runs past ``seconds`` (SIGALRM, in the main
    thread: a blocking open or read is cut short, as a child's would be killed)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def overtime(signum: int, frame: object) -> None:
        raise _Overtime(f"popejoan {what[:200]} ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, overtime)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_main(args: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60,
             cwd: Path | None = None) -> Outcome:
    """Run ``popejoan ARGS`` in this process (``cli.main``), as :func:`run_cli` runs it in a
    child: standard input from ``stdin`` (empty when None), standard output and error
    captured, run in ``cwd`` (the repository), failed past ``timeout`` seconds. The same
    status and text, without a new interpreter's start-up (about 0.35 s of CPU a command):
    for checks of what a command says and the status it ends with, not of the process itself
    (signals, memory caps, the launcher, a closed or inherited stream, a file size limit).
    An exception escaping ``main`` (a traceback, in a child) fails the test where it is."""
    from popejoan_solver.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin, sys.stdout, sys.stderr, os.getcwd()
    started = time.monotonic()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        os.chdir(cwd or ROOT)
        with _time_bound(timeout, " ".join(args)):
            try:
                status = main(list(args))
            except SystemExit as exc:  # argparse's usage errors, --help and --version
                status = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[:3]
        os.chdir(saved[3])
    return Outcome(status, out.getvalue(), err.getvalue(), time.monotonic() - started)
