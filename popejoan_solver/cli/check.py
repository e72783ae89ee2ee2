"""``popejoan check``: a game record refereed (every play legal, who owes whom)."""

from __future__ import annotations

import argparse

from ..command import EXIT_DISAGREE, EXIT_OK, Command
from ..model.referee import describe, replay
from .args import add_format, wants_json
from .inputs import RECORD_HELP, read_record
from .output import print_json, print_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("record", help=RECORD_HELP)
    add_format(parser, "the verdict")


def run(args: argparse.Namespace) -> int:
    result = replay(read_record(args.record))
    if wants_json(args):
        print_json(result.to_json())
    else:
        print_lines(describe(result))
    return EXIT_OK if result.legal else EXIT_DISAGREE


COMMAND = Command(
    name="check",
    summary="referee a game record: every play legal, who owes whom",
    description="Referee a game record (docs/records.md): replay every deal under the "
                "record's ruleset, check every play is legal and every claimed result true, "
                "and settle who owes whom. Exit status 1 at the first illegal step, named with "
                "the rule it breaks and its source.",
    examples=("popejoan check game.txt", "popejoan solve deal.json --out line.json && "
              "popejoan check line.json --json"),
    add_arguments=add_arguments, run=run)
