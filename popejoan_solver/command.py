"""What a command of ``popejoan`` is, whichever interface provides it: the :class:`Command` it
declares, the exit statuses it returns and the :class:`UsageError` it raises. The interfaces
are peers: the command line (``cli/``) builds ``popejoan``'s parser from every command, its
own and those other interfaces declare as entry points (``web/serve.py``'s ``serve``), so all
share this module, below them, and none imports another.

Exit status: 0 done; 1 a case disagrees with the model, a theorem is refuted, ``find``
proved that no such deal exists, or ``check`` found an illegal step in a record; 2 bad input
(one line ``error: ...`` on stderr); 3 a time limit ran out (bounds printed instead of exact
values), or a theorem stayed unknown or was vacuous; 4 an internal error of ``prove`` (or of
``case``/``cases`` proving a case's theorem: the encoding and the rules model disagree, or a
frame of a proof is impossible: a bug of the tool);
130 interrupted (Ctrl-C); 141 the reader of standard output went away; 143 a batch or match
stopped by SIGTERM.
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from .model.errors import PopeJoanError

EXIT_OK: Final = 0
EXIT_DISAGREE: Final = 1
EXIT_BAD_INPUT: Final = 2
EXIT_TIME_LIMIT: Final = 3
EXIT_INTERNAL: Final = 4
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT."""
EXIT_BROKEN_PIPE: Final = 141
"""128 + SIGPIPE, what a shell reports for a tool killed by a closed pipe."""


class UsageError(PopeJoanError):
    """A command line that cannot be understood, or cannot be acted on (an address to listen
    on, a missing extra): one ``error: ...`` line and status 2."""


DESCRIPTION_WIDTH: Final = 79
"""Columns a command's description is wrapped to in its ``--help``."""


@dataclass(frozen=True)
class Command:
    """A subcommand of ``popejoan``: its name, its help line in ``popejoan --help``, the
    description and examples its own ``--help`` shows, its options and what it runs.

    A command's module defines ``add_arguments(parser)``, ``run(args) -> int`` (an exit
    status) and a ``COMMAND`` constant naming them; heavy imports (z3, python-sat, networkx,
    the web server) belong inside ``run``, so that building the parser stays cheap.
    """

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
