"""``popejoan prove``: Ctrl-C is status 130 and no verdict."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.contract import ROOT, default_sigint


def _interrupt(argv: list[str], after: float) -> tuple[int, str, str, float]:
    """Start a command, send its process group SIGINT ``after`` seconds later; returns the
    status, stdout, stderr and the seconds it took to stop once signalled."""
    proc = subprocess.Popen([sys.executable, "-m", "popejoan_solver", *argv],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                            start_new_session=True, preexec_fn=default_sigint)
    try:
        time.sleep(after)
        assert proc.poll() is None, "the command ended before the signal"
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    except BaseException:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc.returncode, out.decode(), err.decode(), time.monotonic() - sent


def _assert_interrupted(status: int, out: str, err: str, seconds: float) -> None:
    assert "Traceback" not in err, err
    assert status == 130, (status, err[-2000:])
    assert [line for line in err.splitlines() if not line.startswith("warning:")] == [
        "error: interrupted"], err
    assert seconds < 1.5, seconds
    assert out == ""  # nothing half-written


def test_ctrl_c_during_prove_is_status_130_and_no_verdict() -> None:
    """Ctrl-C during ``prove`` is status 130 and no verdict: z3 must not swallow the signal and
    report every theorem."""
    for argv, after in ((["prove", "--json"], 3.0), (["prove"], 9.0)):
        _assert_interrupted(*_interrupt(argv, after))
