"""The ``popejoan`` command line: ``main(argv) -> int``, run by ``python -m popejoan_solver``
and the ``popejoan`` console script (``popejoan_solver.__main__``, which handles Ctrl-C while
this package loads).

One module per command, each declaring a :class:`~..command.Command`; :data:`COMMANDS` lists
them, and those other interfaces declare (:mod:`.registry`), in the order ``popejoan --help``
shows them. The options every command shares, their types and the readers of deals and
records are in :mod:`.args` and :mod:`.inputs`; the exit statuses in
:mod:`popejoan_solver.command` (0 done, 1 a disagreement or refutation, 2 bad input, 3 a time
limit or an unsettled theorem, 4 an internal error of a proof, 130 Ctrl-C, 141 a closed pipe).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial
from typing import Final

from ..command import EXIT_BAD_INPUT, EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_OK, Command
from ..model.errors import PopeJoanError, clip, escape_controls
from .args import CommandParser, add_command, help_formatter
from .registry import commands
from .stdout import WRITE_ERRORS, flush_stdout, prepare_streams, silence_stdout

__all__ = ["COMMANDS", "STOPPED_BY_CTRL_C", "argv_command", "build_parser", "build_parsers",
           "main"]

COMMANDS: Final[tuple[Command, ...]] = commands()
"""Every command, the command line's own and those other interfaces declare (``serve``), in
the order of ``popejoan --help`` (:mod:`.registry`)."""

COMMAND_COLUMN: Final = 14
"""The column of the help lines in ``popejoan --help``, as scripts have seen it: a longer
command name (``certificate``) has its help line on the next line instead of moving all."""

STOPPED_BY_CTRL_C: Final = frozenset(c.name for c in COMMANDS if c.ends_on_ctrl_c)
"""Commands whose normal way to end is Ctrl-C: they shut down and exit 0 (the launcher does
not count that Ctrl-C as an interrupted command)."""

RESUMABLE: Final = frozenset(c.name for c in COMMANDS if c.resumable)

EPILOG: Final = """\
exit status: 0 done; 1 a disagreement (a case, a refuted theorem, no such deal, an illegal
record); 2 bad input (one line 'error: ...'); 3 a time limit ran out or a theorem stayed
unknown; 4 an internal error of a proof; 130 interrupted.
`popejoan COMMAND --help` describes each command; docs/cli.md has them all."""


def _version() -> str:
    """The installed package's version (``unknown`` when run from a tree never installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("popejoan-solver")
    except PackageNotFoundError:
        return "unknown"


def build_parser(width: int | None = None) -> argparse.ArgumentParser:
    """The ``popejoan`` parser, every command of :data:`COMMANDS` a subcommand; help wrapped
    to ``width`` columns (None: the terminal's)."""
    return build_parsers(width)[0]


def build_parsers(width: int | None = None
                  ) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``popejoan`` parser and each command's own, by name (``docs/cli.md`` shows their
    help)."""
    parser = CommandParser(prog="popejoan", description="Pope Joan rules checker and solver.",
                           epilog=EPILOG, formatter_class=partial(
                               help_formatter(width), max_help_position=COMMAND_COLUMN))
    parser.add_argument("--version", action="version", version=f"popejoan {_version()}")
    # metavar "command": the name argparse's errors give it ("argument command: invalid
    # choice", "required: command"), as scripts have seen them.
    sub = parser.add_subparsers(title="commands", dest="command", metavar="command",
                                required=True, parser_class=CommandParser)
    commands = {command.name: add_command(sub, command, width) for command in COMMANDS}
    return parser, commands


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status. Standard output is flushed here, not at
    the interpreter's exit: output that cannot be written (a full disk) is an error."""
    prepare_streams()
    try:
        status = _run(argv)
    except SystemExit:  # --help and --version: printed, then flushed below
        failed = flush_stdout(EXIT_OK)
        if failed is not None:
            return failed
        raise
    failed = flush_stdout(status)
    return status if failed is None else failed


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
        silence_stdout()
        return EXIT_BROKEN_PIPE
    except MemoryError:
        print("error: out of memory (a smaller --max-states or --tt-entries may help)",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        _print_os_error(exc)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        resume = (" (every row stored is kept: run it again to resume)"
                  if argv_command(argv) in RESUMABLE else "")
        print(f"error: interrupted{resume}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _print_os_error(exc: OSError) -> None:
    """One line for an error of the system: standard output that cannot be written, or a
    file's error with its name."""
    if exc.filename is None and exc.errno in WRITE_ERRORS:
        silence_stdout()
        print(f"error: cannot write standard output: {exc.strerror or exc}", file=sys.stderr)
    else:
        print(clip(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), 300),
              file=sys.stderr)


def argv_command(argv: Sequence[str] | None) -> str:
    """The subcommand named on a command line (for messages; '' when there is none)."""
    words = sys.argv[1:] if argv is None else argv
    return next((w for w in words if not w.startswith("-")), "")
