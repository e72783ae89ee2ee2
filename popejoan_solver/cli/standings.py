"""``popejoan standings``: who plays best in a match file, with intervals (docs/bots.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..command import EXIT_OK, Command, UsageError
from .args import add_format, add_seat, check_seat, wants_json
from .output import print_json, print_lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="a match file (popejoan match --out)")
    add_format(parser, "the standings")
    parser.add_argument("--plot", default=None, help="a .png or .svg bar chart")
    add_seat(parser, help_text="only the plays at this seat (1 = eldest, the last the "
             "dealer); with --maxims, only the leads made there")
    parser.add_argument("--maxims", default=None, metavar="BOT",
                        help="how often BOT's leads agree with each of Hoyle's maxims (instead "
                             "of the standings; not with --plot)")
    parser.add_argument("--records", default=None, metavar="DIR",
                        help="a folder (made if new): write each complete session and rotation "
                             "as a record (sSESSION-rROTATION.json) for popejoan check")


def _check_plot(args: argparse.Namespace) -> None:
    from ..files.writing import check_output_path

    if args.plot is None:
        return
    if Path(args.plot).suffix.lower() not in (".png", ".svg"):
        raise UsageError("--plot writes a .png or .svg file")
    if args.maxims is not None:
        raise UsageError("--plot draws the standings: leave out --maxims for it")
    check_output_path(args.plot, "--plot")


def run(args: argparse.Namespace) -> int:
    from ..files.writing import check_output_folder
    from ..jobs.match import read_match
    from ..studies.standings import describe, plot, standings

    _check_plot(args)
    if args.records is not None:
        check_output_folder(args.records, "--records")
    settings, rows = read_match(Path(args.file))
    if args.seat is not None:
        check_seat(args.seat, settings.players)
    if args.records is not None:
        _write_records(Path(args.records), args.records, settings, rows)
    if args.maxims is not None:
        return _maxims(settings, rows, args)
    result = standings(settings, rows, args.seat)
    if args.plot is not None:
        plot(result, Path(args.plot))
    if wants_json(args):
        print_json(result.to_json())
    else:
        print_lines(describe(result))
    return EXIT_OK


def _write_records(folder: Path, given: str, settings: Any, rows: Any) -> None:
    """``--records``: a new folder is made (its parent must exist), once the file is read;
    each complete session and rotation written there as a record."""
    from ..files.writing import write_output
    from ..jobs.match import session_records
    from ..model.record import record_to_json

    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--records {given[:60]!r}: cannot make the folder: "
                         f"{exc.strerror or exc}") from None
    for session, rotation, record in session_records(settings, rows):
        write_output(folder / f"s{session}-r{rotation}.json",
                     json.dumps(record_to_json(record), ensure_ascii=False) + "\n",
                     "--records")


def _maxims(settings: Any, rows: Any, args: argparse.Namespace) -> int:
    from ..studies.agreement import agreement, describe_agreement

    if args.maxims not in settings.bots:
        raise UsageError(f"--maxims {args.maxims[:60]!r}: not a bot of this match (bots: "
                         f"{', '.join(dict.fromkeys(settings.bots))})")
    found = agreement(settings, rows, args.maxims, args.seat)
    if wants_json(args):
        print_json(found.to_json())
    else:
        print_lines(describe_agreement(found))
    return EXIT_OK


COMMAND = Command(
    name="standings",
    summary="standings of a match file: mean counters per deal per bot and pairwise "
            "differences with 95 percent intervals; --records DIR writes every session as a "
            "checkable record",
    description="The standings of a match file: each bot's mean counters per deal and the "
                "pairwise differences, with 95% intervals (the duplicate rotations paired); "
                "--maxims BOT, how often BOT's leads agree with each of Hoyle's maxims; "
                "--records DIR, every complete session and rotation as a record `popejoan "
                "check` confirms.",
    examples=("popejoan standings match.db --seat 1",
              "popejoan standings match.db --json --plot standings.svg --records records/"),
    add_arguments=add_arguments, run=run)
