"""The web server under concurrent clients (a real uvicorn on a free loopback port, small
limits): the queue is bounded (a 503 with a JSON error past it), one client's many requests
do not hold up another's, a game's work never waits behind study, the work of a client that
left is stopped, every request's work is bounded in time and its answer in size, a long
record is refused before any work, a body that does not come is a 408, and the requests held
at once are bounded. The long work is real: checking a legal record of hundreds of deals."""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import Awaitable, Iterator
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
httpx = pytest.importorskip("httpx", reason="the tests' HTTP client")

from popejoan_solver.model.deal import deal_random  # noqa: E402
from popejoan_solver.model.notation import deal_to_line  # noqa: E402
from popejoan_solver.model.rules import get_ruleset  # noqa: E402
from popejoan_solver.web.app import create_app  # noqa: E402
from popejoan_solver.web.limits import Limits  # noqa: E402
from tests.web_helpers import long_record, serving  # noqa: E402

LINE = deal_to_line(deal_random(4, 3, get_ruleset("hoyle-modernized")))
SHORT = long_record(1)
"""A one-deal record: its check is a few milliseconds of work."""

LIMITS = Limits(queue=3, per_address=3, per_client=2, study_workers=1, play_workers=1,
                work_seconds=2.0, cancel_seconds=1.0, record_deals=10_000,
                answer_bytes=64 << 20)
"""One worker per lane, three requests waiting at most, two per client; records of any
length (the check of :func:`long` is seconds of work, cut at 2 s)."""


def long() -> str:
    """A record whose check takes the server longer than its 2 s limit (~7 s of work)."""
    return long_record(1500)


APP = create_app(LIMITS)
"""The app the module's server serves (its scheduler tells its workers' pids)."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    long()  # made before the clock of any test starts
    with serving(APP) as url:
        asyncio.run(_warm(url))
        yield url


async def _warm(url: str) -> None:
    """Both lanes' workers started (a worker takes a second or two to start)."""
    async with client(url, "warm") as warm:
        answers = await asyncio.gather(warm.post("/api/check", content=SHORT),
                                       warm.post("/api/table", json={"deal": LINE}))
    assert [a.status_code for a in answers] == [200, 200]


