"""The web server's work scheduler: every request's work runs in a worker process, in one of
two lanes with worker processes of their own, so that a game's work (the table, bots' moves)
never waits behind study (solving, advice, checking records).

In each lane the requests wait in a bounded, fair queue (:mod:`.fairness`): past its bounds
a request is answered at once with a 503. A thread per worker process takes the next request,
hands it over and watches it: the work is stopped when its client leaves or its time runs out
(the worker is killed and replaced if it does not stop within ``cancel_seconds``), and a
worker that dies is replaced. The answer, JSON written in the worker, is handed to the
waiting request's event loop; nothing here runs on, or is bound to, an event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..model.errors import clip
from .fairness import ClientKey, FairQueue
from .limits import Limits
from .worker import Answer, Job, WorkerProcess, error_answer, internal_error

LaneName = Literal["play", "study"]

POLL_SECONDS: Final = 0.05
"""How often a worker's thread looks whether its request's client left or its time ran out."""

START_SECONDS: Final = 60
"""How long a worker process may take to start (its modules loaded) on a loaded machine."""

STUDY_NICENESS: Final = 10
"""How much lower the study lane's processes run than the server's (the event loop that
answers the tables) and the game's lane: on a machine whose cores study keeps busy, the
tables' plays are answered first."""

RETRY_AFTER: Final = ("Retry-After", "5")

LOST: Final = "a search process died (killed?) before it answered: ask again"
"""The answer when a worker process dies at work (the words of the server before its lanes,
when only searches ran in processes: kept, as clients may read them)."""


class WorkerDiedError(OSError):
    """A worker process died (killed) as it started."""


@dataclass(eq=False)
class Pending:
    """A request's work in the scheduler: waiting, then at work, then answered on the event
    loop that waits for it (each request's own: the server's, or a test client's)."""

    job: Job
    client: ClientKey
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Answer]
    gone: threading.Event = field(default_factory=threading.Event)
    """Set when nobody waits for the answer any more (the client left)."""

    def deliver(self, answer: Answer) -> None:
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
            self.loop.call_soon_threadsafe(_settle, self.future, answer)


def _settle(future: asyncio.Future[Answer], answer: Answer) -> None:
    if not future.done():
        future.set_result(answer)


