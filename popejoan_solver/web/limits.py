"""The web server's limits: how much one request may send, ask for and get back, how long its
work may take, and how many requests may wait, in all and per client (docs/contract.md).

One frozen value, given to :func:`popejoan_solver.web.app.create_app`; the defaults are the
server's, and tests give small ones.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Final

from ..files.reading import MAX_INPUT_BYTES
from ..model.errors import PopeJoanError

MAX_ANSWER_BYTES: Final = 4 << 20
"""An answer's JSON: the check of a 100-deal record, the largest answer the page asks for, is
under 1 MiB."""

MAX_RECORD_DEALS: Final = 100
"""Deals in a record the web checks or loads: a session of ``popejoan match`` at most (the
command line's ``check`` takes 10,000)."""


@dataclass(frozen=True)
class Limits:
    """Every bound the server puts on a request (sizes in bytes, times in seconds)."""

    body_bytes: int = MAX_INPUT_BYTES
    """A request's body, as a deal or record file (1 MiB)."""
    answer_bytes: int = MAX_ANSWER_BYTES
    """An answer's JSON; past it, a 400 saying so (the work is stopped there)."""
    record_deals: int = MAX_RECORD_DEALS
    """Deals in a record given to ``/api/check`` or ``/api/load``."""
    body_seconds: float = 30.0
    """Reading a request's body (a client sending it slower is a 408)."""
    work_seconds: float = 15.0
    """One request's work in a worker process, start to answer: a search's own limit (10 s
    at most) and the reading and writing around it; past it the work is stopped, a 503."""
    wait_seconds: float = 60.0
    """Waiting for a worker; past it, a 503."""
    cancel_seconds: float = 2.0
    """A worker told to stop a request's work has this long before it is killed (and
    replaced)."""
    queue: int = 32
    """Requests waiting for a worker, in each lane (play, study); past it, a 503."""
    per_address: int = 24
    """... of them from one address (one machine, whatever client ids it sends): the rest of
    the queue stays for the others. Not for loopback, whose clients are all this machine's."""
    per_client: int = 4
    """... of them from one client (its ``X-Client-Id`` and address)."""
    requests: int = 128
    """Requests the server holds at once (reading, waiting, at work, answering); past it, a
    503 before the body is read."""
    study_workers: int = 0
    """Worker processes for study (solve, analyse, advice, check); 0: one per usable core."""
    play_workers: int = 2
    """Worker processes for the game (the table, bots' moves, a seat's view, records)."""

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if field.type == "float":  # seconds: a finite number above 0
                what = "a number of seconds above 0"
                good = (isinstance(value, (int, float)) and not isinstance(value, bool)
                        and math.isfinite(value) and value > 0)
            else:  # a count: a whole number from 1 (study_workers: 0, one per core)
                what = "a whole number from 1"
                good = (type(value) is int
                        and value >= (0 if field.name == "study_workers" else 1))
            if not good:
                raise PopeJoanError(f"web limit {field.name}: {value!r} is not {what}")
        if not self.per_client <= self.per_address <= self.queue:
            raise PopeJoanError("web limits: per_client <= per_address <= queue")
