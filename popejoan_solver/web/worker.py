"""The web server's worker processes: each does one request's work at a time, writes its
answer's JSON (bounded in size), and stops the work when the server says so.

The server side is :class:`WorkerProcess`; the process runs :func:`serve_jobs`. A stop is a
SIGUSR1 whose handler raises :class:`JobCancelledError` (a ``KeyboardInterrupt``, so every
search stops as it does on Ctrl-C: the compiled core is cancelled, the samples' loop ends) if
the job named in the shared ``target`` is the one at work; a stop that comes late, once that
job is done, does nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.connection import Connection, wait
from typing import Any, Final

from ..model.errors import PopeJoanError, clip

_ENCODER: Final = json.JSONEncoder(indent=2, ensure_ascii=False)
"""JSON as the commands print it (``cli.json_text``: two-space indent, non-ASCII kept)."""


READY: Final = "ready"
"""A worker's first message: it handles a stop now, and its modules are loaded."""


class JobCancelledError(KeyboardInterrupt):
    """The server stopped the job at work (its client left, or its time ran out)."""


class AnswerTooLargeError(PopeJoanError):
    """An answer past the server's limit: its writing stops there."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the answer is larger than the web server's limit of {limit} bytes "
                         "(the command line has no such limit)")


@dataclass(frozen=True)
class Job:
    """One request's work: ``work(*args)`` (a module's function: it is sent by name), its
    answer at most ``answer_bytes`` of JSON."""

    id: int
    work: Callable[..., Any]
    args: tuple[Any, ...]
    answer_bytes: int


@dataclass(frozen=True)
class Reply:
    """What a job's work may return instead of plain JSON data: the ``data`` to answer (None:
    no body) and ``extra``, handed to the server beside it (say, an answer to keep)."""

    data: Any
    extra: Any = None


@dataclass(frozen=True)
class Answer:
    """A job's answer: an HTTP status and its JSON body (``cancelled``: the work was stopped
    and there is none)."""

    status: int
    body: bytes
    extra: Any = None
    cancelled: bool = False
    headers: tuple[tuple[str, str], ...] = ()


def error_answer(status: int, message: str, *headers: tuple[str, str]) -> Answer:
    """``{"error": message}`` with ``status``."""
    return Answer(status, json_bytes({"error": message}), headers=headers)


def internal_error(exc: BaseException) -> str:
    """A failure of the tool itself: one ``warning:`` line on the server's terminal (no
    traceback), and the answer's message, which names only the error's kind."""
    print(f"warning: internal error in the web server: {type(exc).__name__}: "
          f"{clip(str(exc))}", file=sys.stderr, flush=True)
    return f"internal error: {type(exc).__name__} (a bug of popejoan: please report it)"


def json_bytes(data: Any, limit: int | None = None) -> bytes:
    """``data`` as the commands print it, in UTF-8; past ``limit`` bytes the writing stops
    (:class:`AnswerTooLargeError`), so a huge answer costs neither its time nor its memory."""
    parts: list[bytes] = []
    size = 0
    for chunk in _ENCODER.iterencode(data):
        piece = chunk.encode("utf-8")
        size += len(piece)
        if limit is not None and size + 1 > limit:  # with the final newline
            raise AnswerTooLargeError(limit)
        parts.append(piece)
    parts.append(b"\n")
    return b"".join(parts)


class _Running:
    """The worker's job at work (0: none), and the shared number of the job to stop."""

    job = 0
    target: Any = None


def _on_stop(signum: int, frame: object) -> None:
    if _Running.job and _Running.job == _Running.target.value:
        raise JobCancelledError


