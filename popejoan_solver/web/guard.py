"""The web server's door (ASGI middleware): who may ask, and what every answer carries.

- ``Host`` must name this server: an IP address, ``localhost`` (or a name under it), or a name
  it was told (``--host``, ``--allow-host``); another name is a page that rebound its own name
  to this address (DNS rebinding): a 403.
- A ``POST`` from a page of another site (its ``Origin`` not this server's, or ``null``) is a
  403 before its body is read: a page elsewhere cannot make the server compute. A request
  without ``Origin`` (curl, scripts) is not a browser's cross-site request.
- At most ``limit`` requests are held at once; past it, a 503 at once.
- Every answer carries a Content-Security-Policy (scripts, styles and connections from the
  page's own origin only, no framing), ``X-Content-Type-Options: nosniff``,
  ``X-Frame-Options: DENY`` and ``Referrer-Policy: no-referrer`` (the address holds the deal).
- A failure of the server itself is a 500 with one line, and one ``warning:`` line on its
  terminal, never a traceback.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterable
from typing import Final
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..model.errors import clip
from .worker import internal_error, json_bytes

CONTENT_SECURITY_POLICY: Final = (
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'")
"""The page's script and style are files of its own (no inline code); its icon is a data:
URL; nothing may frame it."""

SECURITY_HEADERS: Final = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
)

SAFE_METHODS: Final = frozenset({"GET", "HEAD", "OPTIONS"})


def _split_host(host: str) -> tuple[str, int | None] | None:
    """A ``Host`` header's name (lower case, no brackets or final dot) and port; None when it
    is not one."""
    try:
        parts = urlsplit(f"//{host}")
        port = parts.port
    except ValueError:
        return None
    name = (parts.hostname or "").rstrip(".")
    if not name or parts.username is not None or parts.path or parts.query:
        return None
    return name, port


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(host: str, names: frozenset[str]) -> bool:
    """Whether a ``Host`` header names this server: an IP address (a rebound name is never
    one), ``localhost`` or a name under it (the browser keeps those on this machine), or one
    of ``names``."""
    split = _split_host(host)
    if split is None:
        return False
    name = split[0]
    return (_is_address(name) or name == "localhost" or name.endswith(".localhost")
            or name in names)


def _same_origin(origin: str, host: str, scheme: str) -> bool:
    """Whether ``Origin`` is the origin the request was sent to (``Host`` and the scheme)."""
    try:
        parts = urlsplit(origin)
        origin_port = parts.port
    except ValueError:
        return False
    split = _split_host(host)
    if parts.scheme not in ("http", "https") or not parts.hostname or split is None:
        return False
    defaults = {"http": 80, "https": 443}
    return ((parts.hostname.rstrip("."), origin_port or defaults[parts.scheme])
            == (split[0], split[1] or defaults.get(scheme, 80)))


class Guard:
    """The ASGI middleware that checks each request's ``Host`` and ``Origin``, bounds the
    requests held at once, and adds the security headers to every answer."""

    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str], limit: int) -> None:
        self.app = app
        self.names = frozenset(name.lower().strip("[]").rstrip(".") for name in allowed_hosts)
        self.limit = limit
        self._held = 0
        self._lock = threading.Lock()  # a test client runs each request on a loop of its own

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = {**message, "headers": [*message.get("headers", []),
                                                  *SECURITY_HEADERS]}
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            await _answer(send_with_headers, *refusal)
            return
        if is_stream(scope):  # held for as long as a page is open: bounded by the tables
            await self.app(scope, receive, send_with_headers)
            return
        with self._lock:
            full = self._held >= self.limit
            self._held += 0 if full else 1
        if full:
            await _answer(send_with_headers, 503, f"the server holds {self.limit} requests "
                          "already (its limit): ask again in a while", (b"retry-after", b"5"))
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:  # a bug of the server: one line, no traceback
            message = internal_error(exc)
            if not started:
                await _answer(send_with_headers, *((503, "out of memory")
                                                   if isinstance(exc, MemoryError)
                                                   else (500, message)))
        finally:
            with self._lock:
                self._held -= 1

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        """Why the request is refused (its status and message), or None."""
        headers = Headers(scope=scope)
        host = headers.get("host")
        if host is not None and not host_allowed(host, self.names):
            return 403, (f"this server is not {clip(host)!r} (a name it was not told: "
                         "popejoan serve --allow-host NAME)")
        if scope["method"] in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if headers.get("sec-fetch-site") == "cross-site" or (
                origin is not None and not _same_origin(origin, host or "",
                                                        scope.get("scheme", "http"))):
            return 403, (f"a request from another site ({clip(origin or 'cross-site')}) is "
                         "refused: the web table answers its own page only")
        return None


def is_stream(scope: Scope) -> bool:
    """Whether the request is a table's live stream (``GET /api/tables/ID/events``)."""
    path = str(scope.get("path", ""))
    return scope["method"] == "GET" and path.startswith("/api/tables/") and \
        path.endswith("/events")


async def _answer(send: Send, status: int, message: str,
                  *headers: tuple[bytes, bytes]) -> None:
    body = json_bytes({"error": message})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})

