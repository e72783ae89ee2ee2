"""Reading the text a user hands over (deal, case and record files, standard input): bounded,
UTF-8, with one clear error for anything else. A named pipe is read once something writes
to it; while nothing does, a line on standard error says what is awaited."""

from __future__ import annotations

import contextlib
import os
import select
import stat
import sys
from pathlib import Path
from typing import Any, Final, TextIO

from ..model.errors import InputError, clip

MAX_INPUT_BYTES: Final = 1 << 20
"""The largest deal, case or record file read (1 MiB)."""
MAX_LINE_CHARACTERS: Final = 4096
"""The longest line read from a person at a prompt (``popejoan play``)."""
PIPE_QUIET_SECONDS: Final = 0.5
"""How long a named pipe may stay unwritten before standard error says it is awaited."""


def read_bounded(stream: Any, where: str, limit: int = MAX_INPUT_BYTES) -> str:
    """At most ``limit`` bytes of UTF-8 text from a binary (or text) stream: a device such as
    /dev/zero, whose size reads as 0, is never read past the limit."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"{where} is larger than {limit} bytes")
    if isinstance(data, str):
        return data
    try:
        return bytes(data).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where} is not UTF-8 text (byte {exc.start})") from None


def read_text_file(path: Path | str, limit: int = MAX_INPUT_BYTES) -> str:
    """A text file's contents, refusing a folder, a missing file and more than ``limit`` bytes.
    A named pipe (or ``/dev/fd/N`` of process substitution) is read once it is written to."""
    name = clip(str(path), 4096)  # a path is bounded by the system; shown whole
    if os.path.isdir(path):
        raise InputError(f"{name} is a directory, not a file")
    try:
        if stat.S_ISFIFO(os.stat(path).st_mode):
            return _read_pipe(path, name, limit)
        with open(path, "rb") as handle:
            return read_bounded(handle, name, limit)
    except FileNotFoundError:
        raise InputError(f"no such file: {name}") from None
    except PermissionError:
        raise InputError(f"{name}: permission denied") from None
    except OSError as exc:
        raise InputError(f"cannot read {name}: {exc.strerror or exc}") from None


def _read_pipe(path: Path | str, name: str, limit: int) -> str:
    """A named pipe's text. Opened without waiting (a plain open waits, silent, for a writer);
    then, if nothing has come after :data:`PIPE_QUIET_SECONDS`, standard error says what is
    awaited before the wait goes on (Ctrl-C stops it)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with contextlib.ExitStack() as stack:
        stack.callback(os.close, fd)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        if not poller.poll(int(PIPE_QUIET_SECONDS * 1000)):
            print(f"waiting: {name} is a named pipe and nothing writes to it yet (Ctrl-C stops)",
                  file=sys.stderr, flush=True)
            poller.poll()
        os.set_blocking(fd, True)
        handle = stack.enter_context(os.fdopen(os.dup(fd), "rb"))
        return read_bounded(handle, name, limit)


def read_prompt_line(stream: TextIO | None, limit: int = MAX_LINE_CHARACTERS) -> str:
    """One line a person typed (its line break kept; ``""`` at the end of input), at most
    ``limit`` characters: a longer one is an :class:`InputError`, read no further."""
    if stream is None:
        raise InputError("standard input is closed: nothing to read the answers from")
    line = stream.readline(limit + 1)
    if len(line) > limit:
        raise InputError(f"standard input: a line longer than {limit} characters")
    return line
