"""The command line's one grammar: the parser, each command's part of it, its argument types
and the shared options.

Every command spells a shared option the same way and reads it with the same type here:
``--seed`` (a whole number), ``--seat`` (from 1, checked against the players once they are
known), ``--rules`` with ``--set``, ``--out`` for the file written (older spellings kept as
aliases), ``--format`` with ``--json`` as its alias. A bad value is one ``error: ...`` line
and exit status 2.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Final, NoReturn

from ..command import Command, UsageError
from ..model.errors import clip
from ..model.rules import Ruleset, get_ruleset, parse_assignments

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

MAX_DIGITS: Final = 1000
"""The most digits of a whole number given on the command line (``int()`` itself refuses
more than 4300)."""

_QUOTED: Final = re.compile(r"'[^']{80,}'|\"[^\"]{80,}\"")
"""A value argparse echoes in quotes, long enough to be cut to what a message shows."""


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        # argparse quotes the user's value whole: cut to what a message shows.
        message = _QUOTED.sub(lambda quoted: repr(clip(quoted[0][1:-1])), message)
        raise UsageError(clip(message, 600))  # its quoted values are cut already

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        """Help, usage and version text, written without argparse's swallowing of a write
        error: ``--help`` onto a full disk is an error (see ``cli.main``), not status 0."""
        if message:
            (file or sys.stderr).write(message)


def help_formatter(width: int | None) -> Any:
    """The help formatter of every parser: the description and examples as written (wrapped
    by :meth:`Command.wrapped_description`), the options wrapped to ``width`` columns (None:
    the terminal's)."""
    if width is None:
        return argparse.RawDescriptionHelpFormatter
    return partial(argparse.RawDescriptionHelpFormatter, width=width)


def add_command(sub: Any, command: Command, width: int | None = None) -> argparse.ArgumentParser:
    """Add ``command``'s parser to ``sub`` (argparse's subparsers action)."""
    parser: argparse.ArgumentParser = sub.add_parser(
        command.name, help=command.summary, description=command.wrapped_description(),
        epilog=command.epilog(), formatter_class=help_formatter(width))
    command.add_arguments(parser)
    parser.set_defaults(func=command.run)
    return parser


# ----------------------------------------------------------------------------- types

def positive(text: str) -> int:
    """A whole number of at least 1 (a count, a size)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {clip(text)!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def seconds(text: str) -> float:
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


def whole(text: str) -> int:
    """A whole number of at least 0, in ASCII digits."""
    digits = text.strip()
    if not digits.isascii() or not digits.isdigit():
        raise argparse.ArgumentTypeError(f"not a whole number >= 0: {clip(text)!r}")
    if len(digits) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"too large: {len(digits)} digits (at most "
                                         f"{MAX_DIGITS})")
    return int(digits)


def integer(text: str) -> int:
    """A whole number, signed or not, in ASCII digits: a seed (any integer seeds a deal) or a
    seat (its range checked by :func:`check_seat` once the players are known)."""
    digits = text.strip()
    unsigned = digits[1:] if digits[:1] in ("+", "-") else digits
    if not unsigned.isascii() or not unsigned.isdigit():
        raise argparse.ArgumentTypeError(f"invalid int value: {clip(text)!r}")
    if len(unsigned) > MAX_DIGITS:
        raise argparse.ArgumentTypeError(f"too large: {len(unsigned)} digits (at most "
                                         f"{MAX_DIGITS})")
    return int(digits)


def check_seat(seat: int, players: int, option: str = "--seat") -> int:
    """``seat`` (from 1) if the table has it, else the one usage error every command gives."""
    if not 1 <= seat <= players:
        raise UsageError(f"{option} must be from 1 to {players}, not {clip(str(seat))}")
    return seat


# ----------------------------------------------------------------------------- shared options

SET_HELP: Final = "override one rule option (repeatable), e.g. --set ace=high"


def add_rules(parser: argparse.ArgumentParser, *, default: str | None = None,
              metavar: str = "R", help_text: str | None = None) -> None:
    """``--rules R`` and ``--set OPT=V`` (repeatable)."""
    if help_text is None:
        help_text = ("ruleset name (default: the deal's own)" if default is None
                     else f"ruleset name (default {default})")
    parser.add_argument("--rules", default=default, metavar=metavar, help=help_text)
    parser.add_argument("--set", metavar="OPT=V", action="append", help=SET_HELP)


def options_set(args: argparse.Namespace) -> dict[str, str]:
    """The rule options of ``--set``, read (an unknown option is refused by the ruleset)."""
    return parse_assignments(args.set or [])


def ruleset_from(args: argparse.Namespace) -> Ruleset:
    """The ruleset of ``--rules`` with ``--set``'s options."""
    return get_ruleset(args.rules).with_options(options_set(args))


def named_with_options(names: Sequence[str], args: argparse.Namespace) -> list[str]:
    """Ruleset names with ``--set``'s options applied, as names (``R+OPT=V``) a job carries;
    the names as given when no option is set."""
    options = options_set(args)
    if not options:
        return list(names)
    return list(dict.fromkeys(get_ruleset(name).with_options(options).name for name in names))


def add_seed(parser: argparse.ArgumentParser, *, default: int | None = None,
             help_text: str = "") -> None:
    """``--seed N``: a whole number (negative ones seed deals too); required without a
    default."""
    parser.add_argument("--seed", type=integer, required=default is None, default=default,
                        metavar="N", help=help_text
                        or ("the seed" if default is None else f"the seed (default {default})"))


def add_seat(parser: argparse.ArgumentParser, *, required: bool = False,
             default: int | None = None, help_text: str = "the seat (1 = eldest)") -> None:
    """``--seat N``: a seat from 1, checked against the players by :func:`check_seat`."""
    parser.add_argument("--seat", type=integer, required=required, default=default,
                        metavar="N", help=help_text)


class OutPath(argparse.Action):
    """Stores the path of ``--out`` (or an older spelling of it) and the spelling used, so
    that a message names the option the command line gave."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
        namespace.out_option = option_string or self.option_strings[0]


def add_out(parser: argparse.ArgumentParser, *, aliases: Sequence[str] = (),
            required: bool = False, metavar: str = "FILE", help_text: str = "") -> None:
    """``--out FILE``, the file a command writes, with older spellings as aliases."""
    parser.add_argument("--out", *aliases, dest="out", action=OutPath, required=required,
                        metavar=metavar, help=help_text)
    parser.set_defaults(out_option="--out")


def out_option(args: argparse.Namespace) -> str:
    """The spelling of ``--out`` the command line used (for messages)."""
    option: str = getattr(args, "out_option", "--out")
    return option


FORMATS: Final = ("text", "json")


def add_format(parser: argparse.ArgumentParser, what: str = "the result") -> None:
    """``--format text|json`` and ``--json``, the same as ``--format json``."""
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help=f"print {what} as text (default) or JSON")
    add_json_alias(parser)


def add_json_alias(parser: argparse.ArgumentParser) -> None:
    """``--json``: the same as ``--format json``."""
    parser.add_argument("--json", dest="format", action="store_const", const="json",
                        help="the same as --format json")


def wants_json(args: argparse.Namespace) -> bool:
    """Whether the command prints JSON (``--format json`` or ``--json``)."""
    return bool(args.format == "json")
