"""``popejoan view POSITION --seat N``: what one seat knows, and how many deals fit it.

POSITION is a deal (a file, ``-`` or the one-line notation; a position with ``played`` cards
is read without its order where that is exact) or a game record, viewed after its whole line
or at ``--deal I --after K`` (a game in progress: its last deal needs no ``Termination``
tag); ``--line STEPS`` plays steps from a deal first.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import replace
from typing import Any

from . import add_help_parser


def register(sub: Any) -> None:
    """Add the ``view`` command."""
    p = add_help_parser(sub, "view", "what one seat knows at a point of play: its hand, the "
                        "cards played, the dead cards the play shows, the stops it can know, "
                        "and the exact number of deals consistent with it")
    p.add_argument("position", metavar="POSITION",
                   help="a deal (file, - or one-line notation) or a game record (file or -)")
    p.add_argument("--seat", type=int, required=True, help="the seat viewing (1 = eldest)")
    p.add_argument("--deal", type=int, metavar="I",
                   help="record: the deal to view (from 1; default the last)")
    p.add_argument("--after", type=int, metavar="K",
                   help="record: view after the deal's first K runs (default all of them)")
    p.add_argument("--line", metavar="STEPS",
                   help="deal: the runs played first, as steps (e.g. '3C 8S+9D@9S')")
    p.add_argument("--infer", metavar="MODEL",
                   help="what the other players' leads tell under an opponent model (uniform, "
                   "hoyle, hoyle:P): each unseen card's odds of each place, against uniform")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_view)


def _text(position: str) -> str:
    from ..cli import position_text

    return position_text(position)


def _from_record(text: str, args: argparse.Namespace) -> tuple[Any, list[Any]] | None:
    """The deal and runs a record gives at ``--deal``/``--after``; None if not a record."""
    from ..analysis.referee import is_unfinished, replay
    from ..cli import UsageError
    from ..model.errors import PopeJoanError
    from ..model.record import parse_record_text

    try:
        record = parse_record_text(text)
    except PopeJoanError:
        if _looks_like_record(text):  # its own error, not the deal reader's
            raise
        return None
    if args.line is not None:
        raise UsageError("--line plays runs from a deal; POSITION is a game record (pick a "
                         "point of it with --deal and --after)")
    last = record.deals[-1]
    if not is_unfinished(last):  # a game in progress: its last deal may stop anywhere
        unfinished = replace(last, tags=(*last.tags, ("Termination", "unfinished")))
        record = replace(record, deals=(*record.deals[:-1], unfinished))
    result = replay(record)
    if result.error is not None:
        raise UsageError(f"the record breaks the rules: {result.error.message}")
    number = args.deal if args.deal is not None else len(result.deals)
    if not 1 <= number <= len(result.deals):
        raise UsageError(f"--deal must be from 1 to {len(result.deals)}, not {number}")
    replayed = result.deals[number - 1]
    runs = [step.run for step in replayed.steps]
    after = args.after if args.after is not None else len(runs)
    if not 0 <= after <= len(runs):
        raise UsageError(f"--after must be from 0 to {len(runs)} (the runs of deal {number}), "
                         f"not {after}")
    return replayed.deal, runs[:after]


def _looks_like_record(text: str) -> bool:
    """A record's text, by its opening: a JSON record names its format; the text form opens
    with a tag (``[Rules "..."]``)."""
    opening = text.lstrip("\ufeff \t\r\n")
    return (re.match(r'\[[A-Za-z][A-Za-z0-9_-]*\s+"', opening) is not None
            or (opening.startswith("{") and '"popejoan-record"' in opening[:4096]))


def _from_deal(text: str, args: argparse.Namespace) -> tuple[Any, list[Any]]:
    """The deal POSITION gives and the runs of ``--line`` (errors: the deal's, or the step's
    with its number)."""
    from ..cli import UsageError
    from ..model.errors import PopeJoanError
    from ..model.notation import parse_deal_text
    from ..seat.line import read_line

    if args.deal is not None or args.after is not None:
        raise UsageError("--deal and --after pick a point of a record; POSITION is a deal "
                         "(give the runs with --line)")
    try:
        deal = parse_deal_text(text)
    except PopeJoanError as exc:
        raise UsageError(f"not a deal or a game record: {exc}") from None
    try:
        runs = read_line(deal, (args.line or "").split())
    except PopeJoanError as exc:
        raise UsageError(f"--line {exc}") from None
    return deal, list(runs)


def cmd_view(args: argparse.Namespace) -> int:
    from ..cli import EXIT_OK, UsageError, _print_json
    from ..seat import knowledge
    from ..seat.report import view_json, view_lines

    text = _text(args.position)
    found = _from_record(text, args)
    deal, runs = found if found is not None else _from_deal(text, args)
    if not 1 <= args.seat <= deal.players:
        raise UsageError(f"--seat must be from 1 to {deal.players}, not {args.seat}")
    known = knowledge(deal, args.seat - 1, runs)
    data = view_json(known, deal)
    odds = None
    if args.infer is not None:
        from ..advice.inferred import card_odds
        from ..advice.opponents import make_model

        odds = card_odds(known, make_model(args.infer))[0]
        data["inference"] = odds.to_json()
    if args.json:
        _print_json(data)
    else:
        print("\n".join(view_lines(data) + (["", *odds.lines()] if odds else [])))
    return EXIT_OK
