"""A table's answers, built once per change: the public part once for everyone, each seat's
knowledge once per seat, then shared by the seat's play answer, its state and its stream.

Before, every answer rebuilt both (a table of three people with their streams built each
seat's ``seat.knowledge`` twice per change, on the server's one event loop). Nothing here
decides what a seat is told: :mod:`.views` does, from the same two parts.
"""

from __future__ import annotations

from typing import Any

from ...model.referee import RecordReplay
from ...seat import Knowledge
from . import views
from .session import Session
from .spec import TableError
from .views import PublicState


class AnswerCache:
    """The parts of the answers about one session at one version (its number of events)."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None
        self._public: PublicState | None = None
        self._known: dict[int, Knowledge | None] = {}

    def _parts(self, session: Session, result: RecordReplay) -> PublicState:
        key = (id(session), len(session.events))
        if self._key != key or self._public is None:
            # deadline None here: the seconds left are the answer's own (they change alone)
            self._public = views.public_state(session, result, None)
            self._known = {}
            self._key = key
        return self._public

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
        public = self._parts(session, result)
        k = None if player is None else self.knowledge(session, result, player)
        data = views.seat_answer(public, k, player, with_knowledge)
        data["deadline"] = deadline
        return data
