"""The local worker pool: processes that die with their parent, stopped at once when the run
ends however it ends, with every finished result stored as it arrives.

A worker ignores Ctrl-C and SIGTERM (the parent stops it: no traceback per worker) and dies
when the process that started it does, even by ``kill -9`` (:func:`die_with_parent`, also used
by the web server's search workers). A worker that dies ends the run with
:class:`BatchWorkerError`, the results stored before it kept.
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, Protocol

from ..model.errors import PopeJoanError
from ..search.api import usable_cores

WORKERS_PER_CORE: Final = 4
"""``--workers`` may be at most four per core (at least 8): each worker holds its own tables."""

PR_SET_PDEATHSIG: Final = 1

Progress = Callable[[int, int], None]
"""Told ``(finished, total)`` after each result is stored."""


class BatchWorkerError(PopeJoanError):
    """A worker process died or failed; every row stored before it stays in the file."""


class Sink(Protocol):
    """Where a worker's results go: each stored as it arrives (a batch's or a match's store)."""

    def add(self, row: Any) -> None: ...


def default_workers() -> int:
    """One worker per usable core."""
    return usable_cores()


def max_workers() -> int:
    """The most ``--workers`` allowed on this machine (see ``WORKERS_PER_CORE``)."""
    return max(8, WORKERS_PER_CORE * default_workers())


def die_with_parent(parent: int, *, thread_bound: bool = True) -> None:
    """Make this worker die when the batch process (or the web server) does, even by ``kill
    -9``: a thread that watches the parent's pid and, when ``thread_bound`` (the parent's
    thread that started the worker lives as long as the parent), Linux's parent-death signal
    too."""
    if thread_bound and sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the parent died before the signal was set
        os._exit(1)
    threading.Thread(target=watch_parent, args=(parent,), daemon=True,
                     name="popejoan-watch-parent").start()


def watch_parent(parent: int) -> None:
    """Kill this worker once its parent is gone (it is then adopted by another process): the
    guard that works where the parent-death signal does not."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGKILL)


def worker_init(parent: int) -> None:
    """A pool worker's start: it leaves Ctrl-C and SIGTERM handling to the parent, which stops
    it (no traceback per worker), and dies with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent(parent)


def pool_context() -> Any:
    """Fork on Linux, so every worker's parent is the batch process itself (see
    the :func:`die_with_parent`); the platform's default elsewhere."""
    return multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes that leave Ctrl-C and SIGTERM to this process (which
    stops them with :func:`stop_pool`) and die with it."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=pool_context(),
                               initializer=worker_init, initargs=(os.getpid(),))


def stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now rather than letting them finish work nobody will use (a
    batch's deals, the web server's searches at shutdown)."""
    # ProcessPoolExecutor has no public way to end its workers before Python 3.14's
    # terminate_workers(): its processes and manager thread are read here, and only here.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown forgets it
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    deadline = time.monotonic() + 2
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join(1)
    # The pool's manager thread closes its wake-up pipe on its way out; the interpreter's exit
    # wakes every such thread without the pool's lock (CPython 3.11), so a pipe closed at that
    # moment printed "OSError: [Errno 9] Bad file descriptor" under the one error line.
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(2)


def _result(future: Future[Any], task: Any) -> Any:
    """A worker's row; an unexpected failure in it becomes one error naming the task."""
    try:
        return future.result()
    except (BrokenProcessPool, PopeJoanError):
        raise
    except Exception as exc:
        raise BatchWorkerError(f"{task.describe()} failed: {type(exc).__name__}: {exc}") \
            from None


def run_local(tasks: Iterable[Any], total: int, workers: int, store: Sink,
              progress: Progress | None, work: Callable[[Any], Any]) -> int:
    """Run ``work`` on each task on a pool of ``workers`` processes (one worker is a pool of
    one, so that one and two workers compare like with like); every result is stored as it
    arrives. ``total`` is how many tasks there are, for the progress bar; a task has
    ``describe()`` for an error line."""
    finished = 0
    pool = process_pool(workers)
    pending: dict[Future[Any], Any] = {}
    queue = iter(tasks)

    def submit(count: int) -> None:
        for task in itertools.islice(queue, count):
            pending[pool.submit(work, task)] = task

    try:
        submit(2 * workers)
        while pending:
            complete, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in complete:
                store.add(_result(future, pending.pop(future)))
                finished += 1
                if progress:
                    progress(finished, total)
                submit(1)
    except BrokenProcessPool:
        # A worker was killed (kill -9, out of memory): keep what the others finished.
        try:
            for future, task in pending.items():
                if future.done() and not future.cancelled() and future.exception() is None:
                    store.add(_result(future, task))
        finally:
            stop_pool(pool)
        raise BatchWorkerError("a batch worker process died (killed, or out of memory?): every "
                               "row stored is kept; run the same command again to resume") \
            from None
    except BaseException:
        # Ctrl-C, SIGTERM or an error: every stored row stays.
        stop_pool(pool)
        raise
    pool.shutdown()
    return finished


class TtyProgress:
    """A progress bar with rate and ETA on standard error (tqdm), counting ``unit``s: called
    with (done, total) as the work goes, closed when done reaches total or by :meth:`close`
    (so that nothing is written after it on its line). Safe to call from another thread."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self._bar: Any = None
        self._lock = threading.Lock()
        try:
            size = os.get_terminal_size(sys.stderr.fileno())
        except OSError:
            size = os.terminal_size((0, 0))
        # A terminal that reports no size (a bare pseudo-terminal) would get no bar at all.
        self._columns = size.columns or 80
        self._rows = size.lines or 24

    def __call__(self, done: int, total: int) -> None:
        from tqdm import tqdm

        with self._lock:
            if self._bar is None:
                self._bar = tqdm(total=total, unit=self.unit, file=sys.stderr, smoothing=0.1,
                                 ncols=self._columns, nrows=self._rows)
            self._bar.n = done
            self._bar.refresh()
            if done == total:
                self._bar.close()

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (once the bar has begun)."""
        with self._lock:
            if self._bar is not None:
                self._bar.set_postfix_str(text, refresh=True)

    def close(self) -> None:
        """End the bar's line where the work stopped (a time limit, an error, Ctrl-C)."""
        with self._lock:
            if self._bar is not None:
                self._bar.close()


def tty_progress(unit: str = "deal") -> TtyProgress | None:
    """A progress bar counting ``unit``s on a terminal (:class:`TtyProgress`), nothing
    otherwise."""
    return TtyProgress(unit) if sys.stderr.isatty() else None
