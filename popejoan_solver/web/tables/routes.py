"""The tables' endpoints (docs/web.md, "Playing together"): make a table, a seat's or a
watcher's state, a play, readiness for the next deal, the live stream, the record, the grade.

A seat is named by its token, sent as ``Authorization: Bearer TOKEN`` (the page keeps it in
the link's fragment, which no browser sends to a server or a log); no token is a watcher.
Every answer is built for its asker by :mod:`.views`. Errors are ``{"error": ...}`` with 400
(bad input, an illegal play, with the rule's reason), 403 (a token that is no seat's), 404 (no
such table), 409 (not that seat's turn), 503 (the server's limits).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Route

from ...model.cards import parse_card
from ...model.errors import PopeJoanError, clip
from ...model.record import record_to_json, record_to_text
from ..worker import json_bytes
from .grades import grade_deals
from .hub import Hub, Live
from .session import By, Event, EventKind
from .spec import TableError, read_spec

MAX_BODY: Final = 4096
"""A table's requests are small: a spec or a card."""

GRADE_SECONDS: Final = 10.0
PASS_WORDS: Final = ("pass", "-", "decline", "no")


def _json(data: Any, status: int = 200) -> Response:
    """A table's answer in one line (the compiled encoder: a seat's state is asked for at
    every change, and the commands' indented JSON is written by Python code, 20 times
    slower)."""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
    return Response(body.encode(), status, media_type="application/json")


def _error(exc: PopeJoanError) -> Response:
    status = exc.status if isinstance(exc, TableError) else 400
    return _json({"error": clip(str(exc), 400)}, status)


async def _body(request: Request) -> Any:
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise TableError(f"a table's request is at most {MAX_BODY} bytes")
    try:
        return json.loads(data.decode("utf-8")) if data.strip() else {}
    except (UnicodeDecodeError, ValueError):
        raise TableError("the body must be JSON") from None


def _card_text(body: object) -> str:
    """A play's body: ``{"card": "3D"}`` to lead, or, at a choice, ``{"card": "+9D"}`` to
    play the choice's card (the record's notation) and ``{"card": "pass"}`` to decline."""
    if not isinstance(body, dict) or not isinstance(body.get("card", body.get("choice")), str):
        raise TableError("the body must be {\"card\": \"3D\"} (at a choice: \"+9D\" to play "
                         "it, \"pass\" to decline)")
    return str(body.get("card", body.get("choice"))).strip()


def _event(live: Live, player: int, text: str) -> Event:
    """The decision ``text`` names at the table as it stands (a 409 out of turn)."""
    turn = live.session.turn()
    if turn is None or turn.player != player:  # not this seat's turn, whatever it sent
        live.session.apply(Event(EventKind.LEAD, player, 0, By.PERSON))  # raises the 409
    assert turn is not None
    if turn.kind == "choice":
        pending = live.session.pending
        assert pending is not None
        if text.lower() in PASS_WORDS:
            return Event(EventKind.CHOOSE, player, 0, By.PERSON)
        if parse_card(text.removeprefix("+")) == pending.card:
            return Event(EventKind.CHOOSE, player, 1, By.PERSON)
        raise TableError(f"the table waits for your choice: \"+{_name(pending.card)}\" to "
                         "play it or \"pass\"")
    return Event(EventKind.LEAD, player, parse_card(text.removeprefix("+")), By.PERSON)


def _seen(body: object) -> int | None:
    """The table's ``version`` the play was chosen at, if the body says (the page does): a
    play chosen before the table moved on (a bot played for the seat out of time, and the
    seat is to lead again) is refused rather than played where it was not meant."""
    version = body.get("version") if isinstance(body, dict) else None
    if version is not None and (type(version) is not int or version < 0):
        raise TableError(f"'version' must be the table's version the play was chosen at (a "
                         f"whole number), not {clip(repr(version))}")
    return version


def _name(card: int) -> str:
    from ...model.cards import card_name

    return card_name(card)


