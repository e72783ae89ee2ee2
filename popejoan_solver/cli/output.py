"""What the commands print: JSON as every command prints it, report lines with their control
characters escaped, and a payment as text."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from ..model.errors import escape_controls
from ..model.settlement import Transfer


def json_text(data: Any) -> str:
    """JSON as the commands print it: indented by two, non-ASCII kept, one final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def print_json(data: Any) -> None:
    """Print ``data`` as :func:`json_text` on standard output."""
    sys.stdout.write(json_text(data))


def print_lines(lines: Sequence[str]) -> None:
    """Lines of a report that shows text from a file (players' names, tags, bots' names), its
    control characters escaped: a terminal shows them, never acts on them."""
    print("\n".join(escape_controls(line) for line in lines))


def transfer_text(transfer: Transfer) -> str:
    """A payment as ``seat 1 -> seat 2: 3 (Pope)`` (a seat from 1, else the board's pool)."""
    def party(p: object) -> str:
        return f"seat {p}" if isinstance(p, int) else str(p)
    return f"{party(transfer.payer)} -> {party(transfer.payee)}: {transfer.amount} " \
           f"({transfer.reason})"
