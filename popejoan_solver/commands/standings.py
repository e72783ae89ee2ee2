"""``popejoan standings``: who plays best in a match file, with intervals (docs/bots.md)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from . import add_help_parser

HELP = ("standings of a match file: mean counters per deal per bot and pairwise differences "
        "with 95 percent intervals; --records DIR writes every session as a checkable record")


def register(sub: Any) -> None:
    parser = add_help_parser(sub, "standings", HELP)
    parser.add_argument("file", help="a match file (popejoan match --out)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--plot", default=None, help="a .png or .svg bar chart")
    parser.add_argument("--seat", type=int, default=None,
                        help="only the plays at this seat (1 = eldest, the last the dealer); with "
                             "--maxims, only the leads made there")
    parser.add_argument("--maxims", default=None, metavar="BOT",
                        help="how often BOT's leads agree with each of Hoyle's maxims (instead "
                             "of the standings; not with --plot)")
    parser.add_argument("--records", default=None,
                        help="a folder (made if new): write each complete session and rotation "
                             "as a record (sSESSION-rROTATION.json) for popejoan check")
    parser.set_defaults(func=cmd_standings)


def cmd_standings(args: argparse.Namespace) -> int:
    from ..analysis.match import read_match, session_records
    from ..analysis.outfile import check_output_folder, check_output_path, write_output
    from ..analysis.standings import describe, plot, standings
    from ..cli import UsageError, _print_json, print_lines
    from ..model.record import record_to_json

    if args.plot is not None:
        if Path(args.plot).suffix.lower() not in (".png", ".svg"):
            raise UsageError("--plot writes a .png or .svg file")
        if args.maxims is not None:
            raise UsageError("--plot draws the standings: leave out --maxims for it")
        check_output_path(args.plot, "--plot")
    folder = Path(args.records) if args.records is not None else None
    if args.records is not None:
        check_output_folder(args.records, "--records")
    settings, rows = read_match(Path(args.file))
    if args.seat is not None and not 1 <= args.seat <= settings.players:
        raise UsageError(f"--seat must be from 1 to {settings.players}, not {args.seat}")
    if folder is not None:
        import json

        _make_folder(folder, args.records)
        for session, rotation, record in session_records(settings, rows):
            write_output(folder / f"s{session}-r{rotation}.json",
                         json.dumps(record_to_json(record), ensure_ascii=False) + "\n",
                         "--records")
    if args.maxims is not None:
        return _maxims(settings, rows, args)
    result = standings(settings, rows, None if args.seat is None else args.seat - 1)
    if args.plot is not None:
        plot(result, Path(args.plot))
    if args.json:
        _print_json(result.to_json())
    else:
        print_lines(describe(result))
    return 0


def _make_folder(folder: Path, given: str) -> None:
    """``--records``: a new folder is made (its parent must exist), once the file is read."""
    from ..cli import UsageError

    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--records {given[:60]!r}: cannot make the folder: "
                         f"{exc.strerror or exc}") from None


def _maxims(settings: Any, rows: Any, args: argparse.Namespace) -> int:
    from ..analysis.agreement import agreement, describe_agreement
    from ..cli import UsageError, _print_json, print_lines

    if args.maxims not in settings.bots:
        raise UsageError(f"--maxims {args.maxims[:60]!r}: not a bot of this match (bots: "
                         f"{', '.join(dict.fromkeys(settings.bots))})")
    found = agreement(settings, rows, args.maxims,
                      None if args.seat is None else args.seat - 1)
    if args.json:
        _print_json(found.to_json())
    else:
        print_lines(describe_agreement(found))
    return 0
