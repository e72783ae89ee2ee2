"""Exceptions for bad input. All subclass ``ValueError`` so callers can catch one type."""


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


def clip(text: str, limit: int = 80) -> str:
    """Text on one line and cut short, for an error message (a ruleset name may be 100 KB
    long; SQLite's and JSON's messages may span lines)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class InputError(PopeJoanError):
    """A file or stream that cannot be read as text: too large, not UTF-8, a folder."""
