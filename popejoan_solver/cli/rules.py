"""``popejoan rules``: the rulesets, each option's value and its source, then every option."""

from __future__ import annotations

import argparse

from ..command import EXIT_OK, Command
from ..model.rules import RULESETS, get_ruleset, options_lines, rules_json, ruleset_lines
from .args import add_format, wants_json
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", nargs="?", help="one ruleset (default: all)")
    add_format(parser, "the rulesets")


def run(args: argparse.Namespace) -> int:
    names = [args.name] if args.name else list(RULESETS)
    rulesets = [get_ruleset(n) for n in names]
    if wants_json(args):
        print_json(rules_json(rulesets))
        return EXIT_OK
    for r in rulesets:
        print("\n".join(ruleset_lines(r)) + "\n")
    print("\n".join(options_lines()))
    return EXIT_OK


COMMAND = Command(
    name="rules",
    summary="list the rulesets, every option's value and its source (author, title, year, "
            "section, the phrase quoted), then every option",
    description="List the rulesets the tool plays: for each, every rule option's value and "
                "the source it follows (author, title, year, section and the phrase quoted); "
                "then every option with its values. A ruleset NAME+OPT=V,... (or --set on the "
                "other commands) changes options of a ruleset.",
    examples=("popejoan rules parlett", "popejoan rules --json"),
    add_arguments=add_arguments, run=run)
