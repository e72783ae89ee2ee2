"""``popejoan batch``: many seeded deals solved into an SQLite file (resumable)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..command import EXIT_OK, Command, UsageError
from ..files.writing import check_output_path
from ..jobs.batch import parse_players, run_batch
from ..jobs.pool import tty_progress
from ..model.rules import get_ruleset, split_rulesets
from .args import add_out, add_rules, add_seed, named_with_options, positive, seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules(parser, default="hoyle-modernized", metavar="R[,R...]",
              help_text="rulesets, comma-separated (default hoyle-modernized)")
    parser.add_argument("--players", default="3-8", metavar="3-8",
                        help="player counts: 3-8 (default), 4, or 3,5,7")
    parser.add_argument("--deals", type=positive, required=True, metavar="N",
                        help="deals per ruleset and player count")
    add_seed(parser, help_text="the seed of the deals (deal i of a ruleset and player count "
             "is the seeded deal of index i)")
    add_jobs_options(parser)
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="per deal; a deal past it is recorded with its bounds")
    add_out(parser, required=True, help_text="the batch file (SQLite; run again to resume)")


def add_jobs_options(parser: argparse.ArgumentParser) -> None:
    """``--workers`` and ``--cluster``: where a batch, study or match runs."""
    parser.add_argument("--workers", type=positive, metavar="K",
                        help="processes (default: all cores)")
    parser.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler, tcp://HOST:PORT")


def run(args: argparse.Namespace) -> int:
    from ..jobs.batch import EXIT_TERMINATED, BatchTerminatedError

    rules = list(dict.fromkeys(split_rulesets(args.rules)))
    if not rules:
        raise UsageError(f"--rules names no ruleset: {args.rules[:60]!r}")
    for name in rules:
        get_ruleset(name)
    rules = named_with_options(rules, args)
    players = parse_players(args.players)
    check_output_path(args.out, "--out")
    try:  # run_batch checks --deals, --workers, --cluster and the file before any work
        report = run_batch(Path(args.out), rules, players, args.deals, args.seed,
                           workers=args.workers, cluster=args.cluster,
                           time_limit=args.time_limit, progress=tty_progress())
    except BatchTerminatedError as exc:  # SIGTERM: one line, and 128 + 15 as a shell reports
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rate = report.solved / report.seconds if report.seconds > 0 else 0.0
    print(f"{report.planned} deals in {args.out}: {report.already} already there, "
          f"{report.solved} solved now in {report.seconds:.1f} s ({rate:.1f} deals/s)")
    return EXIT_OK


COMMAND = Command(
    name="batch",
    summary="solve many seeded deals into an SQLite file (resumable)",
    description="Solve many seeded deals double dummy into an SQLite file, on every core or a "
                "Dask cluster: for each ruleset and player count, deals 0 to N-1 of the seed. "
                "Run the same command again to resume; `popejoan stats` reads the file.",
    examples=("popejoan batch --deals 100 --seed 1 --players 4 --out batch.db",
              "popejoan batch --rules hoyle-modernized,parlett --set ace=high --deals 50 "
              "--seed 1 --out batch.db"),
    add_arguments=add_arguments, run=run, resumable=True)
