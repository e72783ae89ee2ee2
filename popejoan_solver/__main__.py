"""``python -m popejoan_solver`` and the ``popejoan`` console script.

The command line's modules (z3, the solver, ...) are imported here, inside the handling of
Ctrl-C: interrupted while they load, the command exits 130 with one ``error: interrupted``
line, as it does once running (``cli.main``).
"""

from __future__ import annotations

import _thread
import atexit
import contextlib
import errno
import os
import signal
import sys
import time
from collections.abc import Iterator
from typing import NoReturn

EXIT_INTERRUPTED = 130
EXIT_DEADLINE = 5.0
"""Seconds the exit handlers get after Ctrl-C (stopping child processes takes well under one);
past it the process leaves anyway: an import cut short by Ctrl-C can leave one of importlib's
locks held, and an exit handler that imports then waits for it for ever."""


def _exit_interrupted() -> NoReturn:
    """Leave with status 130 after Ctrl-C, the exit handlers run (child processes stopped) but
    not the interpreter's finalisation: an interrupted import can leave half-built objects
    whose finalisers print to stderr, and a KeyboardInterrupt that passed through an
    extension's ``PyRun_*`` call makes CPython end by killing itself with SIGINT."""
    with contextlib.suppress(ValueError):  # a second Ctrl-C cannot break the exit
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    _thread.start_new_thread(_leave_after, (EXIT_DEADLINE,))
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(EXIT_INTERRUPTED)


def _leave_after(seconds: float) -> None:
    """The exit handlers' deadline (on a thread of its own; imports nothing)."""
    time.sleep(seconds)
    os._exit(EXIT_INTERRUPTED)


REDELIVERY_DELAY = 0.01
"""Seconds before a Ctrl-C lost in a finaliser is delivered again (the finaliser and the hook
that saw it have long returned)."""


def _interrupt_main_after(seconds: float) -> None:
    """Ctrl-C again, to the main thread, after ``seconds``."""
    time.sleep(seconds)
    _thread.interrupt_main(signal.SIGINT)


class _SigintWatch:
    """Notes every SIGINT the process receives, whatever became of its KeyboardInterrupt.

    Raised at an unlucky moment, CPython turns a KeyboardInterrupt into another error (a
    ``RuntimeError`` from a class's ``__set_name__``, a ``ctypes.ArgumentError``) or loses it
    (raised inside a ``__del__``: printed, and the run goes on). The signal's wakeup byte
    (``signal.set_wakeup_fd``, written by the C handler whenever Python handles SIGINT) says
    the Ctrl-C came all the same.
    """

    def __init__(self) -> None:
        self.seen = False
        self.fds: tuple[int, int] | None = None
        try:
            read_fd, write_fd = os.pipe()
        except OSError:
            return
        try:
            os.set_blocking(read_fd, False)
            os.set_blocking(write_fd, False)
            signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)
        except (OSError, ValueError, AttributeError):  # not the main thread; no such call here
            os.close(read_fd)
            os.close(write_fd)
            return
        self.fds = (read_fd, write_fd)
        # A forked child (a batch worker) is not this command: its signals are not noted here.
        os.register_at_fork(after_in_child=_forget_wakeup_fd)

    def arrived(self) -> bool:
        """Whether a SIGINT has come since the watch began."""
        if not self.seen and self.fds is not None:
            try:  # noqa: SIM105 (building contextlib.suppress may be what runs out of memory)
                self.seen = signal.SIGINT in os.read(self.fds[0], 4096)
            except (OSError, MemoryError):
                pass
        return self.seen


def _forget_wakeup_fd() -> None:
    """In a forked child: no wakeup fd (the parent's pipe is the parent's)."""
    with contextlib.suppress(ValueError):
        signal.set_wakeup_fd(-1)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it came from (its cause, else its context), each once."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        yield at
        seen.add(id(at))
        at = at.__cause__ or at.__context__


def _is_interrupt(exc: BaseException) -> bool:
    """A KeyboardInterrupt, or an error that one became (it is the cause or the context)."""
    return any(isinstance(at, KeyboardInterrupt) for at in _chain(exc))


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
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # Ctrl-C landed in a finaliser, which cannot raise it: delivered again in a
            # moment, from a thread of its own (a signal raised in this hook is lost too).
            _thread.start_new_thread(_interrupt_main_after, (REDELIVERY_DELAY,))
            return
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


_OUT_OF_MEMORY = b"error: out of memory: too little to load popejoan and its solvers\n"


def _out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it came from) is memory running out: a MemoryError, an
    ENOMEM, or a shared library whose segments could not be mapped."""
    return any(isinstance(at, MemoryError)
               or (isinstance(at, OSError) and at.errno == errno.ENOMEM)
               or (isinstance(at, ImportError) and "failed to map segment" in str(at))
               for at in _chain(exc))


def _exit_unloaded(exc: BaseException) -> NoReturn:
    """The modules could not be loaded (memory ran out, or the installation is broken): one
    error line and status 2, never a traceback. With no memory left, a line made before."""
    line = _OUT_OF_MEMORY
    if not _out_of_memory(exc):
        try:
            first = (str(exc).splitlines() or [""])[0][:200]
            line = (f"error: popejoan could not load its modules ({type(exc).__name__}: "
                    f"{first})\n").encode("utf-8", "replace")
        except BaseException:  # no memory even for the message: the line made before
            line = _OUT_OF_MEMORY
    _exit_now(2, line)


def _exit_now(status: int, line: bytes = b"") -> NoReturn:
    """Exit with ``status`` at once, standard output flushed and ``line`` written to standard
    error, allocating as little as can be (memory may have run out)."""
    try:  # noqa: SIM105 (building contextlib.suppress may be what runs out of memory)
        sys.stdout.flush()
    except BaseException:
        pass
    if line:
        try:  # noqa: SIM105 (the same)
            os.write(2, line)
        except OSError:
            pass
    os._exit(status)


def entry_point() -> NoReturn:
    """The console script."""
    watch = _SigintWatch()
    hold = _HeldUnraisables()
    sys.unraisablehook = hold
    try:
        try:
            from .cli import STOPPED_BY_CTRL_C, argv_command, main
        except Exception as exc:
            if not (_is_interrupt(exc) or watch.arrived()):
                hold.release(interrupted=True)
                _exit_unloaded(exc)
            raise

        if watch.arrived():  # Ctrl-C while the modules loaded, its KeyboardInterrupt lost
            raise KeyboardInterrupt
        status = main()
    except BaseException as exc:
        interrupted = _is_interrupt(exc) or watch.arrived()
        hold.release(interrupted=interrupted)
        if not interrupted:
            if _out_of_memory(exc):
                _exit_unloaded(exc)
            raise
        print("error: interrupted", file=sys.stderr)
        _exit_interrupted()
    # From here on a Ctrl-C changes nothing (the command is done); one that came while it ran
    # and was lost (in a finaliser near its end) still makes it an interrupted command, but
    # for a command whose normal way to end is Ctrl-C (``serve``).
    with contextlib.suppress(ValueError):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        lost = (status != EXIT_INTERRUPTED and watch.arrived()
                and argv_command(None) not in STOPPED_BY_CTRL_C)
        hold.release(interrupted=status == EXIT_INTERRUPTED or lost)
        if lost:
            print("error: interrupted", file=sys.stderr)
    except MemoryError:  # the command is over and has said what it had to: its status stands
        _exit_now(status)
    if status == EXIT_INTERRUPTED or lost:
        _exit_interrupted()
    sys.exit(status)


if __name__ == "__main__":
    entry_point()
