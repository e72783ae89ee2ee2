"""A small cache of solved positions for the web table: a person stepping back and forth, or
many people opening one shared link, ask for the same positions again. Bounded, thread-safe,
exact answers only."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any, Final

MAX_ENTRIES: Final = 256
"""Positions kept (each answer some kilobytes: a few megabytes in all); a deal has at most
51 positions along a line."""


class AnswerCache:
    """The last :data:`MAX_ENTRIES` answers, least recently used first out."""

    def __init__(self, entries: int = MAX_ENTRIES) -> None:
        self._entries = entries
        self._answers: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> dict[str, Any] | None:
        with self._lock:
            answer = self._answers.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._answers.move_to_end(key)
            self.hits += 1
            return answer

    def put(self, key: Hashable, answer: dict[str, Any]) -> None:
        with self._lock:
            self._answers[key] = answer
            self._answers.move_to_end(key)
            while len(self._answers) > self._entries:
                self._answers.popitem(last=False)
