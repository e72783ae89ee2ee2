"""The web server's scheduler on its own: the fair queue's order and bounds, a worker process
stopped only for the job named (a late stop does nothing to the next job), a worker deaf to
the stop killed and replaced at the grace's end, the answers' JSON as the commands print it
and cut at the size limit, and a shutdown that answers the requests waiting."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest

from popejoan_solver.cli.output import json_text
from popejoan_solver.web.fairness import FairQueue
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.scheduler import Scheduler
from popejoan_solver.web.worker import AnswerTooLargeError, Job, WorkerProcess, json_bytes
from tests import web_helpers
from tests.web.test_serve import alive, children


@dataclass(eq=False)
class Item:
    client: tuple[str, str]
    name: str


def queue(**limits: int) -> FairQueue[Item]:
    return FairQueue(Limits(**({"queue": 8, "per_address": 8, "per_client": 4} | limits)))


def test_clients_take_turns_one_clients_many_after_anothers_one() -> None:
    q = queue()
    a, b = ("1.2.3.4", "a"), ("1.2.3.4", "b")
    for name in ("a1", "a2", "a3"):
        assert q.add(Item(a, name)) is None
    first = q.take()
    assert first is not None
    assert first.name == "a1"
    assert q.add(Item(b, "b1")) is None
    second = q.take()  # A has one at work, B none
    assert second is not None
    assert second.name == "b1"
    q.finished(first)
    q.finished(second)
    order = [q.take() for _ in range(2)]
    assert [i.name for i in order if i is not None] == ["a2", "a3"]
    assert q.take() is None


def test_turns_go_first_to_the_address_with_least_at_work() -> None:
    """Many client ids from one address count together: another address goes first."""
    q = queue()
    busy = [("10.0.0.1", f"id{k}") for k in range(3)]
    for client in busy:
        q.add(Item(client, client[1]))
    q.take()  # one of the busy address's at work
    q.add(Item(("10.0.0.2", ""), "other"))
    taken = q.take()
    assert taken is not None
    assert taken.name == "other"


def test_the_least_recently_served_goes_first_among_equals() -> None:
    q = queue()
    a, b = ("h", "a"), ("h", "b")
    q.add(Item(a, "a1"))
    q.add(Item(b, "b1"))
    for expected in ("a1", "b1"):
        item = q.take()
        assert item is not None
        assert item.name == expected
        q.finished(item)
    q.add(Item(a, "a2"))
    q.add(Item(b, "b2"))
    item = q.take()
    assert item is not None
    assert item.name == "a2"


def test_a_client_that_used_the_workers_longer_waits_behind_one_that_did_not() -> None:
    """Two clients served alike, one for seconds of work, the other for milliseconds: the
    lighter one goes first. Use fades: seconds of work a minute ago (two half-lives) count
    for a quarter against work done now."""
    now = [100.0]
    q: FairQueue[Item] = FairQueue(Limits(), clock=lambda: now[0])
    heavy, light = ("h", "heavy"), ("h", "light")

    def serve(client: tuple[str, str], seconds: float) -> None:
        q.add(Item(client, "x"))
        item = q.take()
        assert item is not None
        q.finished(item, seconds)

    serve(heavy, 4.0)
    serve(light, 0.01)
    heavy2 = Item(heavy, "heavy2")
    q.add(heavy2)
    q.add(Item(light, "light2"))
    item = q.take()
    assert item is not None
    assert item.name == "light2"  # 0.01 s against 4 s
    q.finished(item, 0.0)
    assert q.remove(heavy2)
    now[0] += 60.0
    serve(light, 1.5)  # the light one, now: 1.5 s; the heavy one's 4 s, a minute ago: 1 s
    q.add(Item(light, "light3"))
    q.add(Item(heavy, "heavy3"))
    item = q.take()
    assert item is not None
    assert item.name == "heavy3"


def test_a_client_that_used_the_workers_longer_is_not_kept_waiting_for_good() -> None:
    """The heavier client's request, once it has waited longer than the work it used (4 s),
    goes before a lighter client's request that has just come."""
    now = [100.0]
    q: FairQueue[Item] = FairQueue(Limits(), clock=lambda: now[0])
    heavy, light = ("h", "heavy"), ("h", "light")
    q.add(Item(heavy, "x"))
    item = q.take()
    assert item is not None
    q.finished(item, 4.0)
    q.add(Item(heavy, "heavy2"))
    now[0] += 3.0
    q.add(Item(light, "light-early"))  # 4 - 3 against 0: the light one first
    item = q.take()
    assert item is not None
    assert item.name == "light-early"
    q.finished(item, 0.01)
    now[0] += 2.0
    q.add(Item(light, "light-late"))  # 4 - 5 against 0.01: the heavy one now
    item = q.take()
    assert item is not None
    assert item.name == "heavy2"