class TableRoutes:
    """The endpoints over one :class:`Hub`."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def _handled(self, handler: Callable[[Request], Awaitable[Response]]
                 ) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except PopeJoanError as exc:
                return _error(exc)
        return endpoint

    def _live(self, request: Request) -> tuple[Live, int | None]:
        live = self.hub.find(request.path_params["table"])
        return live, live.player_of(request.headers.get("authorization"))

    async def create(self, request: Request) -> Response:
        spec = read_spec(await _body(request))
        table_id, tokens = self.hub.create(spec)
        base = str(request.base_url)
        return _json({"table": table_id,
                      "seats": [{"seat": p + 1, "token": t, "url": f"{base}table/{table_id}#{t}"}
                                for p, t in tokens],
                      "watch": f"{base}table/{table_id}"})

    async def state(self, request: Request) -> Response:
        live, player = self._live(request)
        wanted = request.query_params.get("knowledge", "") in ("1", "true", "yes")
        return _json(await self.hub.view(live, player, wanted))

    async def play(self, request: Request) -> Response:
        live, player = self._live(request)
        if player is None:
            raise TableError("a watcher cannot play: send the seat's token", 403)
        body = await _body(request)
        seen, text = _seen(body), _card_text(body)
        await self.hub.play(live, player, lambda: _event(live, player, text), seen)
        return _json(await self.hub.view(live, player))

    async def ready(self, request: Request) -> Response:
        live, player = self._live(request)
        if player is None:
            raise TableError("a watcher cannot deal: send the seat's token", 403)
        if player not in live.session.ready:
            await self.hub.apply(live, Event(EventKind.READY, player, 0, By.PERSON))
        return _json(await self.hub.view(live, player))

    async def events(self, request: Request) -> Response:
        live, player = self._live(request)
        stream = self.hub.watch(live, player)
        first = await stream.__anext__()  # refused past the limits before the answer starts

        async def body() -> Any:
            yield first
            async for chunk in stream:
                yield chunk
        return StreamingResponse(body(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store",
                                          "X-Accel-Buffering": "no"})

    async def record(self, request: Request) -> Response:
        live = self.hub.find(request.path_params["table"])
        async with live.lock:  # a deal's last play is told of only once it is committed
            record = live.session.record()
        if not record.deals:
            raise TableError("no deal of this table is finished yet", 409)
        if request.query_params.get("format") == "text":
            return Response(record_to_text(record), media_type="text/plain; charset=utf-8")
        return Response(json_bytes(record_to_json(record)),  # as the commands write it
                        media_type="application/json")

    async def grade(self, request: Request) -> Response:
        live, player = self._live(request)
        if player is None:
            raise TableError("a seat's grade needs its token", 403)
        async with live.lock:
            done = list(live.session.done)
        missing = [index for index in range(len(done)) if index not in live.grades]
        if missing:
            args = ([(done[i].deal, done[i].runs) for i in missing],
                    GRADE_SECONDS / len(missing))
            answer = await self.hub.scheduler.run("study", (f"table:{live.id}", "grade"),
                                                  grade_deals, args)
            if answer.status != 200:
                return Response(answer.body, answer.status, media_type="application/json")
            live.grades.update(zip(missing, answer.extra, strict=True))
        session = live.session
        leads = [dict(lead, deal=index + 1, seat=player + 1)
                 for index in range(len(done)) for lead in live.grades[index]
                 if session.player_at(lead["position"] - 1, index) == player]
        return _json({"seat": player + 1, "deals": len(done), "leads": leads,
                      "cost": sum(lead["cost"]["upper"] for lead in leads)})

    async def page(self, request: Request) -> Response:
        self.hub.find(request.path_params["table"])
        return HTMLResponse((files("popejoan_solver.web") / "static" / "table.html")
                            .read_text("utf-8"))

    async def host(self, request: Request) -> Response:
        """``GET /host``: the page's form to open a table."""
        return HTMLResponse((files("popejoan_solver.web") / "static" / "table.html")
                            .read_text("utf-8"))

    def routes(self) -> list[Route]:
        h = self._handled
        return [
            Route("/api/tables", h(self.create), methods=["POST"]),
            Route("/api/tables/{table}", h(self.state), methods=["GET"]),
            Route("/api/tables/{table}/play", h(self.play), methods=["POST"]),
            Route("/api/tables/{table}/ready", h(self.ready), methods=["POST"]),
            Route("/api/tables/{table}/events", h(self.events), methods=["GET"]),
            Route("/api/tables/{table}/record", h(self.record), methods=["GET"]),
            Route("/api/tables/{table}/grade", h(self.grade), methods=["GET"]),
            Route("/table/{table}", h(self.page), methods=["GET"]),
            Route("/host", self.host, methods=["GET"]),
        ]
