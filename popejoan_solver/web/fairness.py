"""Who goes next: the requests waiting for a worker, bounded in all, per address and per
client, and taken in turn between clients, so that one client's ten requests do not hold up
another's one.

A client is its address and the ``X-Client-Id`` its page sends (a random id per tab); a
client that sends none is its address alone. The next request is the oldest of the client
whose address has the fewest requests at work, then which has the fewest itself (a client
has at most all the lane's workers but one at work, so one is left for the others), then
whose recent use of the workers less the time its request has waited is least (seconds of
work, halved every :data:`HALF_LIFE` seconds: a client whose requests take a second each goes
after one whose requests take ten milliseconds, but only by about the time it used, never
for good), then was served longest ago. Not thread-safe: the scheduler holds its lock around
every call.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import Counter, OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Generic, Protocol, TypeVar

from .limits import Limits

ClientKey = tuple[str, str]
"""A client: its address and its client id ('' when it sends none)."""

REMEMBERED: Final = 1024
"""Clients whose use and last turn are remembered; one forgotten counts as having used
nothing and been served longest ago (the least recently served are the ones forgotten)."""

HALF_LIFE: Final = 30.0
"""Seconds over which a client's use of the workers counts for half as much."""


def _loopback(address: str) -> bool:
    """Whether ``address`` is this machine's own: every local client (each tab of each
    browser) shares it, so it has no bound of its own beyond the queue's."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


@dataclass
class _Use:
    """A client's use of the workers: seconds of work, as of ``when``."""

    seconds: float = 0.0
    when: float = 0.0

    def now(self, when: float) -> float:
        return self.seconds * math.exp2(-max(0.0, when - self.when) / HALF_LIFE)


class Queued(Protocol):
    """What waits: a request's work, from a client."""

    @property
    def client(self) -> ClientKey: ...


_Q = TypeVar("_Q", bound=Queued)


class FairQueue(Generic[_Q]):
    """Requests waiting, per client, and the count of each client's requests at work."""

    def __init__(self, limits: Limits, at_once: int = 1 << 30,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._limits = limits
        self._at_once = at_once
        """The most requests one client may have at work at once."""
        self._clock = clock
        self._waiting: dict[ClientKey, deque[tuple[_Q, float]]] = {}
        """Each client's requests waiting, oldest first, with the time each came."""
        self._running: Counter[ClientKey] = Counter()
        self._served: OrderedDict[ClientKey, _Use] = OrderedDict()
        """Clients by their last turn, the longest ago first, with their use."""
        self.size = 0

    def add(self, item: _Q) -> str | None:
        """Queue ``item``; or, past a limit, the reason it is refused (nothing is queued)."""
        limits, client = self._limits, item.client
        if self.size >= limits.queue:
            return (f"the server is busy: {self.size} requests are waiting for it already; "
                    "ask again in a while")
        from_address = sum(len(q) for (address, _), q in self._waiting.items()
                           if address == client[0])
        if from_address >= limits.per_address and not _loopback(client[0]):
            return (f"{from_address} requests from this address are waiting already (the most "
                    "one address may have): ask again once they are answered")
        mine = self._waiting.setdefault(client, deque())
        if len(mine) >= limits.per_client:
            return (f"{len(mine)} of this client's requests are waiting already (the most one "
                    "client may have): ask again once they are answered")
        mine.append((item, self._clock()))
        self.size += 1
        return None

    def remove(self, item: _Q) -> bool:
        """Take ``item`` out if it is still waiting; whether it was."""
        mine = self._waiting.get(item.client)
        found = next((entry for entry in mine or () if entry[0] is item), None)
        if mine is None or found is None:
            return False
        mine.remove(found)
        self.size -= 1
        if not mine:
            del self._waiting[item.client]
        return True

    def take(self) -> _Q | None:
        """The next request to work on (now counted at work), or None if none waits (or
        those waiting are of clients with as many at work as one may have)."""
        candidates = [c for c, q in self._waiting.items()
                      if q and self._running[c] < self._at_once]
        if not candidates:
            return None
        by_address: Counter[str] = Counter()
        for (address, _), count in self._running.items():
            by_address[address] += count
        now = self._clock()
        order = {c: k for k, c in enumerate(self._served)}
        unused = _Use()

        def turn(c: ClientKey) -> tuple[int, int, float, int]:
            waited = now - self._waiting[c][0][1]
            return (by_address[c[0]], self._running[c],
                    self._served.get(c, unused).now(now) - waited, order.get(c, -1))

        client = min(candidates, key=turn)
        item, _ = self._waiting[client].popleft()
        self.size -= 1
        if not self._waiting[client]:
            del self._waiting[client]
        self._running[client] += 1
        self._served[client] = self._served.get(client, _Use(0.0, now))
        self._served.move_to_end(client)
        while len(self._served) > REMEMBERED:
            self._served.popitem(last=False)
        return item

    def finished(self, item: _Q, seconds: float = 0.0) -> None:
        """``item``'s work is over (answered, stopped or lost) after ``seconds`` at work."""
        client = item.client
        self._running[client] -= 1
        if self._running[client] <= 0:
            del self._running[client]
        use = self._served.get(client)
        if use is not None:
            now = self._clock()
            use.seconds, use.when = use.now(now) + seconds, now

    def drain(self) -> list[_Q]:
        """Every request waiting, taken out (the server shuts down)."""
        items = [item for q in self._waiting.values() for item, _ in q]
        self._waiting.clear()
        self.size = 0
        return items
