"""The staking board: eight compartments of counters."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, fields
from enum import StrEnum

from .arguments import refuse_member
from .errors import NotationError, clip

MAX_COUNT = 1 << 31
"""The most counters one compartment may hold (2**31): every engine is exact up to it."""


class Compartment(StrEnum):
    """A compartment of the board; the value is its key in the JSON deal."""

    POPE = "pope"
    MATRIMONY = "matrimony"
    INTRIGUE = "intrigue"
    ACE = "ace"
    KING = "king"
    QUEEN = "queen"
    JACK = "jack"
    GAME = "game"

    @classmethod
    def _missing_(cls, value: object) -> Compartment:
        refuse_member(cls, value, NotationError)


@dataclass(frozen=True)
class Board:
    """Counters in each compartment. Defaults are the usual dressing of a fresh board.

    "Six to Pope, two to Matrimony, two to Intrigue, and one each to Ace, King, Queen, Knave and
    Game" (Hoffmann, *Hoyle's Games Modernized*): the fresh board of ``dressing=dealer`` with
    eight pools. Other dressings and Peel's five pools lay out others, for each number of
    players: :meth:`~.table.RuleTable.dressing` gives every ruleset's.
    """

    pope: int = 6
    matrimony: int = 2
    intrigue: int = 2
    ace: int = 1
    king: int = 1
    queen: int = 1
    jack: int = 1
    game: int = 1

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if type(value) is not int or value < 0:
                raise NotationError(f"board: {f.name} must be a whole number >= 0, "
                                    f"not {_short(value)}")
            if value > MAX_COUNT:
                raise NotationError(f"board: {f.name} holds more than the limit of 2**31 = "
                                    f"{MAX_COUNT} counters a compartment: {_short(value)}")

    def __getitem__(self, compartment: Compartment) -> int:
        value: int = getattr(self, compartment.value)
        return value

    def items(self) -> Iterator[tuple[Compartment, int]]:
        for compartment in Compartment:
            yield compartment, self[compartment]

    def total(self) -> int:
        """Counters on the board, every compartment (read through :meth:`items`, so a new
        compartment is never left out)."""
        return sum(count for _, count in self.items())

    def to_json(self) -> dict[str, int]:
        return {c.value: n for c, n in self.items()}

    @classmethod
    def from_json(cls, data: object) -> Board:
        if not isinstance(data, Mapping):
            raise NotationError("board must be an object of compartment counts")
        unknown = sorted(set(data) - {c.value for c in Compartment})
        if unknown:
            raise NotationError(
                f"board: unknown compartment {clip(str(unknown[0]))!r} "
                f"(known: {', '.join(c.value for c in Compartment)})"
            )
        return cls(**{str(k): v for k, v in data.items()})



def _short(value: object) -> str:
    """A value for an error message, cut short: a user's number may have a million digits."""
    if isinstance(value, int) and value.bit_length() >= 200:
        return "a huge number"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