def answer_job(job: Job) -> Answer:
    """Do ``job`` and write its answer; bad input is a 400 with its one-line message, a
    failure of the tool a 500 naming only its kind (one ``warning:`` line on the server's
    terminal, no traceback)."""
    try:
        try:
            _Running.job = job.id
            result = job.work(*job.args)
            if isinstance(result, Reply):
                body = b"" if result.data is None else json_bytes(result.data, job.answer_bytes)
                return Answer(200, body, result.extra)
            return Answer(200, json_bytes(result, job.answer_bytes))
        finally:
            _Running.job = 0
    except KeyboardInterrupt:
        return Answer(0, b"", cancelled=True)
    except PopeJoanError as exc:
        return error_answer(400, clip(str(exc), 400))
    except MemoryError:
        return error_answer(503, "out of memory")
    except Exception as exc:  # a bug: said in one line, the server goes on
        return error_answer(500, internal_error(exc))


def serve_jobs(connection: Connection, target: Any, server: int,
               preload: tuple[str, ...], niceness: int = 0) -> None:
    """A worker process's life: jobs from ``connection``, one at a time, each answered on it,
    until the server closes it (at ``niceness`` above the server's: study yields the cores to
    the tables). Ctrl-C is the server's to handle; the process dies with the server, even by
    ``kill -9``."""
    from ..jobs.pool import die_with_parent

    if niceness:
        with contextlib.suppress(OSError):
            os.nice(niceness)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _Running.target = target
    signal.signal(signal.SIGUSR1, _on_stop)
    # The pid watcher only: Linux's parent-death signal follows the thread that started the
    # process, and that thread may end before the server does.
    die_with_parent(server, thread_bound=False)
    for name in preload:  # the modules its jobs need, loaded before the first one comes
        importlib.import_module(name)
    connection.send(READY)  # from now on a stop is handled (before, SIGUSR1 would kill it)
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        answer = answer_job(job)
        try:
            connection.send(answer)
        except OSError:
            return


class WorkerProcess:
    """A worker process as the server sees it (started at once; spawned, so it shares no
    thread or lock with the server)."""

    def __init__(self, preload: tuple[str, ...] = (), niceness: int = 0) -> None:
        context = get_context("spawn")
        self._target = context.Value("q", 0, lock=False)
        self._connection, child = context.Pipe()
        self._process = context.Process(
            target=serve_jobs, args=(child, self._target, os.getpid(), preload, niceness),
            name="popejoan-web-worker", daemon=True)
        self._process.start()
        child.close()
        self._closing = threading.Lock()
        self._closed = False

    def started(self, timeout: float) -> bool:
        """Wait until the process is ready for jobs (no job may be sent, nor stopped, before);
        whether it is."""
        if not self.ready(timeout):
            return False
        try:
            return bool(self._connection.recv() == READY)
        except (EOFError, OSError):
            return False

    @property
    def pid(self) -> int | None:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.is_alive()

    def died(self, timeout: float = 1.0) -> bool:
        """Whether the process has ended (waiting up to ``timeout`` seconds for a process
        whose pipe has closed to be gone too)."""
        self._process.join(timeout)
        return self._process.exitcode is not None

    def send(self, job: Job) -> None:
        self._connection.send(job)

    def ready(self, timeout: float) -> bool:
        """Whether an answer came (or the process died, or was closed) within ``timeout``
        seconds."""
        try:
            return bool(wait([self._connection, self._process.sentinel], timeout))
        except (OSError, ValueError):  # closed meanwhile (the server shuts down)
            return True

    def receive(self) -> Answer:
        """The answer sent (EOFError or OSError: the process died before it answered)."""
        answer: Answer = self._connection.recv()
        return answer

    def stop(self, job: int) -> None:
        """Tell the process to stop ``job`` if it is still at it."""
        self._target.value = job
        if self._process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._process.pid, signal.SIGUSR1)

    def close(self) -> None:
        """End the process now (its work, if any, is thrown away). Once, whoever asks: a
        shutdown and the thread that saw the process die may both close it at the same
        moment (closing the pipe twice failed with EBADF, or closed another file)."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
            if self._process.is_alive():
                self._process.kill()
            self._process.join(5)
            self._connection.close()