def test_a_client_has_at_most_its_share_of_the_workers_at_once() -> None:
    """With at most one at work per client (two workers: one kept for the others), a
    client's second request waits even with a worker free, until its first is done."""
    q: FairQueue[Item] = FairQueue(Limits(), at_once=1)
    a, b = ("h", "a"), ("h", "b")
    q.add(Item(a, "a1"))
    q.add(Item(a, "a2"))
    first = q.take()
    assert first is not None
    assert q.take() is None  # a2 waits: A has one at work
    q.add(Item(b, "b1"))
    second = q.take()
    assert second is not None
    assert second.name == "b1"
    q.finished(first)
    third = q.take()
    assert third is not None
    assert third.name == "a2"


def test_the_queue_is_bounded_in_all_per_address_and_per_client() -> None:
    q = queue(queue=4, per_address=3, per_client=2)
    assert q.add(Item(("h", "a"), "1")) is None
    assert q.add(Item(("h", "a"), "2")) is None
    refusal = q.add(Item(("h", "a"), "3"))
    assert refusal is not None
    assert "this client's requests" in refusal
    assert q.add(Item(("h", "b"), "4")) is None
    refusal = q.add(Item(("h", "c"), "5"))
    assert refusal is not None
    assert "from this address" in refusal
    assert q.add(Item(("127.0.0.1", "x"), "6")) is None  # loopback: any number of clients
    refusal = q.add(Item(("f", ""), "7"))
    assert refusal is not None
    assert "busy: 4 requests are waiting" in refusal
    assert q.size == 4


def test_loopback_has_no_bound_of_its_own_beyond_the_queues() -> None:
    """Every client of this machine (each tab) shares its address: a remote address stops at
    its bound, loopback at the queue's."""
    q = queue(queue=6, per_address=2, per_client=2)
    for k in range(3):
        assert q.add(Item(("::1", f"tab{k}"), str(k))) is None
    assert q.add(Item(("192.168.1.5", "a"), "a")) is None
    assert q.add(Item(("192.168.1.5", "b"), "b")) is None
    refusal = q.add(Item(("192.168.1.5", "c"), "c"))
    assert refusal is not None
    assert "from this address" in refusal


def test_a_request_taken_out_is_not_served() -> None:
    q = queue()
    keep, drop = Item(("h", "a"), "keep"), Item(("h", "a"), "drop")
    q.add(drop)
    q.add(keep)
    assert q.remove(drop)
    assert not q.remove(drop)
    taken = q.take()
    assert taken is keep
    assert q.take() is None


@pytest.mark.parametrize("data", [{"a": [1, "é", None, {"b": 2.5}]}, [], {"error": "x\ny"}])
def test_answers_are_written_as_the_commands_print_json(data: Any) -> None:
    assert json_bytes(data) == json_text(data).encode()


def test_an_answer_past_the_limit_stops_being_written() -> None:
    with pytest.raises(AnswerTooLargeError, match="limit of 1000 bytes"):
        json_bytes({"text": "x" * 10**6}, 1000)
    assert json_bytes({"a": 1}, 13) == b'{\n  "a": 1\n}\n'


