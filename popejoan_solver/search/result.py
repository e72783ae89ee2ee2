"""The typed result of solving a deal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model.cards import Card, card_name
from ..model.play import Run
from ..model.settlement import Transfer


@dataclass(frozen=True)
class Value:
    """An exact value, or the bounds proven before a time limit ran out."""

    lower: int
    upper: int

    @classmethod
    def exact(cls, value: int) -> Value:
        return cls(value, value)

    @property
    def is_exact(self) -> bool:
        return self.lower == self.upper

    def to_json(self, boolean: bool = False) -> Any:
        def conv(v: int) -> Any:
            return bool(v) if boolean else v
        if self.is_exact:
            return conv(self.lower)
        return {"lower": conv(self.lower), "upper": conv(self.upper)}

    def __str__(self) -> str:
        return str(self.lower) if self.is_exact else f"{self.lower}..{self.upper}"


@dataclass(frozen=True)
class SeatResult:
    """What one seat can achieve (seat numbers from 1)."""

    seat: int
    guaranteed: Value
    forced_win: Value
    """1 (true) or 0 (false) when exact."""
    best_case: Value

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "guaranteed": self.guaranteed.to_json(),
                "forced_win": self.forced_win.to_json(boolean=True),
                "best_case": self.best_case.to_json()}


@dataclass(frozen=True)
class LeadResult:
    """A legal lead of the seat on lead and the guaranteed value that seat keeps after it."""

    card: Card
    guaranteed: Value

    def to_json(self) -> dict[str, Any]:
        return {"card": card_name(self.card), "guaranteed": self.guaranteed.to_json()}


@dataclass(frozen=True)
class LineStep:
    """One lead of an optimal line: the run it forced and what was paid during it."""

    run: Run
    paid: tuple[Transfer, ...]

    def to_json(self) -> dict[str, Any]:
        return {**self.run.to_json(), "paid": [t.to_json() for t in self.paid]}


@dataclass(frozen=True)
class SolveStats:
    nodes: int
    seconds: float
    engine: str
    exact: bool
    core: str = ""
    """For the fast engine, ``"c"`` (compiled core) or ``"python"``."""
    threads: int = 1
    """Seats searched side by side, one engine each (``nodes`` sums them)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"nodes": self.nodes, "seconds": round(self.seconds, 4),
                                "engine": self.engine, "exact": self.exact}
        if self.core:
            data["core"] = self.core
        data["threads"] = self.threads
        return data


@dataclass(frozen=True)
class Solution:
    """Everything :func:`popejoan_solver.search` found about a deal or position."""

    seats: tuple[SeatResult, ...]
    leader: int
    """1-based seat on lead in the position solved."""
    leads: tuple[LeadResult, ...]
    line_seat: int
    """1-based seat whose guaranteed value the line defends."""
    line: tuple[LineStep, ...]
    stats: SolveStats
    turnup: tuple[Transfer, ...]
    """Paid to the dealer for the turn-up before play; not part of the seats' values."""
    dressing: tuple[Transfer, ...]
    """Who paid to dress the board; not part of the seats' values."""
    notes: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        return self.stats.exact

    def seat(self, number: int) -> SeatResult:
        for result in self.seats:
            if result.seat == number:
                return result
        raise KeyError(number)

    def to_json(self) -> dict[str, Any]:
        """The solution as ``popejoan solve --json`` prints it and the web's ``POST
        /api/solve`` answers: the seats, leads, line and stats first, in this order (scripts
        read it)."""
        return {
            "seats": [s.to_json() for s in self.seats],
            "leads": [lead.to_json() for lead in self.leads],
            "line": [step.to_json() for step in self.line],
            "stats": self.stats.to_json(),
            "leader": self.leader,
            "line_seat": self.line_seat,
            "turnup": [t.to_json() for t in self.turnup],
            "dressing": [t.to_json() for t in self.dressing],
            "notes": list(self.notes),
        }
