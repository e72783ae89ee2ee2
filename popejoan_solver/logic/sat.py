"""A SAT solve (python-sat) that Ctrl-C and a deadline stop at once, the solver left safe to
delete: ``find``'s search for deals and the certificates' re-solve of every query use it."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any


def solve_interruptibly(sat: Any, deadline: float | None) -> bool | None:
    """``sat.solve()`` that Ctrl-C and the deadline stop at once; None when the deadline did.

    Solved on the main thread, python-sat catches SIGINT itself and raises an error of its
    own. So the solver runs on a thread of its own with the GIL released (``solve_limited``
    with ``expect_interrupt``), and the main thread, free to take the signal, interrupts it,
    waits until the thread is done with the solver and raises KeyboardInterrupt.
    """
    answer: list[bool | None] = []
    failure: list[BaseException] = []
    busy = threading.Lock()  # held by the worker for as long as it may touch the solver
    cancelled = threading.Event()

    def work() -> None:
        with busy:
            if cancelled.is_set():
                return
            try:
                answer.append(sat.solve_limited(expect_interrupt=True))
            except BaseException as exc:  # handed to the main thread, raised there
                failure.append(exc)

    worker = threading.Thread(target=work, name="popejoan-sat", daemon=True)
    try:
        worker.start()  # inside the try: Ctrl-C may land while it waits for the thread
        while worker.is_alive():
            left = 0.1 if deadline is None else deadline - time.monotonic()
            if left <= 0:
                _stop(sat, busy, cancelled)
                sat.clear_interrupt()
                break
            worker.join(min(left, 0.1))
    except BaseException:
        _stop(sat, busy, cancelled)
        raise
    if failure:
        raise failure[0]
    return answer[0] if answer else None


def _stop(sat: Any, busy: threading.Lock, cancelled: threading.Event) -> None:
    """Interrupt the solver until the worker has let go of it (or will never touch it): only
    then may the solver be deleted. A second Ctrl-C does not cut this short."""
    while True:
        with contextlib.suppress(KeyboardInterrupt):
            cancelled.set()
            sat.interrupt()
            if busy.acquire(timeout=0.05):
                busy.release()
                return
