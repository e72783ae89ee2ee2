"""The web table's ASGI application (Starlette): the page, its static files and the JSON API.

Every request's work runs in the server's worker processes (:mod:`.scheduler`): the game's
(the table, bots' moves, a seat's view, records) in one lane, study (solve, analyse, advice,
check) in another, each request in its client's turn, bounded in time and in the size of its
answer, its JSON written there; the work of a client that leaves is stopped. Only the two
endpoints that read tables (``/api/deal``, ``/api/options``) and an analysis already known
are answered here, on a few threads. Bad input is a 400 with ``{"error": "..."}`` (the
command line's message); a server busy past its bounds a 503; anything else that goes wrong a
500 with a one-line error and no traceback. :mod:`.guard` checks who asks.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from importlib.resources import files
from pathlib import Path
from typing import Any, Final

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..model.errors import PopeJoanError, clip
from ..search.api import usable_cores
from . import handlers
from .cache import AnswerCache
from .fairness import ClientKey
from .guard import Guard
from .limits import Limits
from .scheduler import LaneName, Scheduler
from .tables.hub import Hub, TableLimits
from .tables.routes import TableRoutes
from .tables.store import Store
from .worker import Answer, json_bytes

LIGHT_THREADS: Final = 4
"""Threads for what is answered in the server itself (tables, analyses already known)."""

PLAY_JOBS: Final = ("table", "bot", "view", "record", "next", "load")
"""The endpoints whose work is the game's (the ``play`` lane): quick, never behind study."""

STUDY_JOBS: Final = ("solve", "advice", "check")
"""The endpoints whose work is study (the ``study`` lane), with ``/api/analyse``'s search."""

CLIENT_ID_HEADER: Final = "x-client-id"
"""The header a page names its client by (a random id per tab), for each client's turn."""

_CLIENT_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")

TEST_CLIENT_HOST: Final = "testserver"
"""The name Starlette's test client sends as ``Host``, allowed by :func:`create_app`'s
default (``popejoan serve`` gives its own names)."""


class SlowBodyError(Exception):
    """A request's body did not arrive within the limit."""


def client_of(request: Request) -> ClientKey:
    """The client a request comes from: its address, and the ``X-Client-Id`` its page sends
    (ignored unless 1 to 64 letters, digits, ``-`` or ``_``)."""
    address = request.client.host if request.client else ""
    given = request.headers.get(CLIENT_ID_HEADER, "")
    return address, given if _CLIENT_ID.fullmatch(given) else ""


def _respond(answer: Answer) -> Response:
    return Response(answer.body, status_code=answer.status, media_type="application/json",
                    headers=dict(answer.headers))


async def _disconnected(request: Request) -> None:
    """Return once the client has closed its connection (the body has been read)."""
    while (await request.receive())["type"] != "http.disconnect":
        pass


async def _unless_gone(request: Request, work: Awaitable[Answer]) -> Answer | None:
    """``work``'s answer; None, with the work cancelled, if the client leaves first."""
    task = asyncio.ensure_future(work)
    watch = asyncio.ensure_future(_disconnected(request))
    try:
        await asyncio.wait((task, watch), return_when=asyncio.FIRST_COMPLETED)
    finally:
        for pending in (task, watch):
            pending.cancel()
        await asyncio.gather(task, watch, return_exceptions=True)
    return task.result() if task.done() and not task.cancelled() else None


