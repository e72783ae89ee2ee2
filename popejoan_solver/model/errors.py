"""Exceptions for bad input. All subclass ``ValueError`` so callers can catch one type; and the
escaping of a user's text shown in a message or on a terminal."""

import re
from typing import Final


class PopeJoanError(ValueError):
    """Base class of every bad-input error the package raises."""


class CardError(PopeJoanError):
    """A card or card list that cannot be read."""


class RulesError(PopeJoanError):
    """An unknown ruleset, option or option value."""


class DealError(PopeJoanError):
    """A deal or position that breaks the game's logic (missing, duplicate or misplaced cards)."""


class NotationError(PopeJoanError):
    """Text in the JSON, TOML or one-line deal notation that cannot be read."""


class IllegalPlayError(PopeJoanError):
    """A lead that the rules do not allow in the given position."""


CONTROL_CHARACTERS: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal acts on rather than shows: C0 and C1 controls and DEL (``ESC [2J``
clears the screen, an OSC sets the window title, BEL rings), line and paragraph separators,
and the bidirectional controls that reorder what is shown (U+202E)."""


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every character of :data:`CONTROL_CHARACTERS` written as an escape
    (``\\x1b``, ``\\u202e``): text from a file or a command line, safe to show on a
    terminal. Line breaks are escaped too: keep them out of ``text``."""
    return CONTROL_CHARACTERS.sub(_escape, text)


def clip(text: str, limit: int = 80) -> str:
    """Text on one line, cut short and its control characters escaped, for an error message
    (a ruleset name may be 100 KB long; SQLite's and JSON's messages may span lines)."""
    text = " ".join(text.split())
    text = text if len(text) <= limit else text[:limit - 3] + "..."
    return escape_controls(text)


def quote_short(text: str, limit: int = 60) -> str:
    """``repr(text)``, cut short after ``limit`` characters: an error line quoting what was
    typed (an address, a player range, a stored name) stays one short line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


class InputError(PopeJoanError):
    """A file or stream that cannot be read as text: too large, not UTF-8, a folder."""
