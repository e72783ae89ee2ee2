"""The tables a server holds: made, found by id and token, played, watched, stored, expired.

Each table lives in memory as its :class:`~.session.Session` and is written to the
:class:`~.store.Store` as it goes: every decision accepted is committed before anyone is told
of it. A task per table (on the server's event loop) drives it: a bot's turn is computed in a
worker process of the game's lane (never behind study), after the table's pace; a person out of
time has a bot decide for that turn; between deals, the table waits for its people to be ready.
Anyone waiting on the table (a seat's or a watcher's stream) is woken at each change.

While a run waits for a choice, it is held from everyone but the chooser (:mod:`.session`):
their answers and streams stay as before the lead, and a play from any of them, the leader's
own lead too, is answered only once the run is over (an answer at once would show the run
unfinished, and so that someone holds the choice's card).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import re
import secrets
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final

from ...model.errors import clip
from ...model.play import Choice
from ...model.referee import RecordReplay, replay
from ..scheduler import Scheduler
from .answers import AnswerCache, ViewPool
from .decide import decide
from .session import By, Event, EventKind, Session
from .session import replay as replay_session
from .spec import DEFAULT_BOT, PERSON, TableError, TableSpec
from .store import Store

TOKEN_BYTES: Final = 16
_TOKEN: Final = re.compile(r"[0-9a-f]{32}")
_TABLE_ID: Final = re.compile(r"[0-9a-f]{24}")
KEEPALIVE_SECONDS: Final = 15.0


@dataclass(frozen=True)
class TableLimits:
    """How many tables a server holds, how long an idle one is kept, how many streams."""

    tables: int = 64
    idle_seconds: float = 24 * 3600.0
    streams_per_table: int = 32
    streams: int = 256


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Live:
    """A table in memory: its session, its seats' token hashes, and who waits on it."""

    def __init__(self, table_id: str, session: Session, tokens: tuple[str | None, ...],
                 touched: float) -> None:
        self.id = table_id
        self.session = session
        self.tokens = tokens
        self.touched = touched
        self.lock = asyncio.Lock()
        self.changed = asyncio.Event()
        self.turn_started = time.monotonic()
        self.public_started = self.turn_started
        """When the table last changed for everyone (a run held for a choice is no change)."""
        self._public_version = session.version_of(None)
        self.playing: set[int] = set()
        """The players whose play is being answered (one at a time each)."""
        self.streams = 0
        self.task: asyncio.Task[None] | None = None
        self._result: tuple[int, RecordReplay] | None = None
        self.grades: dict[int, Any] = {}
        self.answers = AnswerCache()

    @property
    def version(self) -> int:
        return len(self.session.events)

    def bump(self) -> None:
        """Wake everyone waiting: the table moved on."""
        self.turn_started = time.monotonic()
        public = self.session.version_of(None)
        if public != self._public_version:
            self._public_version, self.public_started = public, self.turn_started
        self.touched = time.time()
        self.changed.set()
        self.changed = asyncio.Event()

    def result(self) -> RecordReplay:
        """The referee's replay of the finished deals (kept until the next one finishes)."""
        done = len(self.session.done)
        if self._result is None or self._result[0] != done:
            self._result = (done, replay(self.session.record()) if done else _empty(self))
        return self._result[1]

    def deadline(self, player: int | None = None, public: bool = False) -> float | None:
        """Seconds left for the decision a person owes, when the table has a time limit: the
        decision the table truly waits for, or (``public``) the one ``player`` (None: a
        watcher) sees awaited: a run held from it counts as its leader's lead still to come,
        timed from when it was that leader's turn."""
        session, spec = self.session, self.session.spec
        if spec.turn_seconds is None:
            return None
        seen = public and session.held_from(player)
        turn = session.public_turn() if seen else session.turn()
        started = self.public_started if seen else self.turn_started
        people = ([turn.player] if turn is not None else list(session.waiting_for()))
        if not any(spec.seats[p] == PERSON for p in people):
            return None
        return round(max(0.0, spec.turn_seconds - (time.monotonic() - started)), 1)

    def player_of(self, authorization: str | None) -> int | None:
        """The player a ``Bearer`` token names (None: no token, a watcher); 403 for a token
        that is no seat's. Compared in constant time."""
        if authorization is None:
            return None
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not _TOKEN.fullmatch(token.strip()):
            raise TableError("the token is not a seat's of this table", 403)
        given = _hash(token.strip())
        found = None
        for player, stored in enumerate(self.tokens):
            if stored is not None and hmac.compare_digest(given, stored):
                found = player
        if found is None:
            raise TableError("the token is not a seat's of this table", 403)
        return found

    def answer(self, player: int | None, with_knowledge: bool = False) -> dict[str, Any]:
        """The answer for ``player`` (from 0; None: a watcher) at the table's version (its
        parts built once per change, :class:`.answers.AnswerCache`)."""
        return self.answers.answer(self.session, self.result(),
                                   self.deadline(player, public=True), player, with_knowledge)


