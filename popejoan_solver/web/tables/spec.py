"""A table as its host asks for it: the ruleset, the players, who sits where, how many deals.

``POST /api/tables`` sends ``{"rules", "players", "seats", "deals", "seed", "turn_seconds",
"pace"}``; :func:`read_spec` checks every field and gives the frozen :class:`TableSpec` the
session is played by. A seat is ``"person"`` or a bot spec (``docs/bots.md``).
"""

from __future__ import annotations

import importlib.util
import math
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ...bots.base import BotError
from ...bots.registry import make_bot
from ...model.deal import MAX_PLAYERS, MIN_PLAYERS
from ...model.errors import PopeJoanError, clip
from ...model.rules import GameKind, Ruleset, get_ruleset

PERSON: Final = "person"
"""A seat played by a person (through the seat's private link)."""

DEFAULT_BOT: Final = "strong"
"""The bot that plays a seat whose person's time ran out, and the page's default opponent: the
strongest fair bot (``bots.registry.STRONG``)."""

MAX_DEALS: Final = 100
"""Deals in one session at most (a ``popejoan match`` session at most)."""

MAX_TURN_SECONDS: Final = 24 * 3600.0
DEFAULT_PACE: Final = 1.0
"""Seconds a bot waits before it leads, so that people can follow its plays."""
MAX_PACE: Final = 10.0

SPEC_KEYS: Final = ("rules", "players", "seats", "deals", "seed", "turn_seconds", "pace")


class TableError(PopeJoanError):
    """A request a table refuses: ``status`` is the HTTP status it answers with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class TableSpec:
    """A session as its host asked for it (players numbered from 0 here, round the table)."""

    rules: Ruleset
    players: int
    seats: tuple[str, ...]
    """Per player: :data:`PERSON` or a bot spec."""
    deals: int
    seed: int
    turn_seconds: float | None
    """A person's time for one decision; past it a bot plays it (None: no limit)."""
    pace: float

    @property
    def people(self) -> tuple[int, ...]:
        return tuple(p for p, kind in enumerate(self.seats) if kind == PERSON)

    @property
    def final_round(self) -> bool:
        """Whether the session ends with Hoyle's final round (Hoffmann's ruleset only: "The
        best method of disposing of any such unclaimed counters at the close of the game is to
        deal a final round face upwards")."""
        return (self.rules.name.partition("+")[0] == "hoyle-modernized"
                and self.rules.game is GameKind.POPE_JOAN)

    def to_json(self) -> dict[str, Any]:
        """The spec as stored (the seed too: never sent to a client)."""
        return {"rules": self.rules.name, "players": self.players, "seats": list(self.seats),
                "deals": self.deals, "seed": self.seed, "turn_seconds": self.turn_seconds,
                "pace": self.pace}


def table_bots() -> tuple[str, ...]:
    """The bots a table can seat (every bot of ``docs/bots.md`` this installation can run:
    ``ismcts`` only with OpenSpiel), the default opponent first: what the host's form offers."""
    from ...bots.registry import BOTS

    names = (DEFAULT_BOT, *(name for name in BOTS if name != DEFAULT_BOT))
    return tuple(name for name in names
                 if name != "ismcts" or importlib.util.find_spec("open_spiel") is not None)


def _whole(body: Mapping[str, Any], key: str, low: int, high: int, default: int) -> int:
    value = body.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise TableError(f"{key!r} must be a whole number from {low} to {high}, not "
                         f"{clip(repr(value))}")
    return value


def _seconds(body: Mapping[str, Any], key: str, high: float, default: float | None
             ) -> float | None:
    value = body.get(key, default)
    if value is None:
        return None
    if (isinstance(value, bool) or not isinstance(value, int | float)
            or not math.isfinite(value) or not 0 <= value <= high):
        raise TableError(f"{key!r} must be a number of seconds from 0 to {high:g}, not "
                         f"{clip(repr(value))}")
    return float(value)


def _seat(value: object, number: int) -> str:
    if not isinstance(value, str):
        raise TableError(f"seat {number} must be \"person\" or a bot spec, not "
                         f"{clip(repr(value))}")
    if value.strip().lower() == PERSON:
        return PERSON
    try:
        make_bot(value)
    except BotError as exc:
        raise TableError(f"seat {number}: {exc}") from None
    return value.strip()


def read_spec(body: object) -> TableSpec:
    """The host's request, checked (each mistake a :class:`TableError` naming the field)."""
    if not isinstance(body, Mapping):
        raise TableError("the body must be a JSON object: {\"rules\", \"players\", \"seats\", "
                         "\"deals\", \"seed\"}")
    unknown = [k for k in body if k not in SPEC_KEYS]
    if unknown:
        raise TableError(f"unknown key {clip(str(unknown[0]))!r} (keys: {', '.join(SPEC_KEYS)})")
    rules_name = body.get("rules", "hoyle-modernized")
    if not isinstance(rules_name, str):
        raise TableError("'rules' must be a ruleset's name, with options as on the command "
                         "line (\"peel+pope_in_lieu=run-continues\")")
    rules = get_ruleset(rules_name)
    players = _whole(body, "players", MIN_PLAYERS, MAX_PLAYERS, 4)
    seats = body.get("seats", [PERSON] + [DEFAULT_BOT] * (players - 1))
    if not isinstance(seats, list) or len(seats) != players:
        raise TableError(f"'seats' must be a list of {players} seats, each \"person\" or a bot "
                         "spec")
    kinds = tuple(_seat(value, number) for number, value in enumerate(seats, start=1))
    seed = body.get("seed")
    if seed is None:
        seed = secrets.randbelow(1 << 63)
    elif type(seed) is not int or not 0 <= seed < 1 << 63:
        raise TableError(f"'seed' must be a whole number from 0 to 2**63 - 1, not "
                         f"{clip(repr(seed))}")
    return TableSpec(rules, players, kinds, _whole(body, "deals", 1, MAX_DEALS, 1), seed,
                     _seconds(body, "turn_seconds", MAX_TURN_SECONDS, None),
                     _seconds(body, "pace", MAX_PACE, DEFAULT_PACE) or 0.0)


def spec_from_json(data: Mapping[str, Any]) -> TableSpec:
    """A spec as stored (:meth:`TableSpec.to_json`)."""
    return TableSpec(get_ruleset(data["rules"]), data["players"], tuple(data["seats"]),
                     data["deals"], data["seed"], data["turn_seconds"], data["pace"])
