"""``popejoan deal``: a seeded random deal, dealt by the ruleset's dealing rule."""

from __future__ import annotations

import argparse

from ..command import EXIT_OK, Command
from ..model.deal import deal_random
from ..model.notation import deal_to_json, deal_to_line, deal_to_toml
from ..model.record import DealSeed, Record, RecordedDeal, record_to_json
from .args import add_json_alias, add_rules, add_seed, ruleset_from, whole
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, required=True, metavar="N", help="3 to 8")
    add_seed(parser, help_text="the seed (with --index, names the deal)")
    parser.add_argument("--index", type=whole, default=0, metavar="I",
                        help="deal number within the seed (0 up)")
    add_rules(parser, default="hoyle-modernized")
    parser.add_argument("--format", choices=("json", "toml", "line", "record"), default="json",
                        help="json (default), toml, line (the one-line notation) or record (a "
                        "game record of the deal with no plays yet, docs/records.md)")
    add_json_alias(parser)


def run(args: argparse.Namespace) -> int:
    rules = ruleset_from(args)
    deal = deal_random(args.players, args.seed, rules, args.index)
    if args.format == "json":
        print_json(deal_to_json(deal))
    elif args.format == "record":
        seed = DealSeed(args.seed, args.index, args.players)
        seeded = RecordedDeal(deal, seed=seed if seed.fits else None)  # else by its cards
        print_json(record_to_json(Record(rules, (seeded,))))
    elif args.format == "toml":
        print(deal_to_toml(deal), end="")
    else:
        print(deal_to_line(deal))
    return EXIT_OK


COMMAND = Command(
    name="deal",
    summary="deal a seeded random deal by the ruleset's dealing rule",
    description="Deal a seeded random deal by the ruleset's dealing rule: one card at a time "
                "from eldest round to the dealer, the dead hand last in each round, the last "
                "card turned up. The same seed, index, players and ruleset always give the "
                "same deal.",
    examples=("popejoan deal --players 4 --seed 7 --format line",
              "popejoan deal --players 5 --seed 2 --rules parlett --set ace=high --format toml"),
    add_arguments=add_arguments, run=run)
