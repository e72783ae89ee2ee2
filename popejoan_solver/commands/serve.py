"""``popejoan serve``: the web table (docs/web.md) on loopback unless ``--host`` says otherwise."""

from __future__ import annotations

import argparse
from typing import Any

from . import add_help_parser

HELP = ("serve the web table: see a deal, step through its optimal line, play against bots "
        "(docs/web.md)")


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text[:6]) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is a whole number from 0 to 65535, not "
                                         f"{text[:20]!r}")
    return int(text)


def register(sub: Any) -> None:
    parser = add_help_parser(sub, "serve", HELP)
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=_port, default=8000, help="default 8000 (0: any free)")
    parser.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until Ctrl-C (or SIGTERM), then exit 0 after a clean shutdown."""
    from ..cli import UsageError

    try:
        import uvicorn

        from ..web.app import create_app
    except ImportError as exc:
        raise UsageError(f"the web table needs its extra: pip install 'popejoan-solver[web]' "
                         f"({exc.name} is missing)") from None
    print(f"popejoan: the web table on http://{_url_host(args.host)}:{args.port}/ "
          "(Ctrl-C stops it)", flush=True)
    config = uvicorn.Config(create_app(), host=args.host, port=args.port, log_level="warning",
                            access_log=False, lifespan="off")
    server = uvicorn.Server(config)
    server.run()
    if not server.started:
        raise UsageError(f"cannot listen on {args.host}:{args.port} (in use, or not an "
                         "address of this machine)")
    return 0


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
