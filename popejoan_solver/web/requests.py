"""Reading what a web request hands over, with the command line's contract: bounded, UTF-8,
validated field by field, one clear error for anything else (never a file path)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final

from ..files.reading import MAX_INPUT_BYTES
from ..model.deal import Deal
from ..model.errors import InputError, clip
from ..model.notation import deal_from_json, decode_json, parse_deal_text
from ..model.stops import View
from .state import WebInputError

MAX_TIME_LIMIT: Final = 10.0
"""The longest a request may search (seconds); a request may ask for less."""


def body_text(data: bytes) -> str:
    """A request body as text: at most :data:`MAX_INPUT_BYTES` bytes of UTF-8."""
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"the request is larger than {MAX_INPUT_BYTES} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the request is not UTF-8 text (byte {exc.start})") from None


def body_object(data: bytes) -> Mapping[str, Any]:
    """A request body that must be a JSON object."""
    value = decode_json(body_text(data))
    if not isinstance(value, dict):
        raise WebInputError("the request body must be a JSON object")
    return value


def deal_field(body: Mapping[str, Any]) -> Deal:
    """The ``deal`` of a request: a JSON deal object, or text (JSON, TOML or one line)."""
    value = body.get("deal")
    if isinstance(value, dict):
        return deal_from_json(value)
    if isinstance(value, str):
        return parse_deal_text(value)
    raise WebInputError("'deal' must be a deal: a JSON object or its text (one-line notation, "
                        "JSON or TOML)")


def line_field(body: Mapping[str, Any]) -> list[str]:
    """The ``line`` of a request: a list of steps (``3D``, ``8S+9D@9S``), default none."""
    value = body.get("line", [])
    if isinstance(value, str):
        return [step for step in value.replace(",", " ").split() if step]
    if not isinstance(value, list) or not all(isinstance(step, str) for step in value):
        raise WebInputError("'line' must be a list of steps such as [\"3D\", \"8S+9D@9S\"]")
    return list(value)


def view_field(body: Mapping[str, Any]) -> View:
    value = body.get("view", View.REFEREE.value)
    try:
        return View(value)
    except ValueError:
        raise WebInputError(f"'view' must be 'referee' or 'player', not "
                            f"{clip(str(value))!r}") from None


def time_limit_field(value: object) -> float:
    """A time limit asked for (a number of seconds above 0), capped at :data:`MAX_TIME_LIMIT`;
    none asked for gives the cap."""
    if value is None or value == "":
        return MAX_TIME_LIMIT
    if isinstance(value, bool):  # JSON true is not a number of seconds
        raise WebInputError(f"time_limit must be a number of seconds above 0, not {value!r}")
    try:
        seconds = float(value) if isinstance(value, (int, float, str)) else math.nan
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise WebInputError(f"time_limit must be a number of seconds above 0, not "
                            f"{clip(str(value))!r}")
    return min(seconds, MAX_TIME_LIMIT)


def seat_number(value: object, players: int) -> int | None:
    """A seat (from 1) from a request (a number or its text); None when absent."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 4:
        value = int(value)
    if type(value) is not int or not 1 <= value <= players:
        raise WebInputError(f"seat must be a number from 1 to {players}, not "
                            f"{clip(str(value))!r}")
    return value