def _empty(live: Live) -> RecordReplay:
    from ...model.record import Record

    spec = live.session.spec
    return RecordReplay(Record(spec.rules, (), (), ("",) * spec.players), (), (), None)


class Hub:
    """Every table of the server."""

    def __init__(self, store: Store, scheduler: Scheduler,
                 limits: TableLimits | None = None) -> None:
        self.store = store
        self.scheduler = scheduler
        self.limits = limits or TableLimits()
        self.tables: dict[str, Live] = {}
        self.streams = 0
        self.views = ViewPool()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sweeper: asyncio.Task[None] | None = None
        for stored in store.load():
            session = replay_session(stored.spec, list(stored.events))
            self.tables[stored.id] = Live(stored.id, session, stored.tokens, stored.touched)

    # ------------------------------------------------------------------ the tables

    def start(self) -> None:
        """Start the tables' drivers on the running loop (again, if the loop changed)."""
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        self._loop = loop
        for live in self.tables.values():
            live.lock, live.changed = asyncio.Lock(), asyncio.Event()
            live.task = loop.create_task(self._drive(live))
        self._sweeper = loop.create_task(self._sweep())

    def find(self, table_id: str) -> Live:
        self.start()
        live = self.tables.get(table_id) if _TABLE_ID.fullmatch(table_id) else None
        if live is None:
            raise TableError(f"no table {clip(table_id)!r} (it may have expired)", 404)
        return live

    def create(self, spec: TableSpec) -> tuple[str, list[tuple[int, str]]]:
        """A new table: its id and each person's (player, token)."""
        self.start()
        self._expire()
        if len(self.tables) >= self.limits.tables:
            raise TableError(f"the server holds {self.limits.tables} tables already (its "
                             "limit): finish or leave one, or ask again later", 503)
        table_id = secrets.token_hex(12)
        tokens = [secrets.token_hex(TOKEN_BYTES) if kind == PERSON else None
                  for kind in spec.seats]
        hashes = tuple(None if t is None else _hash(t) for t in tokens)
        self.store.create(table_id, spec, hashes)
        live = Live(table_id, Session(spec), hashes, time.time())
        self.tables[table_id] = live
        assert self._loop is not None
        live.task = self._loop.create_task(self._drive(live))
        return table_id, [(p, t) for p, t in enumerate(tokens) if t is not None]

    async def apply(self, live: Live, event: Event, version: int | None = None) -> bool:
        """Accept ``event`` (stored before this returns); False when the table moved on since
        ``version`` (a bot's answer come too late). Raises :class:`TableError`."""
        async with live.lock:
            if version is not None and live.version != version:
                return False
            await self._commit(live, event)
        return True

    async def play(self, live: Live, player: int, make: Callable[[], Event],
                   seen: int | None) -> None:
        """A person's play: ``make()`` the event from the table as it stands, refused (409) if
        the table moved on since ``seen`` (the version the seat saw). Sent while a run waits
        for another seat's choice, it is made once the run is over; and a lead that leaves its
        run waiting for another seat's choice is answered once the run is over: till then the
        run is held from this seat, and an answer would show it unfinished."""
        if player in live.playing:
            raise TableError("this seat's last play is still being answered: wait for its "
                             "answer", 409)
        live.playing.add(player)
        try:
            made: int | None = None  # the version this seat saw once its play was made
            while True:
                changed = live.changed
                async with live.lock:
                    session = live.session
                    if made is None and not session.held_from(player):
                        if seen is not None and seen != session.version_of(player):
                            raise TableError(f"the table moved on since version {seen}: look "
                                             "again before playing", 409)
                        await self._commit(live, make())
                        made, changed = live.session.version_of(player), live.changed
                    if made is not None and (not live.session.held_from(player)
                                             or live.session.version_of(player) != made):
                        return  # its run is over (the next may be held: as before its lead)
                await changed.wait()
                if live.id not in self.tables:
                    raise TableError("the table was closed (idle too long)", 404)
        finally:
            live.playing.discard(player)

    async def _commit(self, live: Live, event: Event) -> None:
        """Apply ``event`` and store it (the table's lock held), then wake everyone."""
        live.session.apply(event)
        try:  # committed (an fsync) in a thread: the other tables go on meanwhile
            await asyncio.to_thread(self.store.append, live.id, live.version - 1, event)
        except Exception:
            live.session = replay_session(live.session.spec, live.session.events[:-1])
            raise
        live.bump()

    async def view(self, live: Live, player: int | None, with_knowledge: bool = False
                   ) -> dict[str, Any]:
        """The answer for ``player`` (from 0; None: a watcher) at the table's version, the
        people's knowledge built off the event loop (:class:`.answers.ViewPool`), once."""
        async with live.lock:
            wanted = live.answers.wanted(live.session, live.result(), player)
            if wanted is not None:
                players, args = wanted
                built = await self.views.knowledge(args)
                if built is not None:
                    live.answers.keep(live.session, players, built)
            return live.answer(player, with_knowledge)

    # ------------------------------------------------------------------ the drivers

    async def _drive(self, live: Live) -> None:
        """Play the table's bots, time its people out, until the session is over."""
        with contextlib.suppress(asyncio.CancelledError):
            while live.session.phase != "over":
                await self._step(live)

    async def _step(self, live: Live) -> None:
        session, version = live.session, live.version
        spec = session.spec
        turn = session.turn()
        changed = live.changed
        if turn is not None and spec.seats[turn.player] != PERSON:
            if turn.kind == "lead":  # a bot's choice is not waited for: no one sees its run
                await asyncio.sleep(spec.pace)
            await self._bot_turn(live, version, spec.seats[turn.player], By.BOT)
            return
        deadline = live.deadline()
        try:
            await asyncio.wait_for(changed.wait(), deadline)
            return
        except TimeoutError:
            pass
        if turn is not None:
            await self._bot_turn(live, version, DEFAULT_BOT, By.TIMEOUT)
            return
        for player in session.waiting_for():
            await self.apply(live, Event(EventKind.READY, player, 0, By.TIMEOUT),
                             live.version)

    async def _bot_turn(self, live: Live, version: int, spec: str, by: By) -> None:
        session = live.session
        turn = session.turn()
        assert turn is not None
        seat = session.seat_of(turn.player)
        node = session.node
        chooser = node.chooser - 1 if isinstance(node, Choice) else seat  # 0-based, as seat
        args = (spec, session.deal, tuple(session.runs), session.lead, session.path,
                session.spec.seed, str(session.index), session.decisions(chooser))
        answer = await self.scheduler.run("play", (f"table:{live.id}", ""), decide, args)
        if answer.status == 200:
            value = answer.extra
        else:  # busy or broken: the simplest bot decides rather than the table stalling
            print(f"warning: table {live.id[:6]}: bot {clip(spec)} did not answer "
                  f"({answer.status}); the lowest card is played", file=sys.stderr)
            value = decide("lowest", *args[1:]).extra
        kind = EventKind.LEAD if turn.kind == "lead" else EventKind.CHOOSE
        await self.apply(live, Event(kind, turn.player, value, by), version)

    # ------------------------------------------------------------------ watching

    async def watch(self, live: Live, player: int | None) -> AsyncIterator[bytes]:
        """A stream of the table's state for ``player`` (None: a watcher), one server-sent
        event at each change (its ``id`` the table's version), a comment now and then."""
        if live.streams >= self.limits.streams_per_table or \
                self.streams >= self.limits.streams:
            raise TableError("too many streams are open on this server: close another page, "
                             "or ask again later", 503)
        live.streams += 1
        self.streams += 1
        try:
            sent, looked = -1, -1
            last = time.monotonic()
            while True:
                changed = live.changed
                if live.version != looked:
                    looked = live.version
                    answer = await self.view(live, player)
                    if answer["version"] != sent:  # a change this asker may see
                        sent = answer["version"]
                        body = json.dumps(answer, ensure_ascii=False,
                                          separators=(",", ":")).encode()  # one line
                        yield b"id: %d\ndata: %s\n\n" % (sent, body)
                        last = time.monotonic()
                    continue
                try:  # the keep-alive is timed from what was sent, not from hidden changes
                    await asyncio.wait_for(changed.wait(),
                                           max(0.0, last + KEEPALIVE_SECONDS - time.monotonic()))
                except TimeoutError:
                    yield b": still here\n\n"
                    last = time.monotonic()
                if live.id not in self.tables:
                    return
        finally:
            live.streams -= 1
            self.streams -= 1

    # ------------------------------------------------------------------ expiry

    def _expire(self) -> None:
        """Forget the tables idle past the limit (memory and store)."""
        now = time.time()
        for table_id, live in list(self.tables.items()):
            if now - live.touched > self.limits.idle_seconds:
                del self.tables[table_id]
                if live.task is not None:
                    live.task.cancel()
                live.changed.set()
                self.store.delete(table_id)

    async def _sweep(self) -> None:
        with contextlib.suppress(asyncio.CancelledError):
            while True:
                await asyncio.sleep(min(60.0, self.limits.idle_seconds / 2))
                self._expire()

    def close(self) -> None:
        self.views.close()
        for live in self.tables.values():
            if live.task is not None:
                live.task.cancel()
        if self._sweeper is not None:
            self._sweeper.cancel()
        self.store.close()
