"""``popejoan find``: deals with a property, found by SAT and checked exactly."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from ..command import EXIT_DISAGREE, EXIT_INTERNAL, EXIT_OK, EXIT_TIME_LIMIT, Command, UsageError
from ..jobs.pool import TtyProgress, tty_progress
from ..logic.find import DESCRIPTIONS, FindQuery, FindResult, Property, find_deals, parse_hold
from ..model.cards import CardSet
from ..model.notation import deal_to_line
from ..model.rules import Ruleset
from .args import (
    add_format,
    add_rules,
    add_seat,
    add_seed,
    check_seat,
    positive,
    ruleset_from,
    seconds,
    wants_json,
)
from .certificates import certificate_folder, command_line, internal_error
from .output import json_text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("property", choices=[x.value for x in Property],
                        help="the property a deal must have")
    parser.add_argument("--players", type=int, default=4, metavar="N", help="3 to 8 (default 4)")
    add_rules(parser, default="hoyle-modernized")
    add_seat(parser, default=1, help_text="the seat (default 1, eldest)")
    parser.add_argument("--hold", metavar="SEAT:CARDS", action="append",
                        help="cards a seat must hold, e.g. 2:QH,KH (repeatable)")
    parser.add_argument("--dead", metavar="CARDS", help="cards that must be dead, e.g. 8S,TS")
    parser.add_argument("--count", type=positive, default=1,
                        help="how many distinct deals (default 1): two deals are the same when "
                        "every seat holds the same cards; another turn-up is not a new deal")
    add_seed(parser, default=0, help_text="varies which deals are found (default 0)")
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="stop after S seconds (exit status 3 if no deal was found)")
    add_format(parser, "the deals found")
    parser.add_argument("--certificate", metavar="DIR",
                        help="write the deals found, or for 'no such deal' the DIMACS CNF and "
                        "a DRUP proof checked by dratify, to the new folder DIR")


def _query(args: argparse.Namespace, rules: Ruleset) -> FindQuery:
    """The search the options ask for (the time limit and the cards are checked by
    ``find_deals``)."""
    if not 3 <= args.players <= 8:
        raise UsageError(f"--players must be from 3 to 8, not {args.players}")
    check_seat(args.seat, args.players)
    hold: dict[int, int] = {}
    for text in args.hold or []:
        seat, mask = parse_hold(text, args.players)
        hold[seat] = hold.get(seat, 0) | mask
    dead = 0
    if args.dead is not None:
        dead = CardSet.parse(args.dead.replace(",", " ")).mask
        if not dead:
            raise UsageError("--dead names no cards (write CARDS, like 8S,TS)")
    return FindQuery(Property(args.property), rules, args.players, args.seat, hold, dead,
                     args.count, args.seed, args.time_limit)


def run(args: argparse.Namespace) -> int:
    rules = ruleset_from(args)
    folder = certificate_folder(args)
    query = _query(args, rules)
    bar = tty_progress("deal")
    progress = None if bar is None else _find_progress(bar)
    try:
        if folder is not None:
            from ..logic.certificates import find_certified
            from ..logic.prover import ProofError

            try:
                result = find_certified(query, folder, command_line(args), progress)
            except ProofError as exc:  # the proof failed its check: a bug, never a verdict
                internal_error(exc, "a bug of popejoan: please report it")
                return EXIT_INTERNAL
        else:  # Ctrl-C: KeyboardInterrupt, the SAT solver stopped
            result = find_deals(query, progress)
    finally:
        if bar is not None:
            bar.close()
    # Written in one piece once the search is over: nothing half-written.
    if wants_json(args):
        data = result.to_json()
        if args.certificate is not None:
            data["certificate"] = args.certificate
        text = json_text(data)
    else:
        text = "\n".join(_report(args, query, result)) + "\n"
    sys.stdout.write(text)
    if result.deals:
        return EXIT_OK
    return EXIT_DISAGREE if result.proved_none else EXIT_TIME_LIMIT


def _find_progress(bar: TtyProgress) -> Callable[[int, int, int], None]:
    """The bar of ``find``: deals found of the count asked for, and the candidates checked."""
    def update(found: int, count: int, candidates: int) -> None:
        checked = f"{candidates} candidate{'s' if candidates != 1 else ''} checked"
        if found < count:
            bar(found, count)
            bar.note(checked)
        else:  # the last update closes the bar: the note first
            bar.note(checked)
            bar(found, count)
    return update


def _report(args: argparse.Namespace, query: FindQuery, result: FindResult) -> list[str]:
    stats = result.stats
    lines = [f"{args.property} ({DESCRIPTIONS[query.prop]}), {query.rules.name}, "
             f"{args.players} players, seat {args.seat}:"]
    lines += [f"  {deal_to_line(deal)}" for deal in result.deals]
    if result.proved_none:
        lines.append("  no such deal exists: the search space is exhausted (a proof)")
    elif stats.exhausted and len(result.deals) < args.count:
        lines.append("  no more deals: the search space is exhausted"
                     + (f" ({stats.undecided} candidate(s) undecided)"
                        if stats.undecided else ""))
    elif stats.timed_out:
        lines.append("  time limit reached")
    lines.append(f"  {stats.candidates} candidates, {stats.learned_clauses} learned "
                 f"clauses, {stats.seconds:.2f} s")
    if args.certificate is not None:
        proof = (" and a DRUP proof that there are no more, verified by dratify"
                 if stats.exhausted and not stats.undecided else "")
        lines.append(f"  certificate: {args.certificate} (the deals found{proof}; "
                     "manifest.json)")
    return lines


COMMAND = Command(
    name="find",
    summary="find deals with a property (SAT + exact checks)",
    description="Find deals with a property (a forced win, a first lead that goes out, ...): "
                "python-sat proposes candidates under the constraints given, and each is "
                "checked exactly by the model and the solver. Exit status 1 when the search "
                "proved that no such deal exists, 3 when it ran out of time with none found.",
    examples=("popejoan find first-lead-out --players 3 --seed 1",
              "popejoan find forced-win --players 4 --seat 2 --hold 2:QH,KH --count 2 --json"),
    add_arguments=add_arguments, run=run)
