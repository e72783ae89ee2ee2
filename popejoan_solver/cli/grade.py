"""``popejoan grade``: every lead of a played record marked against the best its leader had."""

from __future__ import annotations

import argparse

from ..command import EXIT_DISAGREE, EXIT_OK, EXIT_TIME_LIMIT, Command, UsageError
from ..model.errors import clip
from ..search.grading import describe, grade_record
from .args import add_format, add_seat, check_seat, seconds, wants_json
from .inputs import RECORD_HELP, read_record
from .output import print_json, print_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help=RECORD_HELP)
    add_seat(parser, help_text="only this player (1 = first named)")
    add_format(parser, "the grades")
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="stop each deal's search after S seconds; unproven values are "
                        "bounds and the exit status is 3")


def run(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    only = None
    if args.seat is not None:
        if args.seat > record.seats:
            raise UsageError(f"--seat: the record has {record.seats} players, not "
                             f"{clip(str(args.seat))}")
        only = check_seat(args.seat, record.seats)
    result = grade_record(record, time_limit=args.time_limit)
    if result.error is not None:
        if wants_json(args):
            print_json(result.to_json(only))
        else:
            print(f"not graded: the record is illegal: {result.error.describe()}")
        return EXIT_DISAGREE
    if wants_json(args):
        print_json(result.to_json(only))
    else:
        print_lines(describe(result, only))
    exact = all(g.grade.kept.is_exact and g.grade.best.is_exact for g in result.leads)
    return EXIT_OK if exact else EXIT_TIME_LIMIT


COMMAND = Command(
    name="grade",
    summary="mark every lead of a played record against the best lead its leader had "
            "(double dummy)",
    description="Mark every lead of a played game record against the best lead its leader "
                "had, double dummy: the value the lead kept, the best value, and the cost. "
                "Exit status 1 when the record is illegal (not graded), 3 when a time limit "
                "left values as bounds.",
    examples=("popejoan grade game.txt", "popejoan grade game.json --seat 2 --json"),
    add_arguments=add_arguments, run=run)
