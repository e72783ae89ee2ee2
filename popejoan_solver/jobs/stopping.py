"""How a run of jobs stops on SIGTERM: one ``error:`` line and ``EXIT_TERMINATED``, the
workers stopped and every stored row kept.

While a batch or a match runs, SIGTERM raises :class:`BatchTerminatedError` in the main
thread (:func:`sigterm_stops_the_run`). The signal may arrive inside an SQLite query, where
``sqlite3`` swallows what the handler raised and reports an interrupted query instead: the
store asks :func:`interruption` which of SIGTERM or Ctrl-C it was.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

from ..model.errors import PopeJoanError

EXIT_TERMINATED: Final = 143
"""Exit status after SIGTERM (128 + 15, as a shell reports it), with one ``error:`` line."""

TERMINATED_MESSAGE: Final = ("terminated (SIGTERM): the workers are stopped and every row "
                             "stored is kept; run the same command again to resume")


class BatchTerminatedError(PopeJoanError):
    """SIGTERM stopped the batch: the workers are stopped, every stored row is kept."""


_TERMINATED = threading.Event()
"""Set by the SIGTERM handler, which may have fired inside an SQLite query (see
:func:`interruption`)."""


def interruption() -> BaseException:
    """What an interrupted SQLite query was: :class:`BatchTerminatedError` after SIGTERM,
    else ``KeyboardInterrupt`` (Ctrl-C), to be raised in its place."""
    if _TERMINATED.is_set():
        return BatchTerminatedError(TERMINATED_MESSAGE)
    return KeyboardInterrupt()


@contextmanager
def sigterm_stops_the_run() -> Iterator[None]:
    """While a batch or a match runs, SIGTERM raises :class:`BatchTerminatedError` in the main
    thread, so the workers are stopped and the command exits with one line; a second SIGTERM
    kills at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _TERMINATED.set()
        raise BatchTerminatedError(TERMINATED_MESSAGE)

    _TERMINATED.clear()
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
