"""Statistics over a batch file: forced-win rates and seat values per ruleset and player count,
with 95% confidence intervals (Wilson for rates, Student's t for means)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..files.writing import save_figure

Z95 = 1.959963984540054


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate.

    >>> tuple(round(x, 3) for x in wilson(50, 100))
    (0.404, 0.596)
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _t_within(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (Abramowitz and Stegun
    26.7.3-4: a finite sum for a whole ``df``)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return math.sin(theta) * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = 1.0
    for k in range(3, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


@cache
def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t (12.706 for 1 degree of freedom, 2.571 for
    5, toward 1.960): exact by bisection up to 1,000, the Cornish-Fisher series beyond."""
    if df > 1000:
        z = Z95
        return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
                + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))
    low, high = Z95, 13.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_within(middle, df) < 0.95 else (low, middle)
    return (low + high) / 2


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (Student's t: a sample of a few, such as a match of a few
    units, gets the width it needs, not the normal one's). One value gives no interval: its
    bounds are NaN (JSON null), never the zero-width ``[mean, mean]`` of certainty."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return (mean, math.nan, math.nan)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return (mean, mean - half, mean + half)


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
            "forced_win_rate": [_figure(r, 6) for r in self.forced_win_rate],
            "any_forced_win_rate": _figure(self.any_forced_win_rate, 6),
            "mean_guaranteed": [_figure(g[0], 4) for g in self.guaranteed],
            "exact_deals": self.exact,
            "forced_win_ci95": [[_figure(x, 4) for x in wilson(w, self.exact)]
                                for w in self.forced_win],
            "mean_guaranteed_ci95": [[_figure(g[1], 4), _figure(g[2], 4)]
                                     for g in self.guaranteed],
            "mean_seconds": round(self.mean_seconds, 4),
            "worst_seconds": round(self.worst_seconds, 4),
        }


def interval_text(low: float, high: float, spec: str = ".3f") -> str:
    """``[low, high]`` as text, or ``[-, -]`` where there is no interval (NaN bounds)."""
    def bound(value: float) -> str:
        return "-" if math.isnan(value) else format(value, spec)
    return f"[{bound(low)}, {bound(high)}]"


def _figure(value: float, digits: int) -> float | None:
    """A rounded figure, or None (JSON null) where there was nothing to compute it from."""
    return None if math.isnan(value) else round(value, digits)


def mean_ci_from_sums(n: int, total: float, squares: float) -> tuple[float, float, float]:
    """:func:`mean_ci` from the count, sum and sum of squares (exact for whole numbers), so a
    large batch file is summarised without holding its values."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    if n == 1:
        return (mean, math.nan, math.nan)
    spread = max(0.0, float(n * squares - total * total)) / (n * (n - 1))
    half = t95(n - 1) * math.sqrt(spread) / math.sqrt(n)
    return (mean, mean - half, mean + half)


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
