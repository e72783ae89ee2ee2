"""What the commands read: a deal, a position or a game record, from a file, ``-`` (standard
input) or the one-line notation, with ``--rules``/``--set`` applied to a deal."""

from __future__ import annotations

import argparse
import os
import re
import sys
from dataclasses import replace
from typing import Any, Final

from ..command import UsageError
from ..files.reading import MAX_INPUT_BYTES, read_bounded, read_text_file
from ..model.deal import Deal, deal_warnings
from ..model.errors import PopeJoanError, clip
from ..model.examples import hoyle_dead_hand
from ..model.notation import parse_deal_text
from ..model.play import Run
from ..model.record import Record, parse_record_text
from ..model.rules import get_ruleset
from .args import options_set

DEAL_HELP: Final = "JSON or TOML file, - for standard input, or the one-line notation"
POSITION_HELP: Final = "a deal (file, - or one-line notation) or a game record (file or -)"
RECORD_HELP: Final = "a record file (JSON or the text form), - for standard input"

BUILT_IN_NOTE: Final = ("the built-in example: Hoyle's dead-hand deal, eleven cards to each "
                        "of four players and his seven dead cards (not a ruleset's own split: "
                        "`popejoan deal` deals one)")
"""What ``solve`` says of the built-in example on standard output, in place of the warning
that its split is not the ruleset's own (Hoyle's example chose the seven dead cards)."""


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
        return _stdin_text(stdin, "the deal")
    if os.path.exists(text):
        return read_text_file(text)
    if "^" in text or "|" in text:
        if len(text) > MAX_INPUT_BYTES:
            raise UsageError(f"the deal is larger than {MAX_INPUT_BYTES} bytes: not a deal")
        return text
    raise UsageError(f"no such file {clip(text)!r}, and not a one-line deal "
                     "(see docs/notation.md)")


def _stdin_text(stdin: Any, what: str) -> str:
    stream = stdin if stdin is not None else sys.stdin
    if stream is None:
        raise UsageError(f"standard input is closed: give {what} as a file or on a pipe")
    return read_bounded(getattr(stream, "buffer", stream), "standard input")


def read_record(text: str, stdin: Any = None) -> Record:
    """A record from a file path or ``-`` (standard input), JSON or the text form."""
    if text == "-":
        return parse_record_text(_stdin_text(stdin, "the record"))
    return parse_record_text(read_text_file(text))


def with_rules(deal: Deal, args: argparse.Namespace) -> Deal:
    """``deal`` under ``--rules`` (else its own ruleset) with ``--set``'s options."""
    if args.rules is None and not args.set:
        return deal
    try:
        rules = get_ruleset(args.rules) if args.rules is not None else deal.rules
        rules = rules.with_options(options_set(args))
    except PopeJoanError as exc:  # the option's own message, never taken for the deal's
        raise UsageError(str(exc)) from None
    return deal.with_rules(rules)


def load_deal(args: argparse.Namespace) -> Deal:
    """The deal of a command's DEAL argument (``args.deal``; None: the built-in example) under
    ``--rules``/``--set``; the deal's warnings on standard error."""
    deal = with_rules(read_deal(args.deal), args)
    if args.deal is not None:  # the built-in example's split is Hoyle's: noted, not warned of
        for warning in deal_warnings(deal):
            print(f"warning: {warning}", file=sys.stderr)
    return deal


# ----------------------------------------------------------------------------- positions

def read_position(args: argparse.Namespace) -> tuple[Deal, list[Run]]:
    """The deal and the runs played of POSITION (``args.position``): a game record at
    ``--deal``/``--after``, or a deal (under ``--rules``/``--set``) and the runs of
    ``--line``. Errors are the record's or the deal's, or the step's with its number."""
    text = position_text(args.position)
    found = _from_record(text, args)
    return found if found is not None else _from_deal(text, args)


def _from_record(text: str, args: argparse.Namespace) -> tuple[Deal, list[Run]] | None:
    """The deal and runs a record gives at ``--deal``/``--after``; None if not a record."""
    from ..model.referee import is_unfinished, replay

    try:
        record = parse_record_text(text)
    except PopeJoanError:
        if looks_like_record(text):  # its own error, not the deal reader's
            raise
        return None
    if args.line is not None:
        raise UsageError("--line plays runs from a deal; POSITION is a game record (pick a "
                         "point of it with --deal and --after)")
    if args.rules is not None or args.set:
        raise UsageError("--rules and --set apply to a deal; POSITION is a game record, "
                         "played under the ruleset it names")
    last = record.deals[-1]
    if not is_unfinished(last):  # a game in progress: its last deal may stop anywhere
        unfinished = replace(last, tags=(*last.tags, ("Termination", "unfinished")))
        record = replace(record, deals=(*record.deals[:-1], unfinished))
    result = replay(record)
    if result.error is not None:
        raise UsageError(f"the record breaks the rules: {result.error.message}")
    number = args.deal if args.deal is not None else len(result.deals)
    if not 1 <= number <= len(result.deals):
        raise UsageError(f"--deal must be from 1 to {len(result.deals)}, not {number}")
    replayed = result.deals[number - 1]
    runs = [step.run for step in replayed.steps]
    after = args.after if args.after is not None else len(runs)
    if not 0 <= after <= len(runs):
        raise UsageError(f"--after must be from 0 to {len(runs)} (the runs of deal {number}), "
                         f"not {after}")
    return replayed.deal, runs[:after]


def looks_like_record(text: str) -> bool:
    """A record's text, by its opening: a JSON record names its format; the text form opens
    with a tag (``[Rules "..."]``)."""
    opening = text.lstrip("\ufeff \t\r\n")
    return (re.match(r'\[[A-Za-z][A-Za-z0-9_-]*\s+"', opening) is not None
            or (opening.startswith("{") and '"popejoan-record"' in opening[:4096]))


def _from_deal(text: str, args: argparse.Namespace) -> tuple[Deal, list[Run]]:
    """The deal POSITION gives and the runs of ``--line``."""
    from ..seat.line import read_line

    if args.deal is not None or args.after is not None:
        raise UsageError("--deal and --after pick a point of a record; POSITION is a deal "
                         "(give the runs with --line)")
    try:
        deal = parse_deal_text(text)
    except PopeJoanError as exc:
        raise UsageError(f"not a deal or a game record: {exc}") from None
    deal = with_rules(deal, args)
    try:
        runs = read_line(deal, (args.line or "").split())
    except PopeJoanError as exc:
        raise UsageError(f"--line {exc}") from None
    return deal, list(runs)
