"""``popejoan solve``: a deal solved double dummy (every seat's exact result, the leads, an
optimal line), printed and optionally recorded."""

from __future__ import annotations

import argparse
import sys

from ..command import EXIT_OK, EXIT_TIME_LIMIT, Command, UsageError
from ..files.writing import check_output_path, write_output
from ..model.cards import card_name, format_cards
from ..model.deal import Deal
from ..model.record import Record, record_of_line, record_to_json, record_to_text
from ..model.table import compile_rules
from ..search import ENGINES, Solution, solve
from ..search.fast import DEFAULT_TT_ENTRIES
from .args import (
    add_format,
    add_out,
    add_rules,
    add_seat,
    out_option,
    positive,
    seconds,
    wants_json,
)
from .inputs import BUILT_IN_NOTE, DEAL_HELP, load_deal
from .output import json_text, print_json, transfer_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("deal", nargs="?", help=DEAL_HELP + " (default: Hoyle's dead-hand deal)")
    add_rules(parser)
    add_seat(parser, help_text="only this seat (1 = eldest)")
    add_format(parser, "the solution")
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="stop after S seconds, print proven bounds and exit with status 3")
    parser.add_argument("--engine", choices=ENGINES, default="fast",
                        help="the search engine (default fast)")
    parser.add_argument("--tt-entries", type=positive, default=DEFAULT_TT_ENTRIES, metavar="N",
                        help="bound on transposition-table entries per thread (16 bytes each; "
                        f"default {DEFAULT_TT_ENTRIES})")
    parser.add_argument("--threads", type=positive, metavar="K",
                        help="search seats side by side on K threads (default: one per core)")
    add_out(parser, aliases=("--record",),
            help_text="also write the optimal line as a game record (JSON; the text form for "
            "a .txt file), which `popejoan check` confirms")


def run(args: argparse.Namespace) -> int:
    deal = load_deal(args)
    seats = [args.seat] if args.seat is not None else None
    option = out_option(args)
    if args.out is not None and deal.played:
        raise UsageError(f"{option} starts from a deal as dealt, not a position with cards "
                         "played")
    if args.out is not None:
        check_output_path(args.out, option)
    solution = solve(deal, seats=seats, engine=args.engine, time_limit=args.time_limit,
                     tt_entries=args.tt_entries, threads=args.threads)
    if args.out is not None:
        _write_record(args.out, option, record_of_line(deal, [s.run for s in solution.line]),
                      solution.exact)
    if wants_json(args):
        print_json(solution.to_json())
    else:
        if args.deal is None:
            print(BUILT_IN_NOTE)
        print_solution(deal, solution)
    return EXIT_OK if solution.exact else EXIT_TIME_LIMIT


def _write_record(path: str, option: str, record: Record, exact: bool) -> None:
    """Write the optimal line as a record (text form for a ``.txt`` file, else JSON), whole
    or not at all (``files.writing``)."""
    if not exact:
        print(f"warning: {option}: the time limit ran out, so the line recorded may not be "
              "optimal or complete", file=sys.stderr)
    text = (record_to_text(record) if path.endswith(".txt")
            else json_text(record_to_json(record)))
    write_output(path, text, option)


def print_solution(deal: Deal, solution: Solution) -> None:
    """The solution as text: the deal, the seats' values, the leads, the optimal line."""
    hands = ", ".join(str(h.bit_count()) for h in deal.hands)
    last = ("turn-up" if compile_rules(deal.rules).turns_up
            else "last card dealt (not turned up)")
    print(f"{deal.rules.name}: {deal.players} players holding {hands} cards; "
          f"dead hand {format_cards(deal.dead)}; {last} {card_name(deal.turnup)}")
    for t in solution.turnup:
        print(f"turn-up award: {transfer_text(t)}")
    for note in solution.notes:
        print(f"note: {note}")
    _print_seats(solution)
    _print_leads(solution)
    _print_line(solution)
    stats = solution.stats
    core = f" ({stats.core} core)" if stats.core else ""
    threads = f", {stats.threads} threads" if stats.threads > 1 else ""
    print(f"\n{stats.nodes} nodes, {stats.seconds:.3f} s, {stats.engine} engine{core}{threads}")


def _print_seats(solution: Solution) -> None:
    bound = "" if solution.exact else "  (bounds: time limit reached)"
    print(f"\nseat  guaranteed  forced win  best case{bound}")
    for s in solution.seats:
        win = s.forced_win
        win_text = ("yes" if win.lower else "no") if win.is_exact else "?"
        print(f"{s.seat:>4}  {s.guaranteed!s:>10}  {win_text:>10}  {s.best_case!s:>9}")


def _print_leads(solution: Solution) -> None:
    if not solution.leads:
        return
    best = max(lead.guaranteed.lower for lead in solution.leads)
    print(f"\nleads of seat {solution.leader} (guaranteed value kept):")
    for lead in solution.leads:
        mark = "  best" if lead.guaranteed.is_exact and lead.guaranteed.lower == best else ""
        print(f"  {card_name(lead.card):3} {lead.guaranteed!s:>6}{mark}")


def _print_line(solution: Solution) -> None:
    if not solution.line:
        return
    print(f"\noptimal line for seat {solution.line_seat} (the others playing against it):")
    for i, step in enumerate(solution.line, 1):
        print(f"  {i:2}. seat {step.run.leader} leads {card_name(step.run.lead)}: "
              f"{step.run.describe()}")
        for t in step.paid:
            print(f"        paid {transfer_text(t)}")


COMMAND = Command(
    name="solve",
    summary="solve a deal double dummy (default: the built-in example)",
    description="Solve a deal or a position double dummy: each seat's guaranteed value "
                "(the others playing against it), whether it has a forced win, its best case; "
                "the value each lead of the seat on lead keeps; an optimal line. With no DEAL, "
                "Hoyle's dead-hand example. Exit status 3 when --time-limit ran out (bounds "
                "printed instead of exact values).",
    examples=("popejoan solve deal.json --seat 1",
              "popejoan deal --players 4 --seed 7 --format line | popejoan solve - --json",
              "popejoan solve deal.json --rules parlett --set ace=high --out line.txt"),
    add_arguments=add_arguments, run=run)
