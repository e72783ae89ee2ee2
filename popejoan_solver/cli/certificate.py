"""``popejoan certificate check DIR``: re-check a certificate folder written by ``prove`` or
``find`` with ``--certificate``."""

from __future__ import annotations

import argparse

from ..command import EXIT_DISAGREE, EXIT_OK, Command
from .args import add_format, wants_json
from .output import print_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("check",),
                        help="check: re-check every file of the folder against its claim")
    parser.add_argument("folder", metavar="DIR",
                        help="a folder written by prove or find with --certificate DIR")
    parser.add_argument("--no-cvc5", dest="cvc5", action="store_false",
                        help="solve the queries with z3 only (by default cvc5 too, when "
                        "installed)")
    parser.add_argument("--no-regenerate", dest="regenerate", action="store_false",
                        help="do not run prove's theorems again to compare every query with "
                        "the tool's (by default they are)")
    add_format(parser, "every check")


def run(args: argparse.Namespace) -> int:
    from ..logic.certificate_check import check_certificate

    report = check_certificate(args.folder, use_cvc5=args.cvc5, regenerate=args.regenerate)
    failed = [f for f in report.findings if not f.ok and not f.skipped]
    if wants_json(args):
        print_json({"folder": report.folder, "certificate": report.kind,
                    "ruleset": report.ruleset, "holds": report.holds,
                    "checks": [f.to_json() for f in report.findings]})
    else:
        print(f"certificate {report.folder}: {report.kind}, ruleset {report.ruleset}")
        for finding in report.findings:
            mark = "skip" if finding.skipped else "ok" if finding.ok else "FAIL"
            print(f"  {mark:<4}  {finding.file}: {finding.what}")
        verdict = "every claim holds" if report.holds else "some claims do NOT hold"
        print(f"{len(report.findings)} checks, {len(failed)} failed: {verdict}")
    return EXIT_OK if report.holds else EXIT_DISAGREE


COMMAND = Command(
    name="certificate",
    summary="re-check a certificate folder written by prove or find",
    description="Re-check a certificate folder (prove or find --certificate DIR): the "
                "SHA-256 of every file against the manifest; each SMT-LIB query bound to its "
                "claim (its opening comment, its :named parts deal-frame, rules and "
                "negated-claim, and its companion, the same text without the negated claim) "
                "and unsat for z3 and cvc5 (if installed); each companion sat, its model a "
                "deal the rules model deals and plays out; each query asked again by the tool "
                "under the manifest's ruleset and compared; the replayed deals and lines; each "
                "CNF's variable names and lemmas, and its DRUP proof (dratify, if installed). "
                "Exit status 0 when every check holds, 1 when one fails, 2 when DIR is no "
                "certificate.",
    examples=("popejoan certificate check proofs/",),
    add_arguments=add_arguments, run=run)
