"""The ``popejoan`` command line: ``main(argv) -> int``, also run by ``python -m popejoan_solver``.

Exit status: 0 done; 1 a case disagrees with the model, a theorem is refuted, ``find``
proved that no such deal exists, or ``check`` found an illegal step in a record; 2 bad input
(one line ``error: ...`` on stderr); 3 a time limit ran out (bounds printed instead of exact
values), or a theorem stayed unknown or was vacuous; 4 an internal error of ``prove`` (or of
``case``/``cases`` proving a case's theorem: the encoding and the rules model disagree, or a
frame of a proof is impossible: a bug of the tool).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import json
import math
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn

from .analysis.batch import TtyProgress, parse_players, run_batch, tty_progress
from .analysis.grading import describe as describe_grade
from .analysis.grading import grade_record
from .analysis.graph import DEFAULT_MAX_STATES, build_graph, export, summarise
from .analysis.outfile import check_output_folder, check_output_path, write_output
from .analysis.referee import RecordReplay, describe, replay
from .analysis.stats import groups, interval_text, plot, wilson
from .analysis.textfile import MAX_INPUT_BYTES, read_bounded, read_text_file
from .commands import register_all
from .logic.find import DESCRIPTIONS, FindQuery, Property, find_deals, parse_hold
from .model.cards import CardSet, card_name, format_cards
from .model.deal import Deal, deal_random, deal_warnings
from .model.errors import PopeJoanError, clip, escape_controls
from .model.examples import hoyle_dead_hand
from .model.notation import (
    deal_from_json,
    deal_to_json,
    deal_to_line,
    deal_to_toml,
    parse_deal_text,
)
from .model.record import (
    DealSeed,
    Record,
    RecordedDeal,
    parse_record_text,
    record_of_line,
    record_to_json,
    record_to_text,
)
from .model.rules import (
    RULESETS,
    get_ruleset,
    options_lines,
    parse_assignments,
    rules_json,
    ruleset_lines,
    split_rulesets,
)
from .model.settlement import Transfer, turnup_ends_deal
from .model.stops import View, analyse_stops
from .model.table import compile_rules
from .search import ENGINES, Solution, solve
from .search.fast import DEFAULT_TT_ENTRIES

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from .analysis.cases import CaseResult
    from .logic.prover import TheoremResult

# The proof and case commands import z3 on first use: loading it costs every other command
# (`solve` above all) about 0.1 s of start-up.

EXIT_OK, EXIT_DISAGREE, EXIT_BAD_INPUT, EXIT_TIME_LIMIT, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe


class UsageError(PopeJoanError):
    """A command line that cannot be understood."""


_QUOTED: Final = re.compile(r"'[^']{80,}'|\"[^\"]{80,}\"")
"""A value argparse echoes in quotes, long enough to be cut to what a message shows."""
_ARGPARSE_TYPE: Final = re.compile(r"invalid _\w+ value")
"""argparse's "invalid TYPE value", TYPE the name of one of this module's functions."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes the user's value whole, and names a type by its function's name.
        message = _ARGPARSE_TYPE.sub("invalid value", message)
        message = _QUOTED.sub(lambda quoted: repr(clip(quoted[0][1:-1])), message)
        raise UsageError(clip(message, 600))  # its quoted values are cut already

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """Help, usage and version text, written without argparse's swallowing of a write
        error: ``--help`` onto a full disk is an error (see :func:`main`), not status 0."""
        if message:
            (file or sys.stderr).write(message)


def read_deal(text: str | None, stdin: Any = None) -> Deal:
    """A deal from a file path, ``-`` (standard input), the one-line notation, or the example."""
    if text is None:
        return hoyle_dead_hand()
    return parse_deal_text(position_text(text, stdin))


def position_text(text: str, stdin: Any = None) -> str:
    """The text a DEAL or POSITION argument gives: a file's (a named pipe's once written),
    standard input's for ``-``, or the argument itself in the one-line notation (it holds
    the ``|`` before the dead hand or the ``^`` of the turn-up)."""
    if text == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None:
            raise UsageError("standard input is closed: give the deal as a file or on a pipe")
        return read_bounded(getattr(stream, "buffer", stream), "standard input")
    if os.path.exists(text):
        return read_text_file(text)
    if "^" in text or "|" in text:
        if len(text) > MAX_INPUT_BYTES:
            raise UsageError(f"the deal is larger than {MAX_INPUT_BYTES} bytes: not a deal")
        return text
    raise UsageError(f"no such file {clip(text)!r}, and not a one-line deal "
                     "(see docs/notation.md)")


BUILT_IN_NOTE: Final = ("the built-in example: Hoyle's dead-hand deal, eleven cards to each "
                        "of four players and his seven dead cards (not a ruleset's own split: "
                        "`popejoan deal` deals one)")
"""What ``solve`` says of the built-in example on standard output, in place of the warning
that its split is not the ruleset's own (Hoyle's example chose the seven dead cards)."""


def _load(args: argparse.Namespace) -> Deal:
    deal = read_deal(args.deal)
    if args.rules is not None or args.set:
        rules = get_ruleset(args.rules) if args.rules is not None else deal.rules
        rules = rules.with_options(parse_assignments(args.set or []))
        deal = deal.with_rules(rules)
    if args.deal is not None:  # the built-in example's split is Hoyle's: noted, not warned of
        for warning in deal_warnings(deal):
            print(f"warning: {warning}", file=sys.stderr)
    return deal


