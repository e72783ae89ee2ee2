"""The web table's ASGI application (Starlette): the page, its static files and the JSON API.

Bad input is a 400 with ``{"error": "..."}`` (the command line's message); anything else that
goes wrong is a 500 with a one-line error and no traceback. Searches run in one process per
core, in the order asked, each under a time limit and a bounded transposition table; the
other requests on a few threads.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib.resources import files
from multiprocessing import get_context
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..analysis.textfile import MAX_INPUT_BYTES
from ..cli import json_text
from ..model.errors import PopeJoanError, clip
from ..search.api import usable_cores
from . import handlers

Handler = Callable[[bytes, dict[str, str]], dict[str, Any]]

LIGHT_THREADS = 4
"""Threads for requests that do not search (tables, records, the cache's look-ups)."""


def _json(data: Any, status: int = 200) -> Response:
    """JSON as the command line prints it (two-space indent, non-ASCII kept)."""
    return Response(json_text(data), status_code=status, media_type="application/json")


async def _body(request: Request) -> bytes:
    """The request body, refused past :data:`MAX_INPUT_BYTES` without reading it all."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_INPUT_BYTES:
        raise PopeJoanError(f"the request is larger than {MAX_INPUT_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_INPUT_BYTES:
            raise PopeJoanError(f"the request is larger than {MAX_INPUT_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def _endpoint(handler: Handler, limiter: anyio.CapacityLimiter
              ) -> Callable[[Request], Awaitable[Response]]:
    """A route running ``handler`` on a worker thread, under ``limiter``."""
    async def endpoint(request: Request) -> Response:
        data = await _body(request) if request.method == "POST" else b""
        query = dict(request.query_params)
        result = await anyio.to_thread.run_sync(handler, data, query, limiter=limiter)
        return _json(result)
    return endpoint


def _search_process_init(server: int) -> None:
    """In a search process: Ctrl-C is the server's to handle (it shuts the pool down), and
    the process dies with the server, even by ``kill -9`` (none is left running)."""
    from ..analysis.batch import die_with_parent

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The pid watcher only: Linux's parent-death signal follows the thread that started the
    # process, and an event loop run on a passing thread (Starlette's test client) would
    # take the searches with it.
    die_with_parent(server, thread_bound=False)


class SearchProcessLostError(Exception):
    """A search process died (killed, out of memory) before it answered: not a bug of the
    tool, so a 500 that says so, without a traceback; the next search starts new ones."""


class SearchProcesses:
    """One process per core for the searches: they run side by side (no GIL shared), in the
    order asked, each under its time limit; started at the first search."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    async def run(self, name: str, data: bytes, query: dict[str, str]) -> dict[str, Any]:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                             initializer=_search_process_init,
                                             initargs=(os.getpid(),))
        loop = asyncio.get_running_loop()
        try:
            answer: dict[str, Any] = await loop.run_in_executor(
                self._pool, handlers.search_job, name, data, query)
        except BrokenProcessPool:  # a search process died (killed): new ones next time
            self._pool = None
            raise SearchProcessLostError from None
        return answer

    def close(self) -> None:
        """Stop the processes now, searches under way included (their requests are answered
        or cancelled by then: the server closes them at shutdown)."""
        from ..analysis.batch import stop_pool

        if self._pool is not None:
            stop_pool(self._pool)
            self._pool = None


def _searching(name: str, processes: SearchProcesses
               ) -> Callable[[Request], Awaitable[Response]]:
    """A route whose work (``handlers.search_job(name, ...)``) runs in a search process."""
    async def endpoint(request: Request) -> Response:
        data = await _body(request)
        query = dict(request.query_params)
        return _json(await processes.run(name, data, query))
    return endpoint


def _analyse(light: anyio.CapacityLimiter, processes: SearchProcesses
             ) -> Callable[[Request], Awaitable[Response]]:
    """``POST /api/analyse``: read and looked up in the cache on a light thread; searched,
    when the answer is not known, in a search process (and kept when exact)."""
    async def endpoint(request: Request) -> Response:
        data = await _body(request)
        analysis = await anyio.to_thread.run_sync(handlers.read_analysis, data, limiter=light)
        if analysis.known is not None:
            return _json(analysis.known)
        answer = await processes.run("analyse", data, {})
        if answer["stats"]["exact"]:
            handlers.ANALYSES.put(analysis.key, answer)
        return _json(answer | {"cached": False})
    return endpoint


async def _page(request: Request) -> Response:
    """``GET /``: the page (``?deal=LINE&line=...`` is read by its script)."""
    return HTMLResponse((files(__package__) / "static" / "index.html").read_text("utf-8"))


async def _bad_input(request: Request, exc: Exception) -> Response:
    return _json({"error": clip(str(exc), 400)}, 400)


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "error"
    return _json({"error": clip(str(detail), 200)}, status)


async def _search_process_lost(request: Request, exc: Exception) -> Response:
    print("warning: a search process died (killed?) before it answered; the next search "
          "starts new ones", file=sys.stderr, flush=True)
    return _json({"error": "a search process died (killed?) before it answered: ask again"},
                 500)


async def _internal_error(request: Request, exc: Exception) -> Response:
    """Anything unexpected: one line naming the error's kind, no traceback."""
    if isinstance(exc, MemoryError):
        return _json({"error": "out of memory"}, 503)
    return _json({"error": f"internal error: {type(exc).__name__} (a bug of popejoan: "
                           "please report it)"}, 500)


def _routes(light: anyio.CapacityLimiter, processes: SearchProcesses) -> list[Any]:
    def post(path: str, handler: Handler) -> Route:
        return Route(path, _endpoint(handler, light), methods=["POST"])

    def get(path: str, handler: Handler) -> Route:
        return Route(path, _endpoint(handler, light), methods=["GET"])

    def search(name: str) -> Route:
        return Route(f"/api/{name}", _searching(name, processes), methods=["POST"])

    return [
        Route("/", _page, methods=["GET"]),
        Route("/api/analyse", _analyse(light, processes), methods=["POST"]),
        *(search(name) for name in handlers.SEARCH_JOBS if name != "analyse"),
        post("/api/check", lambda d, q: handlers.api_check(d)),
        post("/api/table", lambda d, q: handlers.api_table(d)),
        post("/api/record", lambda d, q: handlers.api_record(d)),
        post("/api/next", lambda d, q: handlers.api_next(d)),
        post("/api/load", lambda d, q: handlers.api_load(d)),
        get("/api/deal", lambda d, q: handlers.api_deal(q)),
        get("/api/options", lambda d, q: handlers.api_options()),
        Mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static"),
    ]


def create_app() -> Starlette:
    """The application: searches (solving, sampling, bots) in one process per core, in the
    order asked; the other requests on a few threads. ``app.state.processes.close()`` stops
    the search processes."""
    processes = SearchProcesses(usable_cores())
    light = anyio.CapacityLimiter(LIGHT_THREADS)
    app = Starlette(routes=_routes(light, processes), exception_handlers={
        PopeJoanError: _bad_input,
        HTTPException: _http_error,
        SearchProcessLostError: _search_process_lost,
        Exception: _internal_error,
    })
    app.state.processes = processes
    return app
