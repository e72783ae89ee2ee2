"""``popejoan stats``: forced-win rates and seat values of a batch file, with intervals."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..command import EXIT_OK, Command, UsageError
from ..files.writing import check_output_path
from ..studies.stats import Group, groups, interval_text, plot, wilson
from .args import add_format, wants_json
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a batch file (popejoan batch --out)")
    add_format(parser, "the statistics")
    parser.add_argument("--plot", metavar="PATH", help="draw the figures (.png or .svg)")


def run(args: argparse.Namespace) -> int:
    from ..jobs.batch import read_rows
    if args.plot is not None:
        if Path(args.plot).suffix.lower() not in (".png", ".svg"):
            raise UsageError("--plot writes a .png or .svg file")
        check_output_path(args.plot, "--plot")
    found = groups(read_rows(Path(args.file)))  # read-only; a bad or damaged file: one error
    if args.plot is not None:
        plot(found, Path(args.plot))
    if wants_json(args):
        print_json({"groups": [g.to_json() for g in found]})
        return EXIT_OK
    for g in found:
        _print_group(g)
    return EXIT_OK


def _print_group(g: Group) -> None:
    timed_out = g.deals - g.exact
    print(f"{g.rules}, {g.players} players: {g.deals} deals"
          + (f" ({timed_out} past the time limit, left out of the rates)" if timed_out
             else ""))
    if not g.exact:
        print("  no deal solved exactly (every one past the time limit): no rates or means")
        print(f"  solve time: mean {g.mean_seconds:.3f} s, worst {g.worst_seconds:.3f} s\n")
        return
    low, high = wilson(g.any_forced_win, g.exact)
    print(f"  any seat has a forced win: {g.any_forced_win_rate:.3f} "
          f"[{low:.3f}, {high:.3f}]")
    print("  seat  forced-win rate [95% CI]   mean guaranteed [95% CI]")
    for s in range(g.players):
        lo, hi = wilson(g.forced_win[s], g.exact)
        mean, mlo, mhi = g.guaranteed[s]
        print(f"  {s + 1:>4}  {g.forced_win_rate[s]:.3f} [{lo:.3f}, {hi:.3f}]"
              f"      {mean:+.2f} {interval_text(mlo, mhi, '+.2f')}")
    print(f"  solve time: mean {g.mean_seconds:.3f} s, worst {g.worst_seconds:.3f} s\n")


COMMAND = Command(
    name="stats",
    summary="forced-win rates and seat values from a batch file",
    description="Statistics of a batch file, per ruleset and player count: how often some seat "
                "has a forced win and each seat's forced-win rate (Wilson 95% intervals), each "
                "seat's mean guaranteed value (95% interval), the solve times; --plot draws "
                "them.",
    examples=("popejoan stats batch.db", "popejoan stats batch.db --json --plot rates.svg"),
    add_arguments=add_arguments, run=run)
