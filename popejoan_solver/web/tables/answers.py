"""A table's answers, built once per change: the public part once for everyone, each seat's
knowledge once per seat, then shared by the seat's play answer, its state and its stream.

The seats' knowledge (``seat.knowledge``, milliseconds a seat) is built in worker processes of
its own (:class:`ViewPool`), never on the server's event loop, which answers every table and
would otherwise hold each table's plays behind the others' views. Nothing here decides what a
seat is told: :mod:`.views` does, from the same two parts.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Final

from ...jobs.pool import worker_init
from ...model.cards import Card
from ...model.deal import Deal
from ...model.play import Choice, Position, Run, RunTree
from ...model.referee import RecordReplay
from ...seat import Knowledge
from . import views
from .session import Session
from .spec import TableError
from .views import PublicState

VIEW_WORKERS: Final = 2
"""Worker processes that build the seats' knowledge (one seat a job, side by side)."""

ViewArgs = tuple[Deal, tuple[Run, ...], Card | None, tuple[int, ...], tuple[int, ...]]
"""What a worker needs: the deal, the runs played, the lead and options of a run waiting at a
choice, and the seats (0-based) whose knowledge is wanted."""


def seats_knowledge(deal: Deal, runs: tuple[Run, ...], lead: Card | None,
                    path: tuple[int, ...], seats: tuple[int, ...]) -> tuple[Knowledge, ...]:
    """The knowledge of each of ``seats`` at the position (a worker's job)."""
    node: RunTree | None = None
    if lead is not None:
        position = Position.from_deal(deal)
        for run in runs:
            position = position.after(run)
        node = position.game.run_tree(position.played, position.leader, lead)
        for option in path:
            assert isinstance(node, Choice)
            node = node.options[option]
    return tuple(views.position_knowledge(deal, runs, lead, node, seat) for seat in seats)


class ViewPool:
    """The processes that build the seats' knowledge, started at the first need, dying with
    the server (even by ``kill -9``); a pool that breaks is replaced at the next need."""

    def __init__(self, workers: int = VIEW_WORKERS) -> None:
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.workers, mp_context=get_context("spawn"),
                                             initializer=worker_init,
                                             initargs=(os.getpid(),))
        return self._pool

    async def knowledge(self, args: ViewArgs) -> tuple[Knowledge, ...] | None:
        """The seats' knowledge built in a worker; None if the pool broke (a worker killed):
        the caller builds it itself."""
        pool = self._started()
        try:
            return await asyncio.get_running_loop().run_in_executor(pool, seats_knowledge,
                                                                    *args)
        except BrokenProcessPool:
            self.close()
            return None

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            with contextlib.suppress(Exception):
                pool.shutdown(wait=False, cancel_futures=True)


class AnswerCache:
    """The parts of the answers about one session at one version (its number of events)."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._public: PublicState | None = None
        self._at_choice: PublicState | None = None
        self._known: dict[int, Knowledge | None] = {}

    def _parts(self, session: Session, result: RecordReplay, player: int | None = None
               ) -> PublicState:
        """The public part (for the chooser of a run waiting for a choice, the chooser's)."""
        key = (id(session), len(session.events))
        if self._key != key or self._public is None:
            # deadline None here: the seconds left are the answer's own (they change alone)
            self._public = views.public_state(session, result, None)
            self._at_choice = None
            self._known = {}
            self._key = key
        if player is None or session.chooser() != player:
            return self._public
        if self._at_choice is None:
            self._at_choice = views.public_state(session, result, None, at_choice=True)
        return self._at_choice

    def wanted(self, session: Session, result: RecordReplay, player: int | None
               ) -> tuple[tuple[int, ...], ViewArgs] | None:
        """``player`` (from 0), if its knowledge at this version is not built yet, and what a
        worker needs to build it (None: nothing to build: a watcher, a seat known already, or
        nothing hidden between deals). One seat at a time: a play's answer waits for its own
        seat's knowledge only, and the workers build the others' side by side."""
        self._parts(session, result)
        if session.phase != "playing" or player is None or player in self._known \
                or not 0 <= player < session.n:
            return None
        players = (player,)
        mine = session.chooser() == player  # a run held from a seat: known as before its lead
        return players, (session.deal, tuple(session.runs), session.lead if mine else None,
                         session.path if mine else (),
                         tuple(session.seat_of(p) for p in players))

    def keep(self, session: Session, players: tuple[int, ...],
             known: tuple[Knowledge, ...]) -> None:
        """Keep the knowledge built for ``players`` if the session is still where it was."""
        if self._key == (id(session), len(session.events)):
            self._known.update(zip(players, known, strict=True))

    def knowledge(self, session: Session, result: RecordReplay, player: int
                  ) -> Knowledge | None:
        """``player``'s knowledge at the session's version (built at most once)."""
        self._parts(session, result)
        if player not in self._known:
            self._known[player] = views.seat_knowledge(session, player)
        return self._known[player]

    def answer(self, session: Session, result: RecordReplay, deadline: float | None,
               player: int | None, with_knowledge: bool = False) -> dict[str, Any]:
        """The answer for ``player`` (from 0; None: a watcher), as
        :func:`.views.answer_for` builds it."""
        if player is not None and not 0 <= player < session.n:
            raise TableError("no such seat", 404)
        public = self._parts(session, result, player)
        k = None if player is None else self.knowledge(session, result, player)
        data = views.seat_answer(public, k, player, with_knowledge, session.version_of(player))
        data["deadline"] = deadline
        return data
