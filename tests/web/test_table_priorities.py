"""The tables' work comes first on a busy machine: study's worker processes run at a lower
priority than the server (whose event loop answers the tables) and the game's lane, and a
play's commit to disk (an fsync) does not hold the event loop, while the table itself stays
locked until the play is stored."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from popejoan_solver.web.limits import Limits
from popejoan_solver.web.scheduler import STUDY_NICENESS, Scheduler
from popejoan_solver.web.tables.hub import Hub
from popejoan_solver.web.tables.session import By, Event, EventKind
from popejoan_solver.web.tables.spec import read_spec
from popejoan_solver.web.tables.store import Store


def test_study_runs_below_the_game_and_the_server() -> None:
    scheduler = Scheduler(Limits(study_workers=1, play_workers=1), 1)

    async def niceness(lane: Any) -> int:
        answer = await scheduler.run(lane, ("test", ""), os.nice, (0,))
        assert answer.status == 200, answer.body
        value: int = json.loads(answer.body)
        return value

    try:
        own = os.nice(0)
        assert asyncio.run(niceness("play")) == own
        assert asyncio.run(niceness("study")) == min(19, own + STUDY_NICENESS)
    finally:
        scheduler.close()


def test_a_commit_does_not_hold_the_event_loop() -> None:
    store = Store(None)
    entered, gate = threading.Event(), threading.Event()
    append = store.append

    def slow_append(*args: Any) -> None:
        entered.set()
        gate.wait(3)
        append(*args)

    store.append = slow_append  # type: ignore[method-assign]
    scheduler = Scheduler(Limits(study_workers=1, play_workers=1), 1)
    hub = Hub(store, scheduler)

    async def scenario() -> tuple[bool, bool, int]:
        spec = read_spec({"players": 3, "seats": ["person"] * 3, "seed": 4, "pace": 0})
        table_id, _tokens = hub.create(spec)
        live = hub.tables[table_id]
        turn = live.session.turn()
        assert turn is not None
        card = live.session.position.legal_leads()[0]
        task = asyncio.create_task(hub.apply(live, Event(EventKind.LEAD, turn.player, card,
                                                         By.PERSON)))
        await asyncio.sleep(0.3)  # the loop runs on while the commit waits
        running = entered.is_set() and not task.done()
        locked = live.lock.locked()  # no answer is made of the play before it is stored
        gate.set()
        await task
        return running, locked, live.version

    try:
        running, locked, version = asyncio.run(scenario())
    finally:
        gate.set()
        hub.close()
        scheduler.close()
    assert running
    assert locked
    assert version == 1
