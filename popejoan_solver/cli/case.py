"""``popejoan case NAME`` and ``popejoan cases``: the published examples (shipped in the
package) checked against the model (the proof and case machinery imports z3 on first use,
inside ``run``). A proof case's internal error (a bug of the tool) is status 4."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..command import EXIT_DISAGREE, EXIT_INTERNAL, EXIT_OK, Command, UsageError
from ..model.errors import clip
from .args import add_format, positive, wants_json
from .certificates import internal_error
from .output import print_json

if TYPE_CHECKING:
    from ..studies.cases import CaseResult

DIR_HELP = ("a folder of case files (default: $POPEJOAN_CASES if set, else the published "
            "cases, which ship with popejoan)")

INTERNAL_ADVICE = "a bug of popejoan, not of the rules or the input: please report it"
"""What the one line of a proof case's internal error tells the user."""


def cases_dir(option: str | None) -> Path | None:
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


def add_case_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the case (its file name in the cases directory, "
                        "without .toml)")
    parser.add_argument("--dir", help=DIR_HELP)
    add_format(parser, "the verdict")


def add_cases_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", help=DIR_HELP + "; with --conformance, a folder of "
                        "conformance examples")
    parser.add_argument("--conformance", action="store_true",
                        help="check the conformance examples instead: small examples worked "
                        "by hand from the rule texts, each through the rules model, both "
                        "search engines and the z3 settlement (docs/proofs.md)")
    parser.add_argument("--workers", type=positive, metavar="K",
                        help="processes checking the cases that need the prover, one ruleset "
                        "each (default: one per core; 1: all in this process)")
    add_format(parser, "the verdicts")


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


def run_case(args: argparse.Namespace) -> int:
    from ..logic.prover import ProofError
    from ..studies.cases import check_case, load_cases

    cases = {c.name: c for c in load_cases(cases_dir(args.dir))}
    if args.name not in cases:
        raise UsageError(f"no case {clip(args.name)!r} (known: {', '.join(sorted(cases))})")
    try:  # a proof case's prover may find a bug of the tool: neither agrees nor disagrees
        result = check_case(cases[args.name])
    except ProofError as exc:
        internal_error(exc, INTERNAL_ADVICE)
        return EXIT_INTERNAL
    if wants_json(args):
        print_json(result.to_json())
    else:
        _print_case(result)
    return EXIT_OK if result.agrees else EXIT_DISAGREE


def run_cases(args: argparse.Namespace) -> int:
    """Every case, each line printed as its case is checked (in the cases' order); with
    ``--json`` one document at the end, and a progress bar on a terminal meanwhile."""
    from ..jobs.pool import tty_progress
    from ..logic.prover import ProofError
    from ..search.api import usable_cores
    from ..studies.cases import check_cases, load_cases

    if args.conformance:
        return run_conformance(args)
    cases = load_cases(cases_dir(args.dir))
    width = max(len(c.name) for c in cases)
    progress = tty_progress("case") if wants_json(args) else None
    if progress is not None:
        progress(0, len(cases))
    results: list[CaseResult] = []
    try:  # a proof case's prover may find a bug of the tool: neither agrees nor disagrees
        for r in check_cases(cases, args.workers or usable_cores()):
            results.append(r)
            if progress is not None:
                progress(len(results), len(cases))
            if not wants_json(args):
                print(f"{r.case.name:{width}}  {'agrees' if r.agrees else 'DISAGREES'}  "
                      f"({r.case.source})", flush=True)
    except ProofError as exc:
        internal_error(exc, INTERNAL_ADVICE)
        return EXIT_INTERNAL
    finally:
        if progress is not None:
            progress.close()
    if wants_json(args):
        print_json({"cases": [r.to_json() for r in results]})
    else:
        agree = sum(r.agrees for r in results)
        print(f"{agree} of {len(results)} cases agree with the model")
    return EXIT_OK if all(r.agrees for r in results) else EXIT_DISAGREE


def run_conformance(args: argparse.Namespace) -> int:
    """``cases --conformance``: each example's verdict as it is checked, each mismatch under
    it (the backend, what, expected and found); with ``--json`` one document at the end."""
    from ..studies.conformance import example_results, load_examples

    folder = None
    if args.dir is not None:
        folder = cases_dir(args.dir)
    examples = load_examples(folder)
    width = max(len(e.name) for e in examples)
    results = []
    for result in example_results(examples):
        results.append(result)
        if not wants_json(args):
            verdict = "agrees" if result.agrees else "DISAGREES"
            print(f"{result.example.name:{width}}  {verdict}  ({result.example.work.citation()})",
                  flush=True)
            for m in result.mismatches:
                print(f"  {m.backend}: {m.what}: expected {m.expected}, found {m.found}")
    if wants_json(args):
        print_json({"conformance": [r.to_json() for r in results]})
    else:
        agree = sum(r.agrees for r in results)
        print(f"{agree} of {len(results)} conformance examples agree with every backend")
    return EXIT_OK if all(r.agrees for r in results) else EXIT_DISAGREE


COMMAND = Command(
    name="case",
    summary="check one published example against the model",
    description="Check one published example (a worked example or claim of a rule text, "
                "shipped with popejoan with its source and the phrase quoted) against the "
                "model: each expected result beside the one the model finds. Exit status 1 "
                "when the model disagrees, 4 on an internal error of its proof.",
    examples=("popejoan case hoyle-dead-hand", "popejoan case parlett-spinado-spin --json"),
    add_arguments=add_case_arguments, run=run_case)

CASES_COMMAND = Command(
    name="cases",
    summary="check every published example",
    description="Check every published example against the model, one line each as it is "
                "checked, then how many agree. Exit status 1 when any disagrees, 4 on an "
                "internal error of a proof.",
    examples=("popejoan cases", "popejoan cases --dir my-cases --json",
              "popejoan cases --conformance"),
    add_arguments=add_cases_arguments, run=run_cases)
