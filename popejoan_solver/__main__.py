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


def entry_point() -> NoReturn:
    """The console script."""
    try:
        from .cli import main
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        _exit_interrupted()
    status = main()
    if status == EXIT_INTERRUPTED:
        _exit_interrupted()
    sys.exit(status)


if __name__ == "__main__":
    entry_point()
