"""``popejoan graph``: the explicit state graph of a deal, summarised and exported."""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from ..command import EXIT_OK, Command, UsageError
from ..files.writing import check_output_path, write_output
from ..model.cards import card_name
from ..model.settlement import turnup_ends_deal
from ..search.graph import DEFAULT_MAX_STATES, GraphSummary, build_graph, export, summarise
from .args import add_out, add_rules, out_option, positive
from .inputs import DEAL_HELP, load_deal
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deal", help=DEAL_HELP)
    parser.add_argument("--format", choices=("graphml", "dot", "json"),
                        help="also export the graph (to --out, else to standard output, the "
                        "summary then going to standard error)")
    add_out(parser, aliases=("--output",), metavar="PATH",
            help_text="the file the exported graph is written to (needs --format)")
    parser.add_argument("--max-states", type=positive, default=DEFAULT_MAX_STATES,
                        metavar="N", help=f"refuse a graph of more states (default "
                        f"{DEFAULT_MAX_STATES})")
    parser.add_argument("--json", action="store_true",
                        help="print the summary as JSON (not the export: that is --format json)")
    add_rules(parser)


def run(args: argparse.Namespace) -> int:
    deal = load_deal(args)
    option = out_option(args)
    if args.out is not None:  # checked before the graph, which may take minutes to build
        check_output_path(args.out, option)
        if args.format is None:
            raise UsageError(f"{option} needs --format (graphml, dot or json)")
    graph, root = build_graph(deal, args.max_states)
    summary = summarise(graph, root)
    out: TextIO = sys.stdout
    if args.format:
        text = export(graph, args.format)
        if args.out is not None:
            write_output(args.out, text, option)  # whole or not at all, even on Ctrl-C
        else:
            sys.stdout.write(text)
            out = sys.stderr
    if args.json and out is sys.stdout:
        print_json(summary.to_json())
        return EXIT_OK
    _print_summary(summary, out)
    if turnup_ends_deal(deal):
        print(f"the turn-up {card_name(deal.turnup)} ends the deal under these rules: no card "
              "is played", file=out)
    return EXIT_OK


def _print_summary(summary: GraphSummary, out: TextIO) -> None:
    lines = [f"states:         {summary.states}",
             f"edges:          {summary.edges}",
             f"terminal:       {summary.terminal_states}",
             f"shortest game:  {summary.shortest_game} leads",
             f"longest game:   {summary.longest_game} leads",
             f"acyclic:        {'yes' if summary.acyclic else 'NO'}"]
    print("\n".join(lines), file=out)


COMMAND = Command(
    name="graph",
    summary="build the explicit state graph and summarise it",
    description="Build the explicit state graph of a deal's play (every position its play "
                "can reach, joined by the moves between them) and summarise it: states, "
                "edges, terminal states, the shortest and longest game, whether it is "
                "acyclic. --format exports the graph as GraphML, Graphviz dot or JSON.",
    examples=("popejoan graph deal.json --json",
              "popejoan graph deal.json --format dot --out graph.dot"),
    add_arguments=add_arguments, run=run)
