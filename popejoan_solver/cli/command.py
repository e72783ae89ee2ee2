"""What a command module declares (:class:`Command`) and how it becomes a subcommand.

Each command module defines ``add_arguments(parser)``, ``run(args) -> int`` and a
:class:`Command` constant naming them with the command's help line, description and
examples; ``cli.COMMANDS`` lists the constants in the order ``popejoan --help`` shows them.
Heavy imports (z3, python-sat, networkx, the web server) belong inside ``run``.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

DESCRIPTION_WIDTH = 79
"""Columns a command's description is wrapped to in its ``--help``."""


@dataclass(frozen=True)
class Command:
    """A subcommand of ``popejoan``: its name, its help line in ``popejoan --help``, the
    description and examples its own ``--help`` shows, its options and what it runs."""

    name: str
    summary: str
    description: str
    examples: tuple[str, ...]
    """Command lines that show it at work (each runs it; a pipeline may run others too)."""
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    resumable: bool = False
    """Ctrl-C keeps the rows stored: the message says that running it again resumes."""
    ends_on_ctrl_c: bool = False
    """Its normal way to end is Ctrl-C (``serve``): it shuts down and exits 0."""

    def __post_init__(self) -> None:
        if not (self.summary and self.description and self.examples):
            raise ValueError(f"command {self.name}: a help line, a description and an example "
                             "are required")
        for example in self.examples:
            if f"popejoan {self.name} " not in f"{example} ":
                raise ValueError(f"command {self.name}: an example runs it: {example!r}")

    def epilog(self) -> str:
        """The examples, as ``--help`` ends with them."""
        title = "example:" if len(self.examples) == 1 else "examples:"
        return "\n".join([title, *(f"  {example}" for example in self.examples)])

    def wrapped_description(self) -> str:
        """The description, each paragraph wrapped to :data:`DESCRIPTION_WIDTH` columns."""
        return "\n\n".join(textwrap.fill(" ".join(paragraph.split()), DESCRIPTION_WIDTH,
                                         break_long_words=False, break_on_hyphens=False)
                           for paragraph in self.description.split("\n\n"))


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
