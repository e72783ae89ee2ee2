"""``popejoan match``: a duplicate match between bots into an SQLite file (docs/bots.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..command import EXIT_OK, Command
from .args import add_out, add_rules, add_seed, named_with_options, positive
from .batch import add_jobs_options

BOTS_HELP = ("bot specs, comma-separated (a bot named again is another copy of it): random, "
             "lowest, hoyle, pimc[:samples=32,model=paranoid,time=S,peek,infer=MODEL,sees=S], "
             "epimc[:samples=32,top=3,time=S], strong, cheat, ismcts")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bots", required=True, help=BOTS_HELP)
    parser.add_argument("--players", type=positive, required=True, help="3 to 8")
    parser.add_argument("--deals", type=positive, required=True,
                        help="deals, each played once per rotation")
    add_seed(parser, help_text="the seed of the deals (and of the bots' own draws)")
    add_rules(parser, default="hoyle-modernized")
    parser.add_argument("--session", type=positive, default=1,
                        help="deals per session: the board carried, the dealer rotating "
                             "(default 1)")
    add_jobs_options(parser)
    add_out(parser, required=True, help_text="the match file (SQLite; run again to resume)")


def run(args: argparse.Namespace) -> int:
    from ..bots.registry import split_bots
    from ..files.writing import check_output_path
    from ..jobs.batch import EXIT_TERMINATED, BatchTerminatedError
    from ..jobs.match import run_match
    from ..jobs.pool import tty_progress

    rules = named_with_options([args.rules], args)[0]
    check_output_path(args.out, "--out")
    try:
        report = run_match(Path(args.out), split_bots(args.bots, unique=False), args.players,
                           args.deals, args.seed, rules=rules, session=args.session,
                           workers=args.workers, cluster=args.cluster,
                           progress=tty_progress("deal-play" if args.session == 1 else "session"))
    except BatchTerminatedError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rate = report.played / report.seconds if report.seconds > 0 else 0.0
    print(f"{report.planned} deal-plays in {args.out}: {report.already} already there, "
          f"{report.played} played now in {report.seconds:.1f} s ({rate:.2f} deal-plays/s)")
    return EXIT_OK


COMMAND = Command(
    name="match",
    summary="play a duplicate match between bots (every deal once per rotation of the bots "
            "over the seats) into an SQLite file; resumable; see popejoan standings",
    description="Play a duplicate match between bots into an SQLite file: every deal is "
                "played once per rotation of the bots over the seats, in sessions of "
                "--session deals (the board carried, the dealer rotating). Run the same "
                "command again to resume; `popejoan standings` reads the file.",
    examples=("popejoan match --bots random,lowest,hoyle --players 3 --deals 100 --seed 1 "
              "--out match.db",
              "popejoan match --bots pimc:samples=16,hoyle --players 4 --deals 20 --session 4 "
              "--seed 2 --rules parlett --out match.db"),
    add_arguments=add_arguments, run=run)
