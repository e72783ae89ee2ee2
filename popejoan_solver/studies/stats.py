"""Statistics over a batch file: forced-win rates and seat values per ruleset and player count,
with 95% confidence intervals (Wilson for rates, Student's t for means: :mod:`..intervals`)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..files.writing import save_figure

# The intervals' functions stay importable from here, where statistics were always read.
from ..intervals import mean_ci as mean_ci
from ..intervals import mean_ci_from_sums
from ..intervals import t95 as t95
from ..intervals import wilson as wilson


@dataclass(frozen=True)
class Group:
    """One (ruleset, players) group of a batch file; rates and means over exact rows."""

    rules: str
    players: int
    deals: int
    exact: int
    forced_win: tuple[int, ...]
    any_forced_win: int
    guaranteed: tuple[tuple[float, float, float], ...]
    mean_seconds: float
    worst_seconds: float

    @property
    def forced_win_rate(self) -> list[float]:
        return [w / self.exact if self.exact else math.nan for w in self.forced_win]

    @property
    def any_forced_win_rate(self) -> float:
        return self.any_forced_win / self.exact if self.exact else math.nan

    def to_json(self) -> dict[str, Any]:
        """The group as JSON; a figure with no exact deal to rest on is null, never NaN."""
        return {
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "forced_win_rate": [json_figure(r, 6) for r in self.forced_win_rate],
            "any_forced_win_rate": json_figure(self.any_forced_win_rate, 6),
            "mean_guaranteed": [json_figure(g[0], 4) for g in self.guaranteed],
            "exact_deals": self.exact,
            "forced_win_ci95": [[json_figure(x, 4) for x in wilson(w, self.exact)]
                                for w in self.forced_win],
            "mean_guaranteed_ci95": [[json_figure(g[1], 4), json_figure(g[2], 4)]
                                     for g in self.guaranteed],
            "mean_seconds": round(self.mean_seconds, 4),
            "worst_seconds": round(self.worst_seconds, 4),
        }


def interval_text(low: float, high: float, spec: str = ".3f") -> str:
    """``[low, high]`` as text, or ``[-, -]`` where there is no interval (NaN bounds)."""
    def bound(value: float) -> str:
        return "-" if math.isnan(value) else format(value, spec)
    return f"[{bound(low)}, {bound(high)}]"


def json_figure(value: float, digits: int) -> float | None:
    """A rounded figure, or None (JSON null) where there was nothing to compute it from: every
    study's JSON writes its figures so (a NaN is not JSON)."""
    return None if math.isnan(value) else round(value, digits)


@dataclass
class _Tally:
    """Running totals of one (ruleset, players) group."""

    players: int
    deals: int = 0
    exact: int = 0
    any_win: int = 0
    seconds: float = 0.0
    worst: float = 0.0
    wins: list[int] = field(default_factory=list)
    sums: list[float] = field(default_factory=list)
    squares: list[float] = field(default_factory=list)

    def add(self, row: dict[str, Any]) -> None:
        self.deals += 1
        self.seconds += row["seconds"]
        self.worst = max(self.worst, row["seconds"])
        if not row["exact"]:
            return
        self.exact += 1
        self.any_win += any(row["forced_win"])
        for s in range(self.players):
            value = row["guaranteed"][s]
            self.wins[s] += bool(row["forced_win"][s])
            self.sums[s] += value
            self.squares[s] += value * value

    def group(self, rules: str) -> Group:
        values = tuple(mean_ci_from_sums(self.exact, self.sums[s], self.squares[s])
                       for s in range(self.players))
        return Group(rules, self.players, self.deals, self.exact, tuple(self.wins),
                     self.any_win, values, self.seconds / self.deals, self.worst)


def groups(rows: Iterable[dict[str, Any]]) -> list[Group]:
    """Rows (as :func:`~popejoan_solver.jobs.batch.read_rows` gives them) summed up per
    ruleset and player count, one pass and running totals: memory does not grow with rows."""
    tallies: dict[tuple[str, int], _Tally] = {}
    for row in rows:
        key = (row["rules"], row["players"])
        if key not in tallies:
            n = row["players"]
            tallies[key] = _Tally(n, wins=[0] * n, sums=[0] * n, squares=[0] * n)
        tallies[key].add(row)
    return [tallies[key].group(key[0]) for key in sorted(tallies)]


def plot(groups_: list[Group], path: Path) -> None:
    """Forced-win rate and mean guaranteed value per seat, one panel each (PNG or SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for group in groups_:
        seats = list(range(1, group.players + 1))
        label = f"{group.rules} {group.players}p"
        axes[0].plot(seats, group.forced_win_rate, marker="o", label=label)
        axes[1].plot(seats, [g[0] for g in group.guaranteed], marker="o", label=label)
    axes[0].set(title="forced-win rate by seat", xlabel="seat (1 = eldest)", ylabel="rate")
    axes[1].set(title="mean guaranteed value by seat", xlabel="seat (1 = eldest)",
                ylabel="counters")
    axes[1].legend(fontsize=6, ncol=2)
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
