"""``popejoan prove``: theorems about the rules proved or refuted for every deal (z3)."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
from typing import TYPE_CHECKING, Any

from ..command import EXIT_DISAGREE, EXIT_INTERNAL, EXIT_OK, EXIT_TIME_LIMIT, Command
from ..model.errors import PopeJoanError
from ..model.notation import deal_from_json, deal_to_line
from ..model.rules import Ruleset
from .args import add_format, add_rules, ruleset_from, wants_json
from .certificates import certificate_folder, command_line, internal_error
from .output import print_json

if TYPE_CHECKING:
    from ..logic.prover import TheoremResult


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_rules(parser, default="hoyle-modernized")
    parser.add_argument("--theorem", metavar="NAME", action="append",
                        help="one theorem of the catalogue in docs/proofs.md (repeatable; "
                        "default: all)")
    add_format(parser, "the verdicts")
    parser.add_argument("--certificate", metavar="DIR",
                        help="write what a sceptic needs to re-check every claim (SMT-LIB "
                        "queries, each re-checked by cvc5; deals and lines) to the new folder DIR")


def run(args: argparse.Namespace) -> int:
    from ..logic.prover import ProofError, Status
    from ..logic.theorems import prove

    rules = ruleset_from(args)
    names = args.theorem or None
    folder = certificate_folder(args)
    try:  # Ctrl-C: KeyboardInterrupt, never a verdict
        if folder is not None:
            from ..logic.certificates import prove_certified

            results = prove_certified(rules, names, folder, command_line(args))
        else:
            results = prove(rules, names)
    except ProofError as exc:  # neither an answer nor bad input
        internal_error(exc, "a bug of popejoan, not of the rules or the input: please report "
                       "it")
        return EXIT_INTERNAL
    # The report is written in one piece once every theorem is settled: nothing half-written.
    report = io.StringIO()
    with contextlib.redirect_stdout(report):
        _print_report(args, rules, results)
    sys.stdout.write(report.getvalue())
    statuses = {r.status for r in results}
    if Status.REFUTED in statuses:
        return EXIT_DISAGREE
    return EXIT_TIME_LIMIT if statuses & {Status.UNKNOWN, Status.VACUOUS} else EXIT_OK


def _print_report(args: argparse.Namespace, rules: Ruleset,
                  results: list[TheoremResult]) -> None:
    if wants_json(args):
        data: dict[str, Any] = {"theorems": [r.to_json() for r in results]}
        if args.certificate is not None:
            data["certificate"] = args.certificate
        print_json(data)
        return
    print(f"ruleset {rules.name}: {len(results)} theorem(s), every deal of 3-8 "
          "players (each time includes the shared work the theorem needed, so the "
          "times overlap)\n")
    for result in results:
        _print_theorem(result)
    if args.certificate is not None:
        print(f"certificate: {args.certificate} (every unsat query as SMT-LIB, each "
              "re-checked by cvc5 from its file; deals and lines; manifest.json)")


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


COMMAND = Command(
    name="prove",
    summary="prove or refute theorems about the rules for every deal",
    description="Prove or refute theorems about the rules (the catalogue in docs/proofs.md) "
                "for every deal of 3 to 8 players, with z3; a refuted theorem comes with a "
                "counterexample deal and line the model replays. Exit status 1 when a theorem "
                "is refuted, 3 when one stays unknown or is vacuous, 4 for an internal error "
                "(the encoding and the model disagree: a bug of the tool).",
    examples=("popejoan prove --theorem matrimony-needs-one-hand",
              "popejoan prove --rules parlett --set ace=high --certificate proofs/"),
    add_arguments=add_arguments, run=run)
