"""``popejoan stops``: a deal's stops and the cards that cannot be led to."""

from __future__ import annotations

import argparse

from ..command import EXIT_OK, Command
from ..model.cards import card_name
from ..model.stops import View, analyse_stops
from ..model.table import compile_rules
from .args import add_format, add_rules, wants_json
from .inputs import DEAL_HELP, load_deal
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deal", help=DEAL_HELP)
    parser.add_argument("--view", choices=[v.value for v in View], default="referee",
                        help="who looks: the referee, who knows the dead hand (default), or a "
                        "player, who knows only the turn-up")
    add_format(parser, "the stops")
    add_rules(parser)


def run(args: argparse.Namespace) -> int:
    deal = load_deal(args)
    report = analyse_stops(deal, View(args.view))
    if wants_json(args):
        print_json(report.to_json())
        return EXIT_OK
    turned = compile_rules(deal.rules).turns_up
    who = ("a referee who knows the dead hand" if report.view is View.REFEREE else
           "a player who knows only the turn-up" if turned else
           "a player who knows no dead card (no card is turned up)")
    print(f"As seen by {who}:")
    print(f"  stops:            {' '.join(card_name(c) for c in report.stops)}")
    print(f"  cannot be led to: {' '.join(card_name(c) for c in report.cannot_be_led_to)}")
    return EXIT_OK


COMMAND = Command(
    name="stops",
    summary="stops and cards that cannot be led to",
    description="A deal's stops (cards whose successor can never be played next: past the "
                "top of the suit, out of the pack, dead or already played) and the cards that "
                "cannot be led to (their predecessor can never be played before them), as the "
                "referee sees them, who knows the dead hand, or as a player, who knows only "
                "the turn-up.",
    examples=("popejoan stops deal.json --view player",
              "popejoan deal --players 4 --seed 1 | popejoan stops - --json"),
    add_arguments=add_arguments, run=run)
