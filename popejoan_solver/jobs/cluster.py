"""A Dask distributed cluster as the workers of a batch or a match: its address checked,
reached within seconds, and fed chunks of tasks a few at a time.

Any failure of the cluster (an address that is malformed or does not answer, something that is
not a Dask scheduler, a lost connection) is one :class:`ClusterError`; a lost worker's tasks
are retried by Dask.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import socket
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from ..model.errors import PopeJoanError, clip, quote_short
from .pool import Progress, Sink

CONNECT_SECONDS: Final = 5.0
"""How long to wait for a Dask scheduler to answer before giving up."""


class ClusterError(PopeJoanError):
    """A ``--cluster`` address that is malformed, unreachable or whose cluster failed."""


def parse_cluster(address: str) -> tuple[str, int]:
    """``tcp://HOST:PORT`` (or ``HOST:PORT``) to the host and port; anything else is refused."""
    match = re.fullmatch(r"(?:tcp://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]{1,253}):([0-9]{1,5})",
                         address)
    if match is None or not 1 <= int(match.group(2)) <= 65535:
        raise ClusterError(f"--cluster wants a Dask scheduler address tcp://HOST:PORT (port "
                           f"1-65535), not {quote_short(address)}")
    return match.group(1).strip("[]"), int(match.group(2))


def reach_cluster(address: str) -> None:
    """Fail in seconds, not after Dask's long retries, when nothing answers at ``address``, or
    something that is not a Dask scheduler (its handshake has no time limit of its own)."""
    host, port = parse_cluster(address)
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        reason = exc.strerror or str(exc) or type(exc).__name__
        raise ClusterError(f"cannot reach the Dask scheduler at {quote_short(address)}: "
                           f"{reason}") from None
    with ThreadPoolExecutor(1) as thread:  # a thread: the caller may be running an event loop
        probe = thread.submit(asyncio.run, _handshake(address))
        try:
            probe.result()
        except Exception as exc:
            reason = (f"no answer within {CONNECT_SECONDS:g} s" if isinstance(exc, TimeoutError)
                      else f"{type(exc).__name__}: {clip(str(exc), 120)}")
            raise ClusterError(f"{quote_short(address)} did not answer as a Dask scheduler "
                               f"({reason})") from None


async def _handshake(address: str) -> None:
    """Connect to a Dask scheduler and exchange Dask's handshake, within ``CONNECT_SECONDS``."""
    from distributed.comm.core import connect

    url = address if address.startswith("tcp://") else f"tcp://{address}"
    comm = await asyncio.wait_for(connect(url, timeout=CONNECT_SECONDS), CONNECT_SECONDS)
    await comm.close()


def _chunks(tasks: Iterable[Any], size: int) -> Iterator[list[Any]]:
    queue = iter(tasks)
    while chunk := list(itertools.islice(queue, size)):
        yield chunk


def run_dask(tasks: Iterable[Any], total: int, address: str, store: Sink,
             progress: Progress | None, work: Callable[[list[Any]], list[Any]]) -> int:
    """Send the tasks to a Dask distributed scheduler, ``work`` doing a chunk of them; a lost
    worker's tasks are retried.

    Tasks go in chunks of up to 16, small enough that every worker gets at least about
    sixteen chunks, and only a few chunks per worker thread are sent ahead, so neither side
    holds the whole study; every row of a finished chunk is stored at once, each in its own
    transaction. Any failure of the cluster is one :class:`ClusterError`.
    """
    from distributed import Client, as_completed

    finished = 0
    try:
        with Client(address, timeout=f"{CONNECT_SECONDS}s") as client:
            threads = max(1, sum(client.nthreads().values()))
            size = max(1, min(16, total // (16 * threads)))
            chunks = _chunks(tasks, size)
            running = as_completed(with_results=True)
            for chunk in itertools.islice(chunks, 4 * threads):
                running.add(client.submit(work, chunk, pure=False, retries=3))
            for future, rows in running:
                for row in rows:
                    store.add(row)
                finished += len(rows)
                future.release()
                if progress:
                    progress(finished, total)
                for chunk in itertools.islice(chunks, 1):
                    running.add(client.submit(work, chunk, pure=False, retries=3))
    except PopeJoanError:
        raise
    except Exception as exc:  # distributed's connection, time-out and lost-worker errors
        raise ClusterError(f"the Dask cluster at {quote_short(address)} failed: "
                           f"{type(exc).__name__}: {exc}") from None
    return finished
