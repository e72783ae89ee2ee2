"""``popejoan study``: a study over many deals (Hoyle's maxims, or the seats' values), solved
into a resumable batch file and reported."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Final

from ..command import EXIT_OK, Command, UsageError
from ..files.writing import check_output_path
from ..jobs.batch import parse_players, run_batch
from ..jobs.pool import tty_progress
from ..model.rules import RULESETS, get_ruleset, split_rulesets
from ..studies.stats import groups, interval_text
from .args import add_out, add_rules, add_seed, options_set, positive, seconds
from .batch import add_jobs_options
from .output import print_json

STUDIES: Final = ("hoyle-maxims", "seat-values")
MAXIMS_RULES: Final = "hoyle-modernized"
"""The ruleset of the maxims study (Hoyle's maxims are about it)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", choices=STUDIES, help="the study")
    parser.add_argument("--deals", type=positive, required=True, metavar="N",
                        help="deals per ruleset and player count")
    parser.add_argument("--players", default="3-8", metavar="3-8",
                        help="player counts: 3-8 (default), 4, or 3,5,7")
    add_rules(parser, metavar="R[:N][,R...]",
              help_text="seat-values only (hoyle-maxims is about hoyle-modernized): the "
              "rulesets (default: every one); R:N gives that ruleset its own number of deals")
    add_seed(parser, default=2026)
    add_jobs_options(parser)
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="per deal; a deal past it is recorded with its bounds")
    add_out(parser, required=True, help_text="the batch file (resumable)")
    parser.add_argument("--report", metavar="DIR", help="write the markdown report and plot here")


def run(args: argparse.Namespace) -> int:
    from ..jobs.batch import EXIT_TERMINATED, BatchTerminatedError
    from ..studies.reports import check_report

    _refuse_rules_for_maxims(args)
    # The report's folder and files, checked before the study runs.
    if args.report is not None:
        check_report(args.name, args.report, "--report")
    wanted = _wanted(args)
    players = parse_players(args.players)
    check_output_path(args.out, "--out")
    out = Path(args.out)
    try:  # run_batch checks the counts, --workers, --cluster and the file before any work
        for deals in sorted(set(wanted.values())):
            run_batch(out, [r for r in wanted if wanted[r] == deals], players, deals,
                      args.seed, workers=args.workers, cluster=args.cluster,
                      time_limit=args.time_limit, progress=tty_progress())
    except BatchTerminatedError as exc:  # SIGTERM: one line, and 128 + 15 as a shell reports
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rows = _rows(out, wanted, players)
    report = Path(args.report) if args.report is not None else None
    if args.name == "seat-values":
        _seat_values(rows, _command_line(args, wanted), report)
    else:
        _maxims(rows, _command_line(args, wanted), report)
    return EXIT_OK


def _refuse_rules_for_maxims(args: argparse.Namespace) -> None:
    if args.name != "hoyle-maxims":
        return
    if args.rules is not None:
        raise UsageError("--rules is for seat-values: hoyle-maxims studies Hoffmann's maxims "
                         "under hoyle-modernized")
    if args.set:
        raise UsageError("--set is for seat-values: hoyle-maxims studies Hoffmann's maxims "
                         "under hoyle-modernized as it stands")


def _wanted(args: argparse.Namespace) -> dict[str, int]:
    """Each ruleset of the study (with ``--set``'s options) and its number of deals: a
    ruleset may carry its own (``early-hoyle:120``) when it is slower to solve."""
    entries = ([MAXIMS_RULES] if args.name == "hoyle-maxims"
               else split_rulesets(",".join(RULESETS) if args.rules is None else args.rules))
    wanted: dict[str, int] = {}
    for entry in entries:
        name, count = _entry(entry, args.deals)
        if name is not None:
            wanted[name] = count
    if not wanted:
        raise UsageError(f"--rules names no ruleset: {(args.rules or '')[:60]!r}")
    options = options_set(args)
    if not options:
        return wanted
    return {get_ruleset(name).with_options(options).name: count
            for name, count in wanted.items()}


def _entry(entry: str, default: int) -> tuple[str | None, int]:
    """A ``--rules`` entry ``R`` or ``R:N``: the ruleset (None for an empty entry), checked,
    and its number of deals."""
    from ..jobs.batch import MAX_DEALS

    name, _, count = entry.strip().partition(":")
    if not name:
        return None, default
    get_ruleset(name)
    if count and not (count.isascii() and count.isdigit()):
        raise UsageError(f"--rules entry {entry[:60]!r}: a deal count must be a whole number")
    if len(count) > len(str(MAX_DEALS)):  # before int(), which refuses very long numbers
        raise UsageError(f"--rules entry {entry[:60]!r}: at most {MAX_DEALS} deals")
    return name, int(count) if count else default


def _command_line(args: argparse.Namespace, wanted: dict[str, int]) -> str:
    """The command line that makes the study again, for its report."""
    rules_text = ",".join(r if wanted[r] == args.deals else f"{r}:{wanted[r]}" for r in wanted)
    return (f"popejoan study {args.name} --rules {rules_text} --players {args.players} "
            f"--deals {args.deals} --seed {args.seed}"
            + (f" --time-limit {args.time_limit:g}" if args.time_limit else ""))


def _rows(out: Path, wanted: dict[str, int], players: list[int]) -> list[dict[str, Any]]:
    """The study's rows of the batch file (which may hold others)."""
    from ..jobs.batch import read_rows

    return [r for r in read_rows(out) if r["rules"] in wanted and r["players"] in players
            and r["idx"] < wanted[r["rules"]]]


def _seat_values(rows: list[dict[str, Any]], command: str, report: Path | None) -> None:
    from ..studies.reports import seat_values_report

    found = groups(rows)
    if report is not None:
        print(f"wrote {seat_values_report(found, command, report)}")
    print_json({"groups": [g.to_json() for g in found]})


def _maxims(rows: list[dict[str, Any]], command: str, report: Path | None) -> None:
    from ..studies.hoyle_maxims import study
    from ..studies.reports import maxims_report

    results = study(rows)
    if report is not None:
        print(f"wrote {maxims_report(results, command, report)}")
    for p in sorted(results):
        for label, summary in results[p].items():
            rate, lo, hi = summary.optimal_rate
            cost, clo, chi = summary.mean_cost
            print(f"{p} players  {label:<20} {summary.deals:>5} deals  optimal {rate:.3f} "
                  f"[{lo:.3f}, {hi:.3f}]  mean cost {cost:.2f} "
                  f"{interval_text(clo, chi, '.2f')}")


COMMAND = Command(
    name="study",
    summary="a study over many deals: hoyle-maxims or seat-values",
    description="A study over many seeded deals, solved into a resumable batch file: "
                "hoyle-maxims compares eldest's first lead as Hoyle's maxims advise it (and a "
                "random legal lead) with the optimal first leads: how often it is optimal, its "
                "mean cost; seat-values gives every seat's value and forced-win rate "
                "per ruleset and player count (as JSON). --report writes a markdown report "
                "with its plot.",
    examples=("popejoan study hoyle-maxims --deals 200 --players 4 --out maxims.db",
              "popejoan study seat-values --deals 100 --rules parlett,early-hoyle:40 "
              "--out values.db --report report/"),
    add_arguments=add_arguments, run=run, resumable=True)
