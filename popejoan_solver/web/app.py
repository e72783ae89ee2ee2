"""The web table's ASGI application (Starlette): the page, its static files and the JSON API.

Bad input is a 400 with ``{"error": "..."}`` (the command line's message); anything else that
goes wrong is a 500 with a one-line error and no traceback. Requests run on worker threads;
at most one search per core at a time, each under a time limit and a bounded transposition
table.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from importlib.resources import files
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
from . import handlers

Handler = Callable[[bytes, dict[str, str]], dict[str, Any]]

LIGHT_THREADS = 4
"""Threads for requests that do not search (tables, records, the cache's answers)."""


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


def _analyse(search: anyio.CapacityLimiter, light: anyio.CapacityLimiter
             ) -> Callable[[Request], Awaitable[Response]]:
    """``POST /api/analyse``: read and look up on the light threads; search, when the
    answer is not known, in turn for a search thread."""
    async def endpoint(request: Request) -> Response:
        data = await _body(request)
        analysis = await anyio.to_thread.run_sync(handlers.read_analysis, data, limiter=light)
        if analysis.known is not None:
            return _json(analysis.known)
        return _json(await anyio.to_thread.run_sync(handlers.search_analysis, analysis,
                                                    limiter=search))
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


async def _internal_error(request: Request, exc: Exception) -> Response:
    """Anything unexpected: one line naming the error's kind, no traceback."""
    if isinstance(exc, MemoryError):
        return _json({"error": "out of memory"}, 503)
    return _json({"error": f"internal error: {type(exc).__name__} (a bug of popejoan: "
                           "please report it)"}, 500)


def _routes(search: anyio.CapacityLimiter, light: anyio.CapacityLimiter) -> list[Any]:
    def post(path: str, handler: Handler, limiter: anyio.CapacityLimiter) -> Route:
        return Route(path, _endpoint(handler, limiter), methods=["POST"])

    def get(path: str, handler: Handler) -> Route:
        return Route(path, _endpoint(handler, light), methods=["GET"])

    return [
        Route("/", _page, methods=["GET"]),
        post("/api/solve", handlers.api_solve, search),
        Route("/api/analyse", _analyse(search, light), methods=["POST"]),
        post("/api/bot", lambda d, q: handlers.api_bot(d), search),
        post("/api/advice", lambda d, q: handlers.api_advice(d), search),
        post("/api/view", lambda d, q: handlers.api_view(d), search),
        post("/api/check", lambda d, q: handlers.api_check(d), light),
        post("/api/table", lambda d, q: handlers.api_table(d), light),
        post("/api/record", lambda d, q: handlers.api_record(d), light),
        post("/api/load", lambda d, q: handlers.api_load(d), light),
        get("/api/deal", lambda d, q: handlers.api_deal(q)),
        get("/api/options", lambda d, q: handlers.api_options()),
        Mount("/static", StaticFiles(packages=[(__package__, "static")]), name="static"),
    ]


def create_app() -> Starlette:
    """The application: at most one search per core at a time (solving, sampling, bots), in
    the order asked; the other requests on a few threads of their own."""
    search = anyio.CapacityLimiter(len(os.sched_getaffinity(0)))
    light = anyio.CapacityLimiter(LIGHT_THREADS)
    return Starlette(routes=_routes(search, light), exception_handlers={
        PopeJoanError: _bad_input,
        HTTPException: _http_error,
        Exception: _internal_error,
    })
