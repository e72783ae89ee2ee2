"""``popejoan match``: a duplicate match between bots into an SQLite file (docs/bots.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from . import add_help_parser

HELP = ("play a duplicate match between bots (every deal once per rotation of the bots over "
        "the seats) into an SQLite file; resumable; see popejoan standings")


def register(sub: Any) -> None:
    from ..cli import _positive, _whole

    parser = add_help_parser(sub, "match", HELP)
    parser.add_argument("--bots", required=True,
                        help="bot specs, comma-separated (a bot named again is another copy "
                             "of it): random, lowest, hoyle, "
                             "pimc[:samples=32,model=paranoid,time=S,peek,infer=MODEL,sees=S], "
                             "epimc[:samples=32,top=3,time=S], strong, cheat, ismcts")
    parser.add_argument("--players", type=_positive, required=True, help="3 to 8")
    parser.add_argument("--deals", type=_positive, required=True,
                        help="deals, each played once per rotation")
    parser.add_argument("--seed", type=_whole, required=True)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--session", type=_positive, default=1,
                        help="deals per session: the board carried, the dealer rotating "
                             "(default 1)")
    parser.add_argument("--workers", type=_positive, default=None)
    parser.add_argument("--cluster", default=None, help="a Dask scheduler tcp://HOST:PORT")
    parser.add_argument("--out", required=True, help="the match file (SQLite)")
    parser.set_defaults(func=cmd_match)


def cmd_match(args: argparse.Namespace) -> int:
    from ..analysis.batch import EXIT_TERMINATED, BatchTerminatedError, tty_progress
    from ..analysis.match import run_match
    from ..analysis.outfile import check_output_path
    from ..bots.registry import split_bots

    check_output_path(args.out, "--out")
    try:
        report = run_match(Path(args.out), split_bots(args.bots, unique=False), args.players,
                           args.deals, args.seed, rules=args.rules, session=args.session,
                           workers=args.workers, cluster=args.cluster,
                           progress=tty_progress("deal-play" if args.session == 1 else "session"))
    except BatchTerminatedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rate = report.played / report.seconds if report.seconds > 0 else 0.0
    print(f"{report.planned} deal-plays in {args.out}: {report.already} already there, "
          f"{report.played} played now in {report.seconds:.1f} s ({rate:.2f} deal-plays/s)")
    return 0
