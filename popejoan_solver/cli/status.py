"""The command line's exit statuses and its usage error.

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

from typing import Final

from ..model.errors import PopeJoanError

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
    """A command line that cannot be understood."""
