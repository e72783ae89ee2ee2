"""Checks of the Python API's arguments, one home for each: the types and ranges every public
function checks at its boundary, so that a wrong argument is a :class:`PopeJoanError` with
the message the command line would print, never an ``IndexError``, an ``AttributeError``, an
``OverflowError`` or a run with ``True`` taken as 1.

Seats are checked as the caller numbers them (1-based in every public function). Cards and
card masks are checked in :mod:`.cards` (``check_card``, ``check_mask``).
"""

from __future__ import annotations

import math
from enum import Enum
from typing import NoReturn, TypeGuard

from .errors import PopeJoanError, clip

ErrorType = type[PopeJoanError]


def is_whole(value: object) -> TypeGuard[int]:
    """A whole number, and not a truth value (``True`` is 1 to Python, never a seat here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown(value: object) -> str:
    """A value for an error message: its repr on one line and cut short (a number may have a
    million digits, a string a million characters)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() >= 200:
        return "a huge number"
    return clip(repr(value))


def check_whole(value: object, name: str, low: int, high: int | None = None,
                error: ErrorType = PopeJoanError) -> int:
    """``value`` as a whole number from ``low`` (to ``high``), else ``error`` naming it."""
    if not is_whole(value) or value < low or (high is not None and value > high):
        span = f"from {low:,}" + (f" to {high:,}" if high is not None else "")
        raise error(f"{name} must be a whole number {span}, not {shown(value)}")
    return value


def check_flag(value: object, name: str, error: ErrorType = PopeJoanError) -> bool:
    """``value`` as ``True`` or ``False`` (a string ``'no'`` is true to Python)."""
    if not isinstance(value, bool):
        raise error(f"{name} must be True or False, not {shown(value)}")
    return value


def check_text(value: object, name: str, error: ErrorType = PopeJoanError) -> str:
    """``value`` as a string (bytes, ``None`` and numbers are not text)."""
    if not isinstance(value, str):
        raise error(f"{name} must be a string, not {type(value).__name__}")
    return value


def check_time_limit(time_limit: object) -> float | None:
    """A time limit is a finite number of seconds above 0, or None for none: NaN would never
    run out, infinity is not a limit, and a whole number too large for a float
    (``10**400``) is no more of one (every command and the Python API check it here)."""
    if time_limit is None:
        return None
    if not isinstance(time_limit, (int, float)) or isinstance(time_limit, bool):
        raise PopeJoanError(f"a time limit is a number of seconds, not {shown(time_limit)}")
    try:
        seconds = float(time_limit)
    except OverflowError:
        seconds = math.inf
    if not (math.isfinite(seconds) and seconds > 0):
        raise PopeJoanError(f"a time limit (--time-limit) must be a finite number of seconds "
                            f"above 0, not {shown(time_limit)} (leave it out for no limit)")
    return seconds


def check_seat(value: object, players: int, error: ErrorType = PopeJoanError,
               name: str = "seat") -> int:
    """A seat numbered from 1 (as in every public function) of a deal of ``players``."""
    if not is_whole(value):
        raise error(f"{name} must be a whole number from 1 to {players}, not {shown(value)}")
    if not 1 <= value <= players:
        raise error(f"{name} must be from 1 to {players}, not {shown(value)}")
    return value


def refuse_member(enum: type[Enum], value: object, error: ErrorType) -> NoReturn:
    """An enumeration's ``_missing_``: a value that names none of its members is a
    :class:`PopeJoanError` naming the known ones (``Property('forced-wins')``)."""
    known = ", ".join(str(member.value) for member in enum)
    raise error(f"unknown {enum.__name__} {shown(value)} (known: {known})")
