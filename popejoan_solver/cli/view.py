"""``popejoan view POSITION --seat N``: what one seat knows, and how many deals fit it.

POSITION is a deal (a file, ``-`` or the one-line notation; a position with ``played`` cards
is read without its order where that is exact) or a game record, viewed after its whole line
or at ``--deal I --after K`` (a game in progress: its last deal needs no ``Termination``
tag); ``--line STEPS`` plays steps from a deal first.
"""

from __future__ import annotations

import argparse

from ..command import EXIT_OK, Command
from .args import add_format, add_rules, add_seat, check_seat, wants_json
from .inputs import POSITION_HELP, read_position
from .output import print_json


def add_position_arguments(parser: argparse.ArgumentParser, seat_help: str) -> None:
    """POSITION, ``--seat`` and the options that pick a point of play (``view``, ``advise``)."""
    parser.add_argument("position", metavar="POSITION", help=POSITION_HELP)
    add_seat(parser, required=True, help_text=seat_help)
    parser.add_argument("--deal", type=int, metavar="I",
                        help="record: the deal (from 1; default the last)")
    parser.add_argument("--after", type=int, metavar="K",
                        help="record: after the deal's first K runs (default all of them)")
    parser.add_argument("--line", metavar="STEPS",
                        help="deal: the runs played first, as steps (e.g. '3C 8S+9D@9S')")
    add_rules(parser, help_text="ruleset name for a deal (default: the deal's own; a record "
              "is played under its own)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_position_arguments(parser, "the seat viewing (1 = eldest)")
    parser.add_argument("--infer", metavar="MODEL",
                        help="what the other players' leads tell under an opponent model "
                        "(uniform, hoyle, hoyle:P): each unseen card's odds of each place, "
                        "against uniform")
    add_format(parser, "the view")


def run(args: argparse.Namespace) -> int:
    from ..seat import knowledge
    from ..seat.report import view_json, view_lines

    deal, runs = read_position(args)
    check_seat(args.seat, deal.players)
    known = knowledge(deal, args.seat, runs)
    data = view_json(known, deal)
    odds = None
    if args.infer is not None:
        from ..advice.inferred import card_odds
        from ..advice.opponents import make_model

        odds = card_odds(known, make_model(args.infer))[0]
        data["inference"] = odds.to_json()
    if wants_json(args):
        print_json(data)
    else:
        print("\n".join(view_lines(data) + (["", *odds.lines()] if odds else [])))
    return EXIT_OK


COMMAND = Command(
    name="view",
    summary="what one seat knows at a point of play: its hand, the cards played, the dead "
            "cards the play shows, the stops it can know, and the exact number of deals "
            "consistent with it",
    description="What one seat knows at a point of play: its hand, the turn-up, the cards "
                "played, the dead cards the play shows, the stops it can know, and the exact "
                "number of deals consistent with all of it. POSITION is a deal (with --line, "
                "the runs played first) or a game record (with --deal and --after, the point "
                "of it).",
    examples=("popejoan view deal.json --seat 2 --line '3C 8S+9D@9S'",
              "popejoan view game.txt --seat 1 --deal 1 --after 3 --json"),
    add_arguments=add_arguments, run=run)