def test_a_worker_closed_by_two_threads_at_once_is_closed_once() -> None:
    """A shutdown and the thread that saw the worker die may close it at the same moment:
    its pipe is closed once (twice, the second close failed with EBADF, or closed a file
    another thread had just opened)."""
    worker = WorkerProcess()
    real = worker._connection
    closes: list[int] = []

    class SlowPipe:
        def close(self) -> None:
            closes.append(1)
            time.sleep(0.2)  # the other thread arrives while this one is closing
            real.close()

    worker._connection = SlowPipe()  # type: ignore[assignment]
    threads = [threading.Thread(target=worker.close) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert closes == [1]
    assert not worker.alive()


def test_a_worker_stops_only_the_job_named() -> None:
    """A stop for a job already done does nothing to the one at work; a stop for the one at
    work ends it at once, and the worker takes the next job."""
    worker = WorkerProcess()
    try:
        assert worker.started(60)
        worker.send(Job(2, web_helpers.nap, (0.5,), 1 << 20))
        time.sleep(0.1)
        worker.stop(1)  # late: job 1 is over
        assert worker.ready(10)
        answer = worker.receive()
        assert (answer.status, answer.cancelled) == (200, False)
        assert json.loads(answer.body)["pid"] == worker.pid
        worker.send(Job(3, web_helpers.nap, (30.0,), 1 << 20))
        time.sleep(0.2)
        started = time.monotonic()
        worker.stop(3)
        assert worker.ready(5)
        assert worker.receive().cancelled
        assert time.monotonic() - started < 1.0
        worker.send(Job(4, web_helpers.pid, (), 1 << 20))
        assert worker.ready(10)
        assert json.loads(worker.receive().body)["pid"] == worker.pid
    finally:
        worker.close()


def test_a_worker_deaf_to_the_stop_is_killed_and_replaced() -> None:
    limits = Limits(work_seconds=0.5, cancel_seconds=0.5, study_workers=1)
    scheduler = Scheduler(limits, 1)

    async def scenario() -> None:
        warm = await scheduler.run("study", ("h", "a"), web_helpers.pid, ())
        before = json.loads(warm.body)["pid"]
        started = time.monotonic()
        answer = await scheduler.run("study", ("h", "a"), web_helpers.deaf_nap, (30.0,))
        assert answer.status == 503
        assert "longer than the server's limit of 0.5 s" in json.loads(answer.body)["error"]
        assert time.monotonic() - started < 3.0
        after = await scheduler.run("study", ("h", "a"), web_helpers.pid, ())
        assert json.loads(after.body)["pid"] != before

    try:
        asyncio.run(scenario())
    finally:
        scheduler.close()


def test_a_shutdown_answers_the_requests_waiting_and_ends_the_workers() -> None:
    scheduler = Scheduler(Limits(study_workers=1), 1)

    async def scenario() -> list[Any]:
        await scheduler.run("study", ("h", "a"), web_helpers.pid, ())
        busy = asyncio.ensure_future(scheduler.run("study", ("h", "a"), web_helpers.nap,
                                                   (30.0,)))
        await asyncio.sleep(0.3)  # at work
        waiting = asyncio.ensure_future(scheduler.run("study", ("h", "b"), web_helpers.pid,
                                                      ()))
        await asyncio.sleep(0.5)
        pids = scheduler.pids()
        await asyncio.get_running_loop().run_in_executor(None, scheduler.close)
        answers = await asyncio.gather(busy, waiting)
        assert scheduler.pids() == []
        return [pids, *answers]

    pids, busy, waiting = asyncio.run(scenario())
    assert [busy.status, waiting.status] == [503, 503]
    assert json.loads(waiting.body) == {"error": "the server is shutting down"}
    left = set(children(os.getpid()))  # by parent: a pid of a process gone may be reused
    assert not [pid for pid in pids if pid in left and alive(pid)]
