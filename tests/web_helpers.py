"""Helpers for the web server's tests: the app served by uvicorn on a free loopback port, a
long legal record (real work for the server that takes seconds), and job functions for the
scheduler's worker processes (imported there by name)."""

from __future__ import annotations

import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.record import (
    DealSeed,
    Record,
    RecordedDeal,
    plays_of_run,
    record_to_text,
)
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.settlement import turnup_award


@contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a thread: its base URL; the
    server and the app's worker processes stopped at the end."""
    import uvicorn

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()
        app.state.scheduler.close()


@cache
def long_record(deals: int, players: int = 4) -> str:
    """A legal record of ``deals`` seeded deals of one session (each played out by its
    lowest legal lead), in the text form: checking 600 deals takes the server seconds of
    pure Python."""
    rules = get_ruleset("hoyle-modernized")
    recorded = []
    for index in range(deals):
        deal = deal_random(players, 7, rules, index)
        position = Position.from_deal(deal)
        plays = []
        if turnup_award(deal, deal.board_or_dressed).deal_is_played:
            while not position.is_over:
                run, position = position.play(min(position.legal_leads()))
                plays.extend(plays_of_run(run))
        recorded.append(RecordedDeal(deal, tuple(plays), seed=DealSeed(7, index, players)))
    return record_to_text(Record(rules, tuple(recorded)))


# ----------------------------------------------------------------------------- jobs
# Run in the scheduler's worker processes, which import this module by name.

def nap(seconds: float) -> dict[str, Any]:
    """Sleep (a stop interrupts it at once), then answer the worker's pid."""
    time.sleep(seconds)
    return {"pid": os.getpid()}


def deaf_nap(seconds: float) -> dict[str, Any]:
    """Sleep deaf to the server's stop (SIGUSR1 blocked): only killing the worker ends it."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    time.sleep(seconds)
    return {"pid": os.getpid()}


def pid() -> dict[str, Any]:
    return {"pid": os.getpid()}


def large(size: int) -> dict[str, Any]:
    return {"text": "x" * size}
