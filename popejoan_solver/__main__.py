"""``python -m popejoan_solver`` and the ``popejoan`` console script.

The command line's modules (z3, the solver, ...) are imported here, inside the handling of
Ctrl-C: interrupted while they load, the command exits 130 with one ``error: interrupted``
line, as it does once running (``cli.main``).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
from typing import NoReturn

EXIT_INTERRUPTED = 130


def _exit_interrupted() -> NoReturn:
    """Leave with status 130 after Ctrl-C, the exit handlers run (child processes stopped) but
    not the interpreter's finalisation: an interrupted import can leave half-built objects
    whose finalisers print to stderr, and a KeyboardInterrupt that passed through an
    extension's ``PyRun_*`` call makes CPython end by killing itself with SIGINT."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C cannot break the exit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


class _HeldUnraisables:
    """Holds the errors of finalisers (``sys.unraisablehook``) while the command runs: after
    Ctrl-C they are the half-built objects of an interrupted import (say z3's context) and are
    dropped; otherwise they are passed on when the command ends."""

    def __init__(self) -> None:
        self.held: list[sys.UnraisableHookArgs] = []
        self.passed_on = sys.unraisablehook

    LIMIT = 100
    """Held at most (a long-running command, say ``serve``, must not gather them without end):
    past it they are passed on at once."""

    def __call__(self, unraisable: sys.UnraisableHookArgs) -> None:
        if len(self.held) >= self.LIMIT:
            self.passed_on(unraisable)
            return
        self.held.append(unraisable)

    def release(self, interrupted: bool) -> None:
        sys.unraisablehook = self.passed_on
        if not interrupted:
            for unraisable in self.held:
                self.passed_on(unraisable)
        self.held.clear()


def entry_point() -> NoReturn:
    """The console script."""
    hold = _HeldUnraisables()
    sys.unraisablehook = hold
    try:
        from .cli import main
    except KeyboardInterrupt:
        hold.release(interrupted=True)
        print("error: interrupted", file=sys.stderr)
        _exit_interrupted()
    try:
        status = main()
    except BaseException:
        hold.release(interrupted=False)
        raise
    hold.release(interrupted=status == EXIT_INTERRUPTED)
    if status == EXIT_INTERRUPTED:
        _exit_interrupted()
    sys.exit(status)


if __name__ == "__main__":
    entry_point()