class Lane:
    """Worker processes of their own and the fair queue of the requests waiting for them."""

    def __init__(self, name: str, workers: int, limits: Limits,
                 preload: tuple[str, ...], niceness: int = 0) -> None:
        self.name = name
        self.niceness = niceness
        self._limits = limits
        self._preload = preload
        self._lock = threading.Condition()
        self._queue: FairQueue[Pending] = FairQueue(limits, at_once=max(1, workers - 1))
        self._workers: list[WorkerProcess | None] = [None] * workers
        self._threads: list[threading.Thread] = []
        self._closed = False

    def submit(self, item: Pending) -> str | None:
        """Queue ``item`` (the lane's workers start with its first request); or the reason it
        is refused."""
        with self._lock:
            if self._closed:
                return "the server is shutting down"
            refusal = self._queue.add(item)
            if refusal is None:
                if not self._threads:
                    self._threads = [threading.Thread(target=self._serve, args=(slot,),
                                                      name=f"popejoan-{self.name}-{slot}",
                                                      daemon=True)
                                     for slot in range(len(self._workers))]
                    for thread in self._threads:
                        thread.start()
                self._lock.notify()
            return refusal

    def withdraw(self, item: Pending) -> bool:
        """Take ``item`` out of the queue if it is still waiting; whether it was."""
        with self._lock:
            return self._queue.remove(item)

    def abandon(self, item: Pending) -> None:
        """Nobody waits for ``item`` now: out of the queue, or its work stopped."""
        with self._lock:
            if not self._queue.remove(item):
                item.gone.set()

    def waiting(self) -> int:
        """The requests waiting for a worker now."""
        with self._lock:
            return self._queue.size

    def pids(self) -> list[int]:
        with self._lock:
            return [w.pid for w in self._workers if w is not None and w.pid is not None]

    def close(self) -> None:
        """Refuse new requests, answer those waiting, end the worker processes."""
        with self._lock:
            self._closed = True
            waiting = self._queue.drain()
            self._lock.notify_all()
            workers = [w for w in self._workers if w is not None]
            self._workers = [None] * len(self._workers)
        for item in waiting:
            item.deliver(error_answer(503, "the server is shutting down"))
        for worker in workers:
            worker.close()
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(5)

    def _serve(self, slot: int) -> None:
        """A worker's thread: the next request, in turn, each in the slot's process. The
        first request starts the process (so the request is told if it dies as it starts);
        a thread that finds none waiting starts its process at once, for the next."""
        with self._lock:
            item = self._queue.take()
        if item is None:
            with contextlib.suppress(Exception):  # the next request tries again, and says
                self._worker(slot)
        while True:
            if item is None:
                with self._lock:
                    item = self._queue.take()
                    while item is None and not self._closed:
                        self._lock.wait()
                        item = self._queue.take()
                    if item is None:
                        return
            started = time.monotonic()
            try:
                answer = self._work(slot, item)
            except Exception as exc:  # a bug here: that request is told, the lane goes on
                answer = error_answer(500, internal_error(exc))
            finally:
                with self._lock:
                    self._queue.finished(item, time.monotonic() - started)
                    self._lock.notify_all()  # its client's next may go now
            item.deliver(answer)
            item = None

    def _worker(self, slot: int) -> WorkerProcess:
        """The slot's worker process, started anew if there is none or it died (OSError if
        it cannot be; :class:`WorkerDiedError` if it died as it started)."""
        with self._lock:
            worker = self._workers[slot]
            if worker is not None and worker.alive():
                return worker
            if self._closed:
                raise OSError("the server is shutting down")
        if worker is not None:
            worker.close()
        worker = WorkerProcess(self._preload, self.niceness)
        with self._lock:  # kept before it is ready, so that a shutdown ends it too
            closed = self._closed
            if not closed:
                self._workers[slot] = worker
        if closed:
            worker.close()
            raise OSError("the server is shutting down")
        if not worker.started(START_SECONDS):
            died = worker.died()
            self._drop(slot, worker)
            if died:
                raise WorkerDiedError("a worker process died as it started")
            raise OSError(f"a worker process did not start within {START_SECONDS} s")
        return worker

    def _drop(self, slot: int, worker: WorkerProcess) -> None:
        """End ``worker``: the slot's next request starts a new one."""
        with self._lock:
            if self._workers[slot] is worker:
                self._workers[slot] = None
        worker.close()

    def _work(self, slot: int, item: Pending) -> Answer:
        """Hand ``item`` to the slot's worker and watch it until it answers, is stopped, or
        dies."""
        try:
            worker = self._worker(slot)
            worker.send(item.job)
        except (WorkerDiedError, BrokenPipeError):  # killed before it took the request
            return self._lost(slot, None)
        except Exception as exc:  # cannot start one
            return error_answer(503, f"no worker process for the request: {clip(str(exc))}",
                                RETRY_AFTER)
        limits = self._limits
        ends = time.monotonic() + limits.work_seconds
        stopped: float | None = None
        while True:
            if worker.ready(POLL_SECONDS):
                try:
                    answer = worker.receive()
                except (EOFError, OSError):
                    return self._lost(slot, worker)
                return self._timed_out() if answer.cancelled else answer
            now = time.monotonic()
            if stopped is None and (item.gone.is_set() or now >= ends or self._closed):
                worker.stop(item.job.id)
                stopped = now
            elif stopped is not None and now >= stopped + limits.cancel_seconds:
                self._drop(slot, worker)  # it did not stop: killed, and replaced
                return self._timed_out()

    def _lost(self, slot: int, worker: WorkerProcess | None) -> Answer:
        """The answer to a request whose worker died (killed) before it answered."""
        if worker is not None:
            self._drop(slot, worker)
        if self._closed:
            return error_answer(503, "the server is shutting down")
        print("warning: a search process died (killed?) before it answered; the next search "
              "starts new ones", file=sys.stderr, flush=True)
        return error_answer(500, LOST)

    def _timed_out(self) -> Answer:
        """The answer to work stopped: past its time (a client that left reads nothing)."""
        if self._closed:
            return error_answer(503, "the server is shutting down")
        return error_answer(503, f"the work took longer than the server's limit of "
                                 f"{self._limits.work_seconds:g} s and was stopped")


class Scheduler:
    """The lanes (``play``, ``study``) and the requests' way into them."""

    def __init__(self, limits: Limits, study_workers: int,
                 preload: tuple[str, ...] = ()) -> None:
        self.limits = limits
        self._lanes: dict[str, Lane] = {
            "play": Lane("play", limits.play_workers, limits, preload),
            "study": Lane("study", study_workers, limits, preload, STUDY_NICENESS),
        }
        self._ids = itertools.count(1)

    async def run(self, lane: LaneName, client: ClientKey, work: Callable[..., Any],
                  args: tuple[Any, ...]) -> Answer:
        """``work(*args)`` in a worker process of ``lane``, in ``client``'s turn: its answer,
        or a 503 past the queue's bounds or the time limits. Cancelled (the client left), the
        request leaves the queue or its work is stopped."""
        loop = asyncio.get_running_loop()
        item = Pending(Job(next(self._ids), work, args, self.limits.answer_bytes), client,
                       loop, loop.create_future())
        chosen = self._lanes[lane]
        refusal = chosen.submit(item)
        if refusal is not None:
            return error_answer(503, refusal, RETRY_AFTER)
        try:
            try:
                return await asyncio.wait_for(asyncio.shield(item.future),
                                              self.limits.wait_seconds)
            except TimeoutError:
                if chosen.withdraw(item):
                    return error_answer(503, f"the server is busy: no worker was free within "
                                             f"{self.limits.wait_seconds:g} s; ask again in a "
                                             "while", RETRY_AFTER)
                return await item.future  # at work: its own time limit ends it
        except asyncio.CancelledError:
            chosen.abandon(item)
            raise

    def waiting(self) -> int:
        """The requests waiting for a worker now, in every lane."""
        return sum(lane.waiting() for lane in self._lanes.values())

    def pids(self) -> list[int]:
        """The worker processes running now."""
        return [pid for lane in self._lanes.values() for pid in lane.pids()]

    def close(self) -> None:
        """Stop every worker process now, work under way included; requests waiting are
        answered with a 503."""
        for lane in self._lanes.values():
            lane.close()