def _add_rules_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rules", metavar="R", help="ruleset name (overrides the deal's)")
    parser.add_argument("--set", metavar="OPT=V", action="append",
                        help="override one rule option (repeatable), e.g. --set ace=high")


def _print_json(data: Any) -> None:
    sys.stdout.write(json_text(data))


# ----------------------------------------------------------------------------- rules

def cmd_rules(args: argparse.Namespace) -> int:
    names = [args.name] if args.name else list(RULESETS)
    rulesets = [get_ruleset(n) for n in names]
    if args.json:
        _print_json(rules_json(rulesets))
        return EXIT_OK
    for r in rulesets:
        print("\n".join(ruleset_lines(r)) + "\n")
    print("\n".join(options_lines()))
    return EXIT_OK


# ----------------------------------------------------------------------------- deal

def cmd_deal(args: argparse.Namespace) -> int:
    rules = get_ruleset(args.rules).with_options(parse_assignments(args.set or []))
    deal = deal_random(args.players, args.seed, rules, args.index)
    if args.format == "json":
        _print_json(deal_to_json(deal))
    elif args.format == "record":
        seed = DealSeed(args.seed, args.index, args.players)
        seeded = RecordedDeal(deal, seed=seed if seed.fits else None)  # else by its cards
        _print_json(record_to_json(Record(rules, (seeded,))))
    elif args.format == "toml":
        print(deal_to_toml(deal), end="")
    else:
        print(deal_to_line(deal))
    return EXIT_OK


# ----------------------------------------------------------------------------- stops

def cmd_stops(args: argparse.Namespace) -> int:
    deal = _load(args)
    report = analyse_stops(deal, View(args.view))
    if args.json:
        _print_json(report.to_json())
        return EXIT_OK
    turned = compile_rules(deal.rules).turns_up
    who = ("a referee who knows the dead hand" if report.view is View.REFEREE else
           "a player who knows only the turn-up" if turned else
           "a player who knows no dead card (no card is turned up)")
    print(f"As seen by {who}:")
    print(f"  stops:            {' '.join(card_name(c) for c in report.stops)}")
    print(f"  cannot be led to: {' '.join(card_name(c) for c in report.cannot_be_led_to)}")
    return EXIT_OK


# ----------------------------------------------------------------------------- graph

def cmd_graph(args: argparse.Namespace) -> int:
    deal = _load(args)
    if args.output is not None:  # checked before the graph, which may take minutes to build
        check_output_path(args.output, "--output")
        if args.format is None:
            raise UsageError("--output needs --format (graphml, dot or json)")
    graph, root = build_graph(deal, args.max_states)
    summary = summarise(graph, root)
    out = sys.stdout
    if args.format:
        text = export(graph, args.format)
        if args.output is not None:
            write_output(args.output, text, "--output")  # whole or not at all, even on Ctrl-C
        else:
            sys.stdout.write(text)
            out = sys.stderr
    if args.json and out is sys.stdout:
        _print_json(summary.to_json())
        return EXIT_OK
    print(f"states:         {summary.states}", file=out)
    print(f"edges:          {summary.edges}", file=out)
    print(f"terminal:       {summary.terminal_states}", file=out)
    print(f"shortest game:  {summary.shortest_game} leads", file=out)
    print(f"longest game:   {summary.longest_game} leads", file=out)
    print(f"acyclic:        {'yes' if summary.acyclic else 'NO'}", file=out)
    if turnup_ends_deal(deal):
        print(f"the turn-up {card_name(deal.turnup)} ends the deal under these rules: no card "
              "is played", file=out)
    return EXIT_OK


# ----------------------------------------------------------------------------- cases

def _cases_dir(option: str | None) -> Path | None:
    """The folder of ``--dir``, else of ``POPEJOAN_CASES``; None: the published cases, which
    ship in the package."""
    given, named = option, "--dir "
    if given is None:
        given, named = os.environ.get("POPEJOAN_CASES") or None, "POPEJOAN_CASES="
    if given is None:
        return None
    if not Path(given).is_dir():
        what = "is not a directory" if Path(given).exists() else "no such directory"
        raise UsageError(f"{named}{clip(given)}: {what}")
    return Path(given)


def _print_case(result: CaseResult) -> None:
    case = result.case
    verdict = "agrees" if result.agrees else "DISAGREES"
    print(f"{case.name}: the model {verdict}")
    print(f"  source: {case.source}")
    print(f"  claim:  \"{case.claim}\"")
    if case.note:
        print(f"  note:   {case.note}")
    for finding in result.findings:
        print(f"  found:  {finding}")
    for check in result.checks:
        mark = "ok " if check.ok else "BAD"
        print(f"  [{mark}] {check.what}: expected {check.expected}, found {check.found}")


def _internal_error(exc: Exception) -> int:
    """One line for a bug of the tool (a :class:`ProofError`): status 4, never a verdict."""
    print(f"error: internal error: {clip(str(exc), 400)} (a bug of popejoan, not of the "
          "rules or the input: please report it)", file=sys.stderr)
    return EXIT_INTERNAL


def cmd_case(args: argparse.Namespace) -> int:
    from .analysis.cases import check_case, load_cases
    from .logic.prover import ProofError

    cases = {c.name: c for c in load_cases(_cases_dir(args.dir))}
    if args.name not in cases:
        raise UsageError(f"no case {clip(args.name)!r} (known: {', '.join(sorted(cases))})")
    try:  # a proof case's prover may find a bug of the tool: neither agrees nor disagrees
        result = check_case(cases[args.name])
    except ProofError as exc:
        return _internal_error(exc)
    if args.json:
        _print_json(result.to_json())
    else:
        _print_case(result)
    return EXIT_OK if result.agrees else EXIT_DISAGREE


def cmd_cases(args: argparse.Namespace) -> int:
    """Every case, each line printed as its case is checked (in the cases' order); with
    ``--json`` one document at the end, and a progress bar on a terminal meanwhile."""
    from .analysis.cases import check_cases, load_cases
    from .logic.prover import ProofError
    from .search.api import usable_cores

    cases = load_cases(_cases_dir(args.dir))
    width = max(len(c.name) for c in cases)
    progress = tty_progress("case") if args.json else None
    if progress is not None:
        progress(0, len(cases))
    results: list[CaseResult] = []
    try:  # a proof case's prover may find a bug of the tool: neither agrees nor disagrees
        for r in check_cases(cases, args.workers or usable_cores()):
            results.append(r)
            if progress is not None:
                progress(len(results), len(cases))
            if not args.json:
                print(f"{r.case.name:{width}}  {'agrees' if r.agrees else 'DISAGREES'}  "
                      f"({r.case.source})", flush=True)
    except ProofError as exc:
        return _internal_error(exc)
    finally:
        if progress is not None:
            progress.close()
    if args.json:
        _print_json({"cases": [r.to_json() for r in results]})
    else:
        agree = sum(r.agrees for r in results)
        print(f"{agree} of {len(results)} cases agree with the model")
    return EXIT_OK if all(r.agrees for r in results) else EXIT_DISAGREE


# ----------------------------------------------------------------------------- solve

def _transfer_text(t: Transfer) -> str:
    def party(p: object) -> str:
        return f"seat {p + 1}" if isinstance(p, int) else str(p)
    return f"{party(t.payer)} -> {party(t.payee)}: {t.amount} ({t.reason})"


def _print_solution(deal: Deal, solution: Solution) -> None:
    hands = ", ".join(str(h.bit_count()) for h in deal.hands)
    last = ("turn-up" if compile_rules(deal.rules).turns_up
            else "last card dealt (not turned up)")
    print(f"{deal.rules.name}: {deal.players} players holding {hands} cards; "
          f"dead hand {format_cards(deal.dead)}; {last} {card_name(deal.turnup)}")
    for t in solution.turnup:
        print(f"turn-up award: {_transfer_text(t)}")
    for note in solution.notes:
        print(f"note: {note}")
    bound = "" if solution.exact else "  (bounds: time limit reached)"
    print(f"\nseat  guaranteed  forced win  best case{bound}")
    for s in solution.seats:
        win = s.forced_win
        win_text = ("yes" if win.lower else "no") if win.is_exact else "?"
        print(f"{s.seat:>4}  {s.guaranteed!s:>10}  {win_text:>10}  {s.best_case!s:>9}")
    if solution.leads:
        best = max(lead.guaranteed.lower for lead in solution.leads)
        print(f"\nleads of seat {solution.leader} (guaranteed value kept):")
        for lead in solution.leads:
            mark = "  best" if lead.guaranteed.is_exact and lead.guaranteed.lower == best else ""
            print(f"  {card_name(lead.card):3} {lead.guaranteed!s:>6}{mark}")
    if solution.line:
        print(f"\noptimal line for seat {solution.line_seat} (the others playing against it):")
        for i, step in enumerate(solution.line, 1):
            print(f"  {i:2}. seat {step.run.leader + 1} leads {card_name(step.run.lead)}: "
                  f"{step.run.describe()}")
            for t in step.paid:
                print(f"        paid {_transfer_text(t)}")
    stats = solution.stats
    core = f" ({stats.core} core)" if stats.core else ""
    threads = f", {stats.threads} threads" if stats.threads > 1 else ""
    print(f"\n{stats.nodes} nodes, {stats.seconds:.3f} s, {stats.engine} engine{core}{threads}")


def solve_json(solution: Solution) -> dict[str, Any]:
    """What ``solve --json`` prints (and the web table's ``POST /api/solve`` answers)."""
    data = solution.to_json()
    return ({k: data[k] for k in ("seats", "leads", "line", "stats")} |
            {k: data[k] for k in data if k not in ("seats", "leads", "line", "stats")})


def cmd_solve(args: argparse.Namespace) -> int:
    deal = _load(args)
    seats = [args.seat] if args.seat is not None else None
    if args.record is not None and deal.played:
        raise UsageError("--record starts from a deal as dealt, not a position with cards played")
    if args.record is not None:
        check_output_path(args.record, "--record")
    solution = solve(deal, seats=seats, engine=args.engine, time_limit=args.time_limit,
                     tt_entries=args.tt_entries, threads=args.threads)
    if args.record is not None:
        _write_record(args.record, record_of_line(deal, [s.run for s in solution.line]),
                      solution.exact)
    if args.json:
        _print_json(solve_json(solution))
    else:
        if args.deal is None:
            print(BUILT_IN_NOTE)
        _print_solution(deal, solution)
    return EXIT_OK if solution.exact else EXIT_TIME_LIMIT


def _write_record(path: str, record: Record, exact: bool) -> None:
    """Write the optimal line as a record (text form for a ``.txt`` file, else JSON), whole
    or not at all (``analysis.outfile``)."""
    if not exact:
        print("warning: --record: the time limit ran out, so the line recorded may not be "
              "optimal or complete", file=sys.stderr)
    text = (record_to_text(record) if path.endswith(".txt")
            else json.dumps(record_to_json(record), indent=2, ensure_ascii=False) + "\n")
    write_output(path, text, "--record")


# ----------------------------------------------------------------------------- check

def read_record(text: str, stdin: Any = None) -> Record:
    """A record from a file path or ``-`` (standard input), JSON or the text form."""
    if text == "-":
        stream = stdin if stdin is not None else sys.stdin
        if stream is None:
            raise UsageError("standard input is closed: give the record as a file or on a pipe")
        return parse_record_text(read_bounded(getattr(stream, "buffer", stream),
                                              "standard input"))
    return parse_record_text(read_text_file(text))


def check_json(result: RecordReplay) -> dict[str, Any]:
    """What ``check --json`` prints (and the web table's ``POST /api/check`` answers)."""
    data: dict[str, Any] = result.to_json()
    return data


def json_text(data: Any) -> str:
    """JSON as the commands print it: indented by two, non-ASCII kept, one final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def print_lines(lines: Sequence[str]) -> None:
    """Lines of a report that shows text from a file (players' names, tags, bots' names), its
    control characters escaped: a terminal shows them, never acts on them."""
    print("\n".join(escape_controls(line) for line in lines))


def cmd_check(args: argparse.Namespace) -> int:
    result = replay(read_record(args.record))
    if args.json:
        _print_json(check_json(result))
    else:
        print_lines(describe(result))
    return EXIT_OK if result.legal else EXIT_DISAGREE


def cmd_grade(args: argparse.Namespace) -> int:
    record = read_record(args.record)
    only = None
    if args.seat is not None:
        if args.seat > record.seats:
            raise UsageError(f"--seat: the record has {record.seats} players, not {args.seat}")
        only = args.seat - 1
    result = grade_record(record, time_limit=args.time_limit)
    if result.error is not None:
        if args.json:
            _print_json(result.to_json(only))
        else:
            print(f"not graded: the record is illegal: {result.error.describe()}")
        return EXIT_DISAGREE
    if args.json:
        _print_json(result.to_json(only))
    else:
        print_lines(describe_grade(result, only))
    exact = all(g.grade.kept.is_exact and g.grade.best.is_exact for g in result.leads)
    return EXIT_OK if exact else EXIT_TIME_LIMIT


# ----------------------------------------------------------------------------- prove

def _ruleset_from(args: argparse.Namespace) -> Any:
    rules = get_ruleset(args.rules)
    return rules.with_options(parse_assignments(args.set or []))


def _print_theorem(result: TheoremResult) -> None:
    print(f"{result.name}: {result.status.value.upper()}  ({result.seconds:.1f} s)")
    print(f"  {result.statement}")
    if result.source is not None:
        print(f"  source: {result.source.cite()}")
    print(f"  method: {result.method}")
    for detail in result.details:
        print(f"  {detail}")
    example = result.counterexample
    if example is not None:
        try:
            line = deal_to_line(deal_from_json(example.deal))
        except PopeJoanError:
            line = json.dumps(example.deal, ensure_ascii=False)
        print(f"  counterexample: {line}")
        for step in example.line:
            cards = " ".join(step.get("run", [step["lead"]]))
            print(f"    seat {step.get('seat', '?')} leads: {cards}"
                  + (f"  ({step['reason']})" if "reason" in step else ""))
    print()


def cmd_prove(args: argparse.Namespace) -> int:
    import contextlib
    import io

    from .logic.prover import ProofError, Status
    from .logic.theorems import prove

    rules = _ruleset_from(args)
    names = args.theorem or None
    folder = _certificate_folder(args)
    try:  # Ctrl-C: KeyboardInterrupt, never a verdict
        if folder is not None:
            from .logic.certificates import prove_certified

            results = prove_certified(rules, names, folder, _command(args))
        else:
            results = prove(rules, names)
    except ProofError as exc:  # neither an answer nor bad input
        print(f"error: internal error: {clip(str(exc), 400)} (a bug of popejoan, not of the "
              "rules or the input: please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    # The report is written in one piece once every theorem is settled: nothing half-written.
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        if args.json:
            data: dict[str, Any] = {"theorems": [r.to_json() for r in results]}
            if args.certificate is not None:
                data["certificate"] = args.certificate
            _print_json(data)
        else:
            print(f"ruleset {rules.name}: {len(results)} theorem(s), every deal of 3-8 "
                  "players (each time includes the shared work the theorem needed, so the "
                  "times overlap)\n")
            for result in results:
                _print_theorem(result)
            if args.certificate is not None:
                print(f"certificate: {args.certificate} (every unsat query as SMT-LIB, each "
                      "re-checked by cvc5 from its file; deals and lines; manifest.json)")
    sys.stdout.write(report.getvalue())
    statuses = {r.status for r in results}
    if Status.REFUTED in statuses:
        return EXIT_DISAGREE
    return EXIT_TIME_LIMIT if statuses & {Status.UNKNOWN, Status.VACUOUS} else EXIT_OK


def _certificate_folder(args: argparse.Namespace) -> str | None:
    """``--certificate DIR`` checked as every output path is (``analysis.outfile``): the
    folder through any symbolic link, or None."""
    if args.certificate is None:
        return None
    return str(check_output_folder(args.certificate, "--certificate"))


def _command(args: argparse.Namespace) -> list[str]:
    """The command line, for a certificate's manifest."""
    return ["popejoan", *(sys.argv[1:] if args.argv is None else args.argv)]


# ----------------------------------------------------------------------------- find

def cmd_find(args: argparse.Namespace) -> int:
    rules = _ruleset_from(args)
    folder = _certificate_folder(args)
    # The time limit (finite, above 0), the seat and the cards are checked by find_deals.
    if not 3 <= args.players <= 8:
        raise UsageError(f"--players must be from 3 to 8, not {args.players}")
    hold: dict[int, int] = {}
    for text in args.hold or []:
        seat, mask = parse_hold(text, args.players)
        hold[seat] = hold.get(seat, 0) | mask
    dead = 0
    if args.dead is not None:
        dead = CardSet.parse(args.dead.replace(",", " ")).mask
        if not dead:
            raise UsageError("--dead names no cards (write CARDS, like 8S,TS)")
    query = FindQuery(Property(args.property), rules, args.players, args.seat - 1, hold, dead,
                      args.count, args.seed, args.time_limit)
    bar = tty_progress("deal")
    progress = None if bar is None else _find_progress(bar)
    try:
        if folder is not None:
            from .logic.certificates import find_certified
            from .logic.prover import ProofError

            try:
                result = find_certified(query, folder, _command(args), progress)
            except ProofError as exc:  # the proof failed its check: a bug, never a verdict
                print(f"error: internal error: {clip(str(exc), 400)} (a bug of popejoan: "
                      "please report it)", file=sys.stderr)
                return EXIT_INTERNAL
        else:  # Ctrl-C: KeyboardInterrupt, the SAT solver stopped
            result = find_deals(query, progress)
    finally:
        if bar is not None:
            bar.close()
    # Written in one piece once the search is over: nothing half-written.
    if args.json:
        data = result.to_json()
        if args.certificate is not None:
            data["certificate"] = args.certificate
        lines = [json.dumps(data, indent=2, ensure_ascii=False)]
    else:
        stats = result.stats
        lines = [f"{args.property} ({DESCRIPTIONS[query.prop]}), {rules.name}, "
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
    sys.stdout.write("\n".join(lines) + "\n")
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


# ----------------------------------------------------------------------------- batch, stats

def cmd_batch(args: argparse.Namespace) -> int:
    from .analysis.batch import EXIT_TERMINATED, BatchTerminatedError

    rules = list(dict.fromkeys(split_rulesets(args.rules)))
    if not rules:
        raise UsageError(f"--rules names no ruleset: {args.rules[:60]!r}")
    for name in rules:
        get_ruleset(name)
    players = parse_players(args.players)
    check_output_path(args.out, "--out")
    try:  # run_batch checks --deals, --workers, --cluster and the file before any work
        report = run_batch(Path(args.out), rules, players, args.deals, args.seed,
                           workers=args.workers, cluster=args.cluster,
                           time_limit=args.time_limit, progress=tty_progress())
    except BatchTerminatedError as exc:  # SIGTERM: one line, and 128 + 15 as a shell reports
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rate = report.solved / report.seconds if report.seconds > 0 else 0.0
    print(f"{report.planned} deals in {args.out}: {report.already} already there, "
          f"{report.solved} solved now in {report.seconds:.1f} s ({rate:.1f} deals/s)")
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    from .analysis.batch import read_rows
    if args.plot is not None:
        if Path(args.plot).suffix.lower() not in (".png", ".svg"):
            raise UsageError("--plot writes a .png or .svg file")
        check_output_path(args.plot, "--plot")
    found = groups(read_rows(Path(args.file)))  # read-only; a bad or damaged file: one error
    if args.plot is not None:
        plot(found, Path(args.plot))
    if args.json:
        _print_json({"groups": [g.to_json() for g in found]})
        return EXIT_OK
    for g in found:
        timed_out = g.deals - g.exact
        print(f"{g.rules}, {g.players} players: {g.deals} deals"
              + (f" ({timed_out} past the time limit, left out of the rates)" if timed_out
                 else ""))
        if not g.exact:
            print("  no deal solved exactly (every one past the time limit): no rates or means")
            print(f"  solve time: mean {g.mean_seconds:.3f} s, worst {g.worst_seconds:.3f} s\n")
            continue
        low, high = wilson(g.any_forced_win, g.exact)
        print(f"  any seat has a forced win: {g.any_forced_win_rate:.3f} "
              f"[{low:.3f}, {high:.3f}]")
        print("  seat  forced-win rate [95% CI]   mean guaranteed [95% CI]")
        for s in range(g.players):
            lo, hi = wilson(g.forced_win[s], g.exact)
            mean, mlo, mhi = g.guaranteed[s]
            print(f"  {s + 1:>4}  {g.forced_win_rate[s]:.3f} [{lo:.3f}, {hi:.3f}]"
                  f"      {mean:+.2f} {interval_text(mlo, mhi, '+.2f')}")
        print(f"  solve time: mean {g.mean_seconds:.3f} s, worst {g.worst_seconds:.3f} s\n")
    return EXIT_OK


# ----------------------------------------------------------------------------- study

STUDIES = ("hoyle-maxims", "seat-values")


def cmd_study(args: argparse.Namespace) -> int:
    from .analysis.batch import EXIT_TERMINATED, MAX_DEALS, BatchTerminatedError, read_rows
    from .analysis.maxims import study
    from .analysis.reports import check_report, maxims_report, seat_values_report

    # A ruleset may carry its own deal count (``early-hoyle:120``) when it is slower to solve.
    if args.name == "hoyle-maxims" and args.rules is not None:
        raise UsageError("--rules is for seat-values: hoyle-maxims studies Hoffmann's maxims "
                         "under hoyle-modernized")
    # The report's folder and files, checked before the study runs.
    report = Path(args.report) if args.report is not None else None
    if args.report is not None:
        check_report(args.name, args.report, "--report")
    wanted: dict[str, int] = {}
    for entry in (["hoyle-modernized"] if args.name == "hoyle-maxims"
                  else split_rulesets(",".join(RULESETS) if args.rules is None
                                      else args.rules)):
        name, _, count = entry.strip().partition(":")
        if not name:
            continue
        get_ruleset(name)
        if count and not (count.isascii() and count.isdigit()):
            raise UsageError(f"--rules entry {entry[:60]!r}: a deal count must be a whole number")
        if len(count) > len(str(MAX_DEALS)):  # before int(), which refuses very long numbers
            raise UsageError(f"--rules entry {entry[:60]!r}: at most {MAX_DEALS} deals")
        wanted[name] = int(count) if count else args.deals
    if not wanted:
        raise UsageError(f"--rules names no ruleset: {(args.rules or '')[:60]!r}")
    rules = list(wanted)
    players = parse_players(args.players)
    check_output_path(args.out, "--out")
    out = Path(args.out)
    try:  # run_batch checks the counts, --workers, --cluster and the file before any work
        for deals in sorted(set(wanted.values())):
            run_batch(out, [r for r in rules if wanted[r] == deals], players, deals, args.seed,
                      workers=args.workers, cluster=args.cluster, time_limit=args.time_limit,
                      progress=tty_progress())
    except BatchTerminatedError as exc:  # SIGTERM: one line, and 128 + 15 as a shell reports
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_TERMINATED
    rules_text = ",".join(r if wanted[r] == args.deals else f"{r}:{wanted[r]}" for r in rules)
    command = (f"popejoan study {args.name} --rules {rules_text} --players {args.players} "
               f"--deals {args.deals} --seed {args.seed}"
               + (f" --time-limit {args.time_limit:g}" if args.time_limit else ""))
    rows = [r for r in read_rows(out) if r["rules"] in wanted and r["players"] in players
            and r["idx"] < wanted[r["rules"]]]
    if args.name == "seat-values":
        found = groups(rows)
        if report is not None:
            print(f"wrote {seat_values_report(found, command, report)}")
        _print_json({"groups": [g.to_json() for g in found]})
        return EXIT_OK
    results = study(rows)
    if report is not None:
        print(f"wrote {maxims_report(results, command, report)}")
    for p in sorted(results):
        for label, summary in results[p].items():
            rate, lo, hi = summary.optimal_rate
            cost, clo, chi = summary.mean_cost
            print(f"{p} players  {label:<20} {summary.deals:>5} deals  optimal {rate:.3f} "
                  f"[{lo:.3f}, {hi:.3f}]  mean cost {cost:.2f} "
                  f"{interval_text(clo, chi, '.2f')}")
    return EXIT_OK


# ----------------------------------------------------------------------------- parser

def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {clip(text)!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds above 0 (leave the option out for none)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {clip(text)!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"must be a finite number of seconds above 0, not {clip(text)!r} (leave the option "
            "out for no limit)")
    return value


MAX_DIGITS: Final = 1000
"""The most digits of a whole number given on the command line."""


def _whole(text: str) -> int:
    """A whole number of at least 0, in ASCII digits."""
    digits = text.strip()
    if not digits.isascii() or not digits.isdigit():
        raise argparse.ArgumentTypeError(f"not a whole number >= 0: {clip(text)!r}")
    if len(digits) > MAX_DIGITS:  # int() itself refuses more than 4300
        raise argparse.ArgumentTypeError(f"too large: {len(digits)} digits (at most "
                                         f"{MAX_DIGITS})")
    return int(digits)


def _version() -> str:
    """The installed package's version (``unknown`` when run from a tree never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("popejoan-solver")
    except PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="popejoan", description="Pope Joan rules checker and solver.")
    parser.add_argument("--version", action="version", version=f"popejoan {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("rules", help="list the rulesets, every option's value and its source "
                       "(author, title, year, section, the phrase quoted), then every option")
    p.add_argument("name", nargs="?", help="one ruleset (default: all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("deal", help="deal a seeded random deal by the ruleset's dealing rule")
    p.add_argument("--players", type=int, required=True, help="3 to 8")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--index", type=_whole, default=0, help="deal number within the seed (0 up)")
    p.add_argument("--rules", default="hoyle-modernized", metavar="R")
    p.add_argument("--set", metavar="OPT=V", action="append")
    p.add_argument("--format", choices=("json", "toml", "line", "record"), default="json",
                   help="record: a game record of the deal with no plays yet (docs/records.md)")
    p.set_defaults(func=cmd_deal)

    deal_help = "JSON or TOML file, - for standard input, or the one-line notation"
    p = sub.add_parser("stops", help="stops and cards that cannot be led to")
    p.add_argument("deal", help=deal_help)
    p.add_argument("--view", choices=[v.value for v in View], default="referee")
    p.add_argument("--json", action="store_true")
    _add_rules_args(p)
    p.set_defaults(func=cmd_stops)

    p = sub.add_parser("graph", help="build the explicit state graph and summarise it")
    p.add_argument("deal", help=deal_help)
    p.add_argument("--format", choices=("graphml", "dot", "json"),
                   help="also export the graph (to --output, else to stdout)")
    p.add_argument("--output", metavar="PATH")
    p.add_argument("--max-states", type=_positive, default=DEFAULT_MAX_STATES)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    _add_rules_args(p)
    p.set_defaults(func=cmd_graph)

    p = sub.add_parser("case", help="check one published example against the model")
    p.add_argument("name")
    cases_help = ("a folder of case files (default: $POPEJOAN_CASES if set, else the "
                  "published cases, which ship with popejoan)")
    p.add_argument("--dir", help=cases_help)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_case)

    p = sub.add_parser("cases", help="check every published example")
    p.add_argument("--dir", help=cases_help)
    p.add_argument("--workers", type=_positive, metavar="K",
                   help="processes checking the cases that need the prover, one ruleset each "
                   "(default: one per core; 1: all in this process)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cases)

    p = sub.add_parser("solve", help="solve a deal double dummy (default: the built-in example)")
    p.add_argument("deal", nargs="?", help=deal_help + " (default: Hoyle's dead-hand deal)")
    _add_rules_args(p)
    p.add_argument("--seat", type=_positive, help="only this seat (1 = eldest)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--time-limit", type=_seconds, metavar="S",
                   help="stop after S seconds, print proven bounds and exit with status 3")
    p.add_argument("--engine", choices=ENGINES, default="fast")
    p.add_argument("--tt-entries", type=_positive, default=DEFAULT_TT_ENTRIES, metavar="N",
                   help="bound on transposition-table entries per thread (16 bytes each; "
                   f"default {DEFAULT_TT_ENTRIES})")
    p.add_argument("--threads", type=_positive, metavar="K",
                   help="search seats side by side on K threads (default: one per core)")
    p.add_argument("--record", metavar="FILE",
                   help="also write the optimal line as a game record (JSON; the text form "
                   "for a .txt file), which `popejoan check` confirms")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("check", help="referee a game record: every play legal, who owes whom")
    p.add_argument("record", help="a record file (JSON or the text form), - for standard input")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("grade", help="mark every lead of a played record against the best "
                       "lead its leader had (double dummy)")
    p.add_argument("record", help="a record file (JSON or the text form), - for standard input")
    p.add_argument("--seat", type=_positive, help="only this player (1 = first named)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--time-limit", type=_seconds, metavar="S",
                   help="stop each deal's search after S seconds; unproven values are bounds "
                   "and the exit status is 3")
    p.set_defaults(func=cmd_grade)

    p = sub.add_parser("prove", help="prove or refute theorems about the rules for every deal")
    p.add_argument("--rules", default="hoyle-modernized", metavar="R")
    p.add_argument("--set", metavar="OPT=V", action="append",
                   help="override one rule option (repeatable)")
    p.add_argument("--theorem", metavar="NAME", action="append",
                   help="one theorem of the catalogue in docs/proofs.md (repeatable; default: "
                   "all)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--certificate", metavar="DIR",
                   help="write what a sceptic needs to re-check every claim (SMT-LIB queries, "
                   "each re-checked by cvc5; deals and lines) to the new folder DIR")
    p.set_defaults(func=cmd_prove)

    p = sub.add_parser("find", help="find deals with a property (SAT + exact checks)")
    p.add_argument("property", choices=[x.value for x in Property])
    p.add_argument("--players", type=int, default=4, help="3 to 8 (default 4)")
    p.add_argument("--rules", default="hoyle-modernized", metavar="R")
    p.add_argument("--set", metavar="OPT=V", action="append")
    p.add_argument("--seat", type=_positive, default=1, help="the seat (default 1, eldest)")
    p.add_argument("--hold", metavar="SEAT:CARDS", action="append",
                   help="cards a seat must hold, e.g. 2:QH,KH (repeatable)")
    p.add_argument("--dead", metavar="CARDS", help="cards that must be dead, e.g. 8S,TS")
    p.add_argument("--count", type=_positive, default=1,
                   help="how many distinct deals (default 1): two deals are the same when "
                   "every seat holds the same cards; another turn-up is not a new deal")
    p.add_argument("--seed", type=int, default=0, help="varies which deals are found")
    p.add_argument("--time-limit", type=_seconds, metavar="S")
    p.add_argument("--json", action="store_true")
    p.add_argument("--certificate", metavar="DIR",
                   help="write the deals found, or for 'no such deal' the DIMACS CNF and a "
                   "DRUP proof checked by dratify, to the new folder DIR")
    p.set_defaults(func=cmd_find)

    p = sub.add_parser("batch", help="solve many seeded deals into an SQLite file (resumable)")
    p.add_argument("--rules", default="hoyle-modernized", metavar="R[,R...]")
    p.add_argument("--players", default="3-8", metavar="3-8")
    p.add_argument("--deals", type=_positive, required=True, metavar="N",
                   help="deals per ruleset and player count")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--workers", type=_positive, metavar="K", help="processes (default: all cores)")
    p.add_argument("--cluster", metavar="ADDRESS", help="a Dask scheduler, tcp://HOST:PORT")
    p.add_argument("--time-limit", type=_seconds, metavar="S",
                   help="per deal; a deal past it is recorded with its bounds")
    p.add_argument("--out", required=True, metavar="FILE")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("stats", help="forced-win rates and seat values from a batch file")
    p.add_argument("file")
    p.add_argument("--json", action="store_true")
    p.add_argument("--plot", metavar="PATH", help="draw the figures (.png or .svg)")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("study", help="a study over many deals: hoyle-maxims or seat-values")
    p.add_argument("name", choices=STUDIES)
    p.add_argument("--deals", type=_positive, required=True, metavar="N")
    p.add_argument("--players", default="3-8", metavar="3-8")
    p.add_argument("--rules", metavar="R[:N][,R...]",
                   help="seat-values only (hoyle-maxims is about hoyle-modernized); R:N gives "
                   "that ruleset its own number of deals")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--workers", type=_positive, metavar="K")
    p.add_argument("--cluster", metavar="ADDRESS")
    p.add_argument("--time-limit", type=_seconds, metavar="S")
    p.add_argument("--out", required=True, metavar="FILE", help="the batch file (resumable)")
    p.add_argument("--report", metavar="DIR", help="write the markdown report and plot here")
    p.set_defaults(func=cmd_study)

    register_all(sub)  # the commands kept in popejoan_solver/commands/
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status. Standard output is flushed here, not at
    the interpreter's exit: output that cannot be written (a full disk) is an error."""
    _whole_writes_to_stdout()
    for stream in (sys.stdout, sys.stderr):
        # A terminal or pipe that cannot show a card's suit symbol gets an escape, not a crash.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        status = _run(argv)
    except SystemExit:  # --help and --version: printed, then flushed below
        failed = _flush_stdout(EXIT_OK)
        if failed is not None:
            return failed
        raise
    failed = _flush_stdout(status)
    return status if failed is None else failed


WRITE_ERRORS: Final = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO})
"""Errors of a write: one with no file name is standard output's (every file the commands
write goes through ``analysis.outfile``, whose errors name the file)."""


def _run(argv: Sequence[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        args.argv = None if argv is None else list(argv)
        result: int = args.func(args)
        return result
    except PopeJoanError as exc:
        print(f"error: {escape_controls(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (``popejoan graph ... | head``): stop quietly, as Unix tools do.
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except MemoryError:
        print("error: out of memory (a smaller --max-states or --tt-entries may help)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        if exc.filename is None and exc.errno in WRITE_ERRORS:
            _silence_stdout()
            print(f"error: cannot write standard output: {exc.strerror or exc}",
                  file=sys.stderr)
        else:
            print(clip(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "),
                       300), file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        resume = " (every row stored is kept: run it again to resume)" if argv_command(
            argv) in ("batch", "study") else ""
        print(f"error: interrupted{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED


class _WholeWrites(io.RawIOBase):
    """A file descriptor written whole or with an error: the buffered writer of Python's
    standard output drops what a short write (a disk that fills mid-write) left over, and
    says nothing."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self.fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(self.fd, view[done:])
        return done


def _whole_writes_to_stdout() -> None:
    """Standard output (the process's own, not a test's capture) through :class:`_WholeWrites`,
    so that output a full disk cut short is an error."""
    stdout = sys.stdout
    if stdout is None or stdout is not sys.__stdout__ or not isinstance(stdout, io.TextIOWrapper):
        return
    try:
        fd = stdout.fileno()
        stdout.flush()
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_WholeWrites(fd)), encoding=stdout.encoding,
                                  errors=stdout.errors, line_buffering=stdout.line_buffering)


def _silence_stdout() -> None:
    """Point standard output at /dev/null: what is left in its buffer cannot be written, and
    the interpreter's own flush at exit must not fail again (status 120, a second message)."""
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _flush_stdout(status: int) -> int | None:
    """Flush standard output; the status to exit with instead when that fails: 141 for a
    reader gone, else 2 with one ``error:`` line (none more if the command already failed)."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:
        _silence_stdout()
        if status in (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE):
            return status  # its error line is printed already
        print(f"error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return None


STOPPED_BY_CTRL_C = frozenset({"serve"})
"""Commands whose normal way to end is Ctrl-C: they shut down and exit 0 (the launcher does
not count that Ctrl-C as an interrupted command)."""


def argv_command(argv: Sequence[str] | None) -> str:
    """The subcommand named on a command line (for messages; '' when there is none)."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if not w.startswith("-")), "")


def entry_point() -> NoReturn:
    """The console script of installs made before it moved to ``popejoan_solver.__main__``."""
    from .__main__ import entry_point as run

    run()