@pytest.fixture(autouse=True)
def idle_after(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test, the lanes idle again: a quick request in each is answered (what a
    test's clients left behind was stopped or dropped)."""
    yield
    if "server" in request.fixturenames:
        asyncio.run(_warm(request.getfixturevalue("server")))


def starlette_client(app: Any) -> Any:
    """Starlette's test client (its warning about httpx silenced)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        return TestClient(app)


def client(url: str, name: str) -> Any:
    """A client of its own (its own connections and ``X-Client-Id``)."""
    return httpx.AsyncClient(base_url=url, headers={"x-client-id": name},
                             timeout=httpx.Timeout(60.0))


class Finished:
    """When each named request was answered, and how."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.answers: dict[str, Any] = {}
        self.started = time.monotonic()
        self.at: dict[str, float] = {}

    async def track(self, name: str, request: Awaitable[Any]) -> Any:
        answer = await request
        self.order.append(name)
        self.answers[name] = answer
        self.at[name] = time.monotonic() - self.started
        return answer


async def _leave(*tasks: asyncio.Task[Any]) -> None:
    """The clients of ``tasks`` hang up (their requests cancelled, connections closed)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# ----------------------------------------------------------------------------- the queue

def test_past_the_queue_a_request_is_a_503_with_a_json_error_at_once(server: str) -> None:
    """One request at work and three waiting (from three clients): the next is refused at
    once, with a 503, a JSON error and Retry-After, while the others go on."""
    async def scenario() -> None:
        clients = [client(server, f"q{k}") for k in range(5)]
        done = Finished()
        running = asyncio.create_task(done.track("0", clients[0].post("/api/check",
                                                                      content=long())))
        await asyncio.sleep(0.5)  # at work
        waiting = [asyncio.create_task(done.track(str(k), clients[k].post(
            "/api/check", content=long()))) for k in (1, 2, 3)]
        await asyncio.sleep(0.5)  # queued
        refused = await done.track("4", clients[4].post("/api/check", content=SHORT))
        assert refused.status_code == 503
        assert "busy" in refused.json()["error"]
        assert refused.headers["retry-after"] == "5"
        assert done.order == ["4"]  # at once: the one at work is not done
        await _leave(running, *waiting)
        for each in clients:
            await each.aclose()
    asyncio.run(scenario())


def test_one_client_has_its_share_of_the_queue_not_all_of_it(server: str) -> None:
    """A client with two requests waiting (its share) is refused a third, while another
    client's request is still taken."""
    async def scenario() -> None:
        greedy, other = client(server, "greedy"), client(server, "other")
        tasks = [asyncio.create_task(greedy.post("/api/check", content=long()))]
        await asyncio.sleep(0.5)  # at work
        tasks += [asyncio.create_task(greedy.post("/api/check", content=long()))
                  for _ in range(2)]
        await asyncio.sleep(0.5)  # its two waiting
        third = await greedy.post("/api/check", content=SHORT)
        assert third.status_code == 503
        assert "this client's requests are waiting" in third.json()["error"]
        theirs = asyncio.create_task(other.post("/api/check", content=SHORT))
        await asyncio.sleep(0.5)
        assert not theirs.done()  # taken, waiting its turn (not refused)
        await _leave(*tasks, theirs)
        await greedy.aclose()
        await other.aclose()
    asyncio.run(scenario())


def test_one_clients_many_requests_do_not_hold_up_anothers(server: str) -> None:
    """Client A has one request at work and two waiting; B's one request, sent after them,
    is answered next, before A's second."""
    async def scenario() -> None:
        a, b = client(server, "a"), client(server, "b")
        done = Finished()
        tasks = [asyncio.create_task(done.track("a1", a.post("/api/check", content=long())))]
        await asyncio.sleep(0.5)
        tasks += [asyncio.create_task(done.track(f"a{k}", a.post("/api/check",
                                                                 content=long())))
                  for k in (2, 3)]
        await asyncio.sleep(0.5)
        mine = await done.track("b", b.post("/api/check", content=SHORT))
        assert mine.status_code == 200
        assert done.order == ["a1", "b"]  # A's first (cut at the time limit), then B's
        await _leave(*tasks[1:])
        await a.aclose()
        await b.aclose()
    asyncio.run(scenario())


def test_a_games_work_never_waits_behind_study(server: str) -> None:
    """While study is busy (a long check at work, advice waiting, from two clients),
    another client's bot move and table are answered at once: the game has workers of its
    own."""
    async def scenario() -> None:
        students = [client(server, f"student{k}") for k in (1, 2)]
        player = client(server, "player")
        done = Finished()
        advice = {"deal": LINE, "samples": 200}
        tasks = [asyncio.create_task(done.track("check", students[0].post(
            "/api/check", content=long())))]
        await asyncio.sleep(0.5)
        tasks += [asyncio.create_task(done.track(f"advice{k}", students[k % 2].post(
            "/api/advice", json=advice))) for k in range(3)]
        await asyncio.sleep(0.3)
        move = await done.track("bot", player.post("/api/bot", json={"deal": LINE,
                                                                     "bot": "hoyle"}))
        table = await done.track("table", player.post("/api/table", json={
            "deal": LINE, "line": [move.json()["step"]]}))
        assert (move.status_code, table.status_code) == (200, 200)
        assert done.order == ["bot", "table"]  # no study work is done yet
        await _leave(*tasks)
        for each in (*students, player):
            await each.aclose()
    asyncio.run(scenario())


def test_light_requests_are_answered_while_long_answers_are_made(server: str) -> None:
    """Long checks from four clients (one at work, three waiting): the page's options, a
    deal and a table are each answered in well under a second."""
    async def scenario() -> None:
        busy = [client(server, f"busy{k}") for k in range(4)]
        tasks = [asyncio.create_task(each.post("/api/check", content=long())) for each in busy]
        await asyncio.sleep(0.5)
        async with client(server, "light") as light:
            for path in ("/api/options", "/api/deal?players=5&seed=2"):
                started = time.monotonic()
                assert (await light.get(path)).status_code == 200
                assert time.monotonic() - started < 1.0, path
            started = time.monotonic()
            assert (await light.post("/api/table", json={"deal": LINE})).status_code == 200
            assert time.monotonic() - started < 1.0
        # the long checks are still at work or waiting; any answered was stopped at the limit
        assert all(task.result().status_code == 503 for task in tasks if task.done())
        await _leave(*tasks)
        for each in busy:
            await each.aclose()
    asyncio.run(scenario())


# ----------------------------------------------------------------------------- stopping work

def test_the_work_of_a_client_that_left_is_stopped(server: str) -> None:
    """Two clients hang up with four long checks, one at work and three waiting: the work
    is stopped at once (the same worker, not a new one, takes the next request) and the
    waiting ones dropped, so another client is answered at once."""
    async def scenario() -> None:
        leaving = [client(server, "leaving1"), client(server, "leaving2")]
        staying = client(server, "staying")
        pids = APP.state.scheduler.pids()
        tasks = [asyncio.create_task(leaving[0].post("/api/check", content=long()))]
        await asyncio.sleep(0.5)
        tasks += [asyncio.create_task(leaving[k % 2].post("/api/check", content=long()))
                  for k in (1, 2, 3)]
        await asyncio.sleep(0.3)
        await _leave(*tasks)
        for each in leaving:
            await each.aclose()
        left = time.monotonic()
        while APP.state.scheduler.waiting() and time.monotonic() < left + 1.0:
            await asyncio.sleep(0.02)  # the server hears of the hang-ups
        assert APP.state.scheduler.waiting() == 0  # the waiting ones were dropped
        started = time.monotonic()
        answer = await staying.post("/api/check", content=SHORT)
        assert answer.status_code == 200
        assert time.monotonic() - started < 1.5  # the checks left had seconds to go
        assert APP.state.scheduler.pids() == pids  # stopped, not killed
        await staying.aclose()
    asyncio.run(scenario())


def test_work_past_its_time_limit_is_stopped_with_a_503(server: str) -> None:
    """Work past the server's limit (2 s here) is stopped, and its request answered with a
    503 that says so, at the limit, not when the work would have ended."""
    async def scenario() -> None:
        async with client(server, "slow") as slow:
            started = time.monotonic()
            answer = await slow.post("/api/check", content=long())
            took = time.monotonic() - started
        assert answer.status_code == 503
        assert answer.json() == {"error": "the work took longer than the server's limit of "
                                          "2 s and was stopped"}
        assert 2.0 <= took < 4.0
    pids = APP.state.scheduler.pids()
    asyncio.run(_warm(server))
    assert APP.state.scheduler.pids() == pids  # stopped, not killed
    asyncio.run(scenario())


# ----------------------------------------------------------------------------- sizes

@pytest.fixture(scope="module")
def small_answers() -> Iterator[Any]:
    """The server's own limits, but for answers of at most 4000 bytes (and a worker per
    lane), through Starlette's test client."""
    app = create_app(Limits(answer_bytes=4000, study_workers=1, play_workers=1))
    try:
        with starlette_client(app) as http:
            yield http
    finally:
        app.state.scheduler.close()


def test_a_record_longer_than_the_web_takes_is_refused_before_its_work(
        small_answers: Any) -> None:
    """A legal record of 150 deals (a second of work and 1 MB of answer) is a 400 saying
    the limit of 100, answered at once; as is its loading."""
    record = long_record(150)
    for path in ("/api/check", "/api/load"):
        small_answers.post(path, content=LINE)  # the worker started
        started = time.monotonic()
        answer = small_answers.post(path, content=record)
        assert answer.status_code == 400, answer.text[:200]
        assert answer.json() == {"error": "the web table takes records of at most 100 deals "
                                          "(a longer one: popejoan check)"}
        assert time.monotonic() - started < 1.0


def test_an_answer_past_the_size_limit_is_a_400_saying_so(small_answers: Any) -> None:
    """An answer larger than the limit is not sent (nor all written): a 400 saying why."""
    answer = small_answers.post("/api/check", content=SHORT)  # some 7.5 KB of JSON
    assert answer.status_code == 400
    assert answer.json() == {"error": "the answer is larger than the web server's limit of "
                                      "4000 bytes (the command line has no such limit)"}
    assert small_answers.post("/api/load", content=LINE).status_code == 200  # a smaller one


def test_a_body_that_does_not_come_is_a_408_and_requests_held_are_bounded() -> None:
    """A client that sends its headers and part of its body, then nothing: a 408 once the
    body's time is up. Past the requests the server holds at once, a 503 at once."""
    app = create_app(Limits(body_seconds=1.0, requests=2))

    async def scenario(url: str) -> None:
        host, port = url.removeprefix("http://").split(":")
        stalled = []
        for _ in range(2):
            reader, writer = await asyncio.open_connection(host, int(port))
            writer.write(b"POST /api/table HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         b"Content-Length: 100\r\n\r\n{\"deal\"")
            await writer.drain()
            stalled.append((reader, writer))
        await asyncio.sleep(0.2)
        async with client(url, "third") as third:
            refused = await third.get("/api/options")
        assert refused.status_code == 503
        assert "holds 2 requests" in refused.json()["error"]
        for reader, writer in stalled:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 408 ")
            length = int(head.lower().split(b"content-length: ", 1)[1].split(b"\r\n")[0])
            body = await asyncio.wait_for(reader.readexactly(length), 5)
            assert json.loads(body) == {"error": "the request's body did not arrive in time"}
            writer.close()

    with serving(app) as url:
        asyncio.run(scenario(url))
