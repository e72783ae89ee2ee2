"""``popejoan case NAME`` and ``popejoan cases``: the published examples checked against the
model (the proof and case machinery imports z3 on first use, inside ``run``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..model.errors import clip
from .args import add_format, wants_json
from .command import Command
from .output import print_json
from .status import EXIT_DISAGREE, EXIT_OK, UsageError

if TYPE_CHECKING:
    from ..studies.cases import CaseResult

DIR_HELP = "the cases directory (default: $POPEJOAN_CASES, else ./cases, else the package's)"


def cases_dir(option: str | None) -> Path:
    """The folder of the published cases: ``--dir``, else ``$POPEJOAN_CASES``, ``./cases``,
    or the one beside the package."""
    if option is not None:
        if not Path(option).is_dir():
            what = "is not a directory" if Path(option).exists() else "no such directory"
            raise UsageError(f"--dir {clip(option)}: {what}")
        return Path(option)
    candidates = [os.environ.get("POPEJOAN_CASES"), "cases",
                  str(Path(__file__).resolve().parent.parent.parent / "cases")]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    raise UsageError("cannot find the cases directory: give --dir or set POPEJOAN_CASES")


def add_case_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("name", help="the case (its file name in the cases directory, "
                        "without .toml)")
    parser.add_argument("--dir", help=DIR_HELP)
    add_format(parser, "the verdict")


def add_cases_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", help=DIR_HELP)
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
    from ..studies.cases import check_case, load_cases

    cases = {c.name: c for c in load_cases(cases_dir(args.dir))}
    if args.name not in cases:
        raise UsageError(f"no case {clip(args.name)!r} (known: {', '.join(sorted(cases))})")
    result = check_case(cases[args.name])
    if wants_json(args):
        print_json(result.to_json())
    else:
        _print_case(result)
    return EXIT_OK if result.agrees else EXIT_DISAGREE


def run_cases(args: argparse.Namespace) -> int:
    from ..studies.cases import check_case, load_cases

    results = [check_case(c) for c in load_cases(cases_dir(args.dir))]
    if wants_json(args):
        print_json({"cases": [r.to_json() for r in results]})
    else:
        width = max(len(r.case.name) for r in results)
        for r in results:
            print(f"{r.case.name:{width}}  {'agrees' if r.agrees else 'DISAGREES'}  "
                  f"({r.case.source})")
        agree = sum(r.agrees for r in results)
        print(f"{agree} of {len(results)} cases agree with the model")
    return EXIT_OK if all(r.agrees for r in results) else EXIT_DISAGREE


COMMAND = Command(
    name="case",
    summary="check one published example against the model",
    description="Check one published example (a worked example or claim of a rule text, kept "
                "in the cases directory with its source and the phrase quoted) against the "
                "model: each expected result beside the one the model finds. Exit status 1 "
                "when the model disagrees.",
    examples=("popejoan case hoyle-dead-hand", "popejoan case parlett-spinado-spin --json"),
    add_arguments=add_case_arguments, run=run_case)

CASES_COMMAND = Command(
    name="cases",
    summary="check every published example",
    description="Check every published example of the cases directory against the model, one "
                "line each, then how many agree. Exit status 1 when any disagrees.",
    examples=("popejoan cases", "popejoan cases --dir my-cases --json"),
    add_arguments=add_cases_arguments, run=run_cases)