class _Server:
    """What the endpoints share: the limits, the scheduler, the threads for light work and
    the analyses already known."""

    def __init__(self, limits: Limits, scheduler: Scheduler) -> None:
        self.limits = limits
        self.scheduler = scheduler
        self.light = anyio.CapacityLimiter(LIGHT_THREADS)
        self.analyses = AnswerCache()

    async def body(self, request: Request) -> bytes:
        """The request body, refused past the size limit without reading it all, and past
        the time limit (408)."""
        limit = self.limits.body_bytes
        too_large = f"the request is larger than {limit} bytes"
        length = request.headers.get("content-length", "")
        if length.isdigit() and (len(length) > 15 or int(length) > limit):
            raise PopeJoanError(too_large)
        chunks, size = [], 0
        try:
            with anyio.fail_after(self.limits.body_seconds):
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise PopeJoanError(too_large)
                    chunks.append(chunk)
        except TimeoutError:
            raise SlowBodyError from None
        return b"".join(chunks)

    async def run(self, request: Request, lane: LaneName, name: str,
                  data: bytes) -> Answer | None:
        """The endpoint ``name``'s work in ``lane``; None if the client left first."""
        args = (name, data, dict(request.query_params), self.limits.record_deals)
        return await _unless_gone(request, self.scheduler.run(
            lane, client_of(request), handlers.web_job, args))

    def job(self, name: str, lane: LaneName) -> Callable[[Request], Awaitable[Response]]:
        """``POST /api/NAME``, its work in a worker process of ``lane``."""
        async def endpoint(request: Request) -> Response:
            answer = await self.run(request, lane, name, await self.body(request))
            return _respond(answer) if answer is not None else Response(status_code=204)
        return endpoint

    async def analyse(self, request: Request) -> Response:
        """``POST /api/analyse``: read (the game's lane) and looked up among the analyses
        known; searched, when not known, in the study lane (and kept when exact)."""
        keyed = await self.run(request, "play", "analyse-key", await self.body(request))
        if keyed is None or keyed.status != 200:
            return _respond(keyed) if keyed is not None else Response(status_code=204)
        key, search = keyed.extra
        known = self.analyses.get(key)
        if known is not None:
            body = await anyio.to_thread.run_sync(json_bytes, known | {"cached": True},
                                                  limiter=self.light)
            return Response(body, media_type="application/json")
        answer = await self.run(request, "study", "analyse", search)
        if answer is None:
            return Response(status_code=204)
        if answer.status == 200 and answer.extra is not None:
            self.analyses.put(key, answer.extra)
        return _respond(answer)

    def light_work(self, handler: Callable[[Mapping[str, str]], dict[str, Any]]
                   ) -> Callable[[Request], Awaitable[Response]]:
        """``GET /api/...`` answered here, on a light thread (it reads tables only)."""
        async def endpoint(request: Request) -> Response:
            query = dict(request.query_params)
            body = await anyio.to_thread.run_sync(lambda: json_bytes(handler(query)),
                                                  limiter=self.light)
            return Response(body, media_type="application/json")
        return endpoint


async def _page(request: Request) -> Response:
    """``GET /``: the page (``?deal=LINE&line=...`` is read by its script)."""
    return HTMLResponse((files(__package__) / "static" / "index.html").read_text("utf-8"))


async def _bad_input(request: Request, exc: Exception) -> Response:
    return Response(json_bytes({"error": clip(str(exc), 400)}), 400,
                    media_type="application/json")


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "error"
    return Response(json_bytes({"error": clip(str(detail), 200)}), status,
                    media_type="application/json")


async def _slow_body(request: Request, exc: Exception) -> Response:
    return Response(json_bytes({"error": "the request's body did not arrive in time"}), 408,
                    media_type="application/json")


async def _client_gone(request: Request, exc: Exception) -> Response:
    """The client closed its connection while it sent its body: nothing to do, nothing to
    say (the answer goes nowhere)."""
    return Response(status_code=400)


def _routes(server: _Server, tables: TableRoutes) -> list[Any]:
    def job(name: str, lane: LaneName) -> Route:
        return Route(f"/api/{name}", server.job(name, lane), methods=["POST"])

    def get(path: str, handler: Callable[[Mapping[str, str]], dict[str, Any]]) -> Route:
        return Route(path, server.light_work(handler), methods=["GET"])

    return [
        Route("/", _page, methods=["GET"]),
        Route("/api/analyse", server.analyse, methods=["POST"]),
        *(job(name, "play") for name in PLAY_JOBS),
        *(job(name, "study") for name in STUDY_JOBS),
        get("/api/deal", handlers.api_deal),
        get("/api/options", lambda query: handlers.api_options()),
        *tables.routes(),
        Mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static"),
    ]


def create_app(limits: Limits | None = None, *,
               allowed_hosts: Iterable[str] = (TEST_CLIENT_HOST,), data: Path | None = None,
               table_limits: TableLimits | None = None) -> Starlette:
    """The application under ``limits`` (default: the server's, docs/contract.md), answering
    requests whose ``Host`` is an IP address, ``localhost`` or one of ``allowed_hosts``; its
    tables are kept in the folder ``data`` (None: in memory only). ``app.state.scheduler
    .close()`` stops its worker processes (started at the first request of each lane),
    ``app.state.hub.close()`` its tables' drivers and database."""
    limits = limits or Limits()
    scheduler = Scheduler(limits, limits.study_workers or usable_cores(),
                          preload=(handlers.__name__,))
    server = _Server(limits, scheduler)
    hub = Hub(Store(data), scheduler, table_limits)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.start()  # the bots of the tables stored go on playing at once
        yield

    app = Starlette(routes=_routes(server, TableRoutes(hub)), lifespan=lifespan,
                    exception_handlers={
        PopeJoanError: _bad_input,
        HTTPException: _http_error,
        SlowBodyError: _slow_body,
        ClientDisconnect: _client_gone,
    }, middleware=[Middleware(Guard, allowed_hosts=allowed_hosts, limit=limits.requests)])
    app.state.scheduler = scheduler
    app.state.hub = hub
    app.state.limits = limits
    return app
