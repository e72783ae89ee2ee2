"""A decision's searches on one helper thread, so that Ctrl-C reaches the main thread at once.

``search.lead_values`` called on the main thread starts a thread of its own for every deal it
values (a compiled search never looks at signals); a bot or the advice valuing 32 or 200 deals
in a row paid for a thread each time (0.4 ms of CPU a deal: 10-20% of a ``pimc`` deal-play's).
Run the whole loop here instead: one thread a decision, and on Ctrl-C the loop is told to stop
and the search under way is cancelled.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

from ..search.api import cancel_searches

_T = TypeVar("_T")


def off_main_thread(work: Callable[[threading.Event], _T], *, helper: bool = True) -> _T:
    """``work(stop)`` on a helper thread when called from the main thread (directly from any
    other); ``stop`` is set when the caller is interrupted, and ``work`` should then return
    soon (its result is thrown away). ``helper=False``: on the calling thread, for work in
    Python (max^n) that Ctrl-C interrupts itself and no cancel would stop."""
    stop = threading.Event()
    if not helper or threading.current_thread() is not threading.main_thread():
        return work(stop)
    pool = ThreadPoolExecutor(1, thread_name_prefix="popejoan-decide")
    future: Future[_T] | None = None
    try:  # submit inside: a Ctrl-C while the thread starts still stops the work
        future = pool.submit(work, stop)
        return future.result()
    except KeyboardInterrupt:
        stop.set()
        while True:  # again until it ends: a search may begin just after a cancel
            cancel_searches()
            if future is None or future.done():
                break
            wait([future], timeout=0.05)
        raise
    finally:
        pool.shutdown(wait=True)
