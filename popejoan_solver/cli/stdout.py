"""Standard output written whole or with an error, and flushed by the command, not at exit.

Python's buffered standard output drops what a short write (a disk that fills mid-write)
left over, and says nothing; and a flush that fails at the interpreter's exit is a second
message and status 120. Here standard output goes through :class:`WholeWrites`, the command
line flushes it itself (:func:`flush_stdout`) and, once it cannot be written, points it at
/dev/null (:func:`silence_stdout`).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from typing import Any, Final

from ..command import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, EXIT_INTERRUPTED

WRITE_ERRORS: Final = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO})
"""Errors of a write: one with no file name is standard output's (every file the commands
write goes through ``files.writing``, whose errors name the file)."""


class WholeWrites(io.RawIOBase):
    """A file descriptor written whole or with an error (never a short write taken for a
    whole one)."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:])
        return done


def prepare_streams() -> None:
    """Standard output through :class:`WholeWrites`; a terminal or pipe that cannot show a
    card's suit symbol gets an escape, not a crash."""
    whole_writes_to_stdout()
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")


def whole_writes_to_stdout() -> None:
    """Standard output (the process's own, not a test's capture) through :class:`WholeWrites`,
    so that output a full disk cut short is an error."""
    stdout = sys.stdout
    if stdout is None or stdout is not sys.__stdout__ or not isinstance(stdout, io.TextIOWrapper):
        return
    try:
        fd = stdout.fileno()
        stdout.flush()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(WholeWrites(fd)), encoding=stdout.encoding,
                                  errors=stdout.errors, line_buffering=stdout.line_buffering)


def silence_stdout() -> None:
    """Point standard output at /dev/null: what is left in its buffer cannot be written, and
    the interpreter's own flush at exit must not fail again (status 120, a second message)."""
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def flush_stdout(status: int) -> int | None:
    """Flush standard output; the status to exit with instead when that fails: 141 for a
    reader gone, else 2 with one ``error:`` line (none more if the command already failed)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        silence_stdout()
        if status in (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE):
            return status  # its error line is printed already
        print(f"error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return None
