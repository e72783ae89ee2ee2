"""``popejoan serve``: the web table (docs/web.md) on loopback unless ``--host`` says otherwise.

The web table's own command, declared as an entry point (``pyproject.toml``'s
``popejoan_solver.commands``) for the command line to list with its own: neither interface
imports the other. Starlette and uvicorn (the ``web`` extra) are imported by :func:`run`
only, so that ``popejoan --help`` and this command's ``--help`` need neither, and a missing
extra is one ``error:`` line.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import os
import socket
import sqlite3
import sys
from pathlib import Path
from typing import Any, Final

from ..command import EXIT_OK, Command, UsageError
from ..model.errors import clip

GRACE_SECONDS: Final = 1
"""After Ctrl-C or SIGTERM, how long a request in flight has to be answered."""

CONNECTIONS: Final = 512
"""Connections and requests uvicorn holds at once (past it, its own plain 503): a backstop
behind the application's own bound on requests (docs/contract.md)."""


def port(text: str) -> int:
    """A TCP port: a whole number from 0 (any free port) to 65535."""
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text[:6]) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535, not "
                                         f"{text[:20]!r}")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=port, default=8000, help="default 8000 (0: any free)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="a name by which the server is reached (besides IP addresses, "
                             "localhost and --host); other names are refused, against DNS "
                             "rebinding; may be given again")
    parser.add_argument("--data", type=Path, default=None, metavar="DIR",
                        help="folder of the tables' database (default: "
                             "$XDG_DATA_HOME/popejoan, else ~/.local/share/popejoan)")


def data_folder(given: Path | None) -> Path:
    """Where the tables are kept: ``--data``, else the user's data folder."""
    if given is not None:
        return given
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "popejoan"


def _listen(host: str, number: int) -> socket.socket:
    """A socket listening on ``host`` port ``number`` (a usage error if it cannot)."""
    if not host.strip():  # '' would bind every interface and print http://:PORT/
        raise UsageError("--host is empty: give an address (127.0.0.1 for this machine only, "
                         "0.0.0.0 for every interface)")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP by name: asyncio sets TCP_NODELAY only on sockets that say so, and without
    # it every answer waits ~40 ms for the client's delayed ACK (Nagle).
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, number))
        listener.listen(128)
    except (OSError, OverflowError) as exc:
        listener.close()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot listen on {clip(host)} port {number}: "
                         f"{clip(reason)}") from None
    return listener


def run(args: argparse.Namespace) -> int:
    """Run the server until Ctrl-C or SIGTERM, then exit 0 after a clean shutdown (requests
    in flight have :data:`GRACE_SECONDS` to be answered; the searches are stopped)."""
    try:
        import uvicorn

        from .app import create_app
    except ImportError as exc:
        raise UsageError(f"the web table needs its extra: pip install 'popejoan-solver[web]' "
                         f"({exc.name} is missing)") from None
    listener = _listen(args.host, args.port)
    number = listener.getsockname()[1]
    if not ipaddress.ip_address(listener.getsockname()[0]).is_loopback:
        print(f"warning: listening on {args.host}, not only this machine: the web table has "
              "no login, anyone who can reach this address can use it", file=sys.stderr)
    try:
        app = create_app(allowed_hosts=[args.host, *args.allow_host],
                         data=data_folder(args.data))
    except (OSError, sqlite3.Error) as exc:  # the folder or its database: not ours to use
        listener.close()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(f"cannot keep the tables in {clip(str(data_folder(args.data)))}: "
                         f"{clip(reason)}") from None
    print(f"popejoan: the web table on http://{_url_host(args.host)}:{number}/ (Ctrl-C stops "
          "it)", flush=True)
    _serve(uvicorn, app, listener)
    return EXIT_OK


def _serve(uvicorn: Any, app: Any, listener: socket.socket) -> None:
    # Ctrl-C: a request in flight has a second to be answered, then it is cancelled; the
    # cancellation is the shutdown, not an error to print with its traceback. No proxy is
    # trusted: a client's address (its turn among the others) is its connection's.
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                            timeout_graceful_shutdown=GRACE_SECONDS, proxy_headers=False,
                            limit_concurrency=CONNECTIONS)
    logging.getLogger("uvicorn.error").addFilter(_not_a_shutdown)
    try:
        uvicorn.Server(config).run(sockets=[listener])
    except KeyboardInterrupt:  # uvicorn raises the signal again once it has shut down
        pass
    finally:
        listener.close()
        app.state.hub.close()
        app.state.scheduler.close()


def _not_a_shutdown(record: logging.LogRecord) -> bool:
    """Keep a log record unless it is a request cancelled by the shutdown (Ctrl-C), or
    uvicorn saying it cancels them."""
    kind = record.exc_info[0] if record.exc_info else None
    if kind is not None and issubclass(kind, (asyncio.CancelledError, KeyboardInterrupt)):
        return False
    return "timeout graceful shutdown exceeded" not in str(record.msg)


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


COMMAND = Command(
    name="serve",
    summary="serve the web table: see a deal, step through its optimal line, play against "
            "bots (docs/web.md)",
    description="Serve the web table (docs/web.md): see a deal, step through its optimal "
                "line, play against bots, or host a table for people playing together. It "
                "listens on this machine only unless --host says otherwise; Ctrl-C stops it "
                "cleanly (exit status 0).",
    examples=("popejoan serve --port 8080",
              "popejoan serve --host 0.0.0.0 --allow-host cards.example.org --data /srv/popejoan"),
    add_arguments=add_arguments, run=run, ends_on_ctrl_c=True)
