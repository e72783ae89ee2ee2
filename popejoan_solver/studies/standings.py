"""Standings of a duplicate match: mean counters per deal per bot, and pairwise differences.

The unit of the statistics is the *session* (a single deal when ``--session 1``) played in
every rotation: only complete units count (a match still running leaves its unfinished ones
out, and says how many). In a unit every bot holds every seat of every deal once, so its
counters there are a fair sample of the bot's play with the cards' luck cancelled. A bot's mean
is its counters per deal-play over all units; its 95% interval is the normal interval of the
per-unit means (units are independent; plays within one are not). A pair's difference is the
mean over units of the per-unit difference of their means, with its normal 95% interval:
paired by unit, which is what the duplicate design allows.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..files.writing import save_figure
from ..intervals import mean_ci
from ..jobs.match import MatchRow, MatchSettings
from .stats import interval_text, json_figure


@dataclass(frozen=True)
class BotStanding:
    name: str
    mean: float
    ci95: tuple[float, float]
    plays: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "mean": json_figure(self.mean, 4),
                "ci95": [json_figure(self.ci95[0], 4), json_figure(self.ci95[1], 4)],
                "plays": self.plays}


@dataclass(frozen=True)
class PairStanding:
    a: str
    b: str
    difference: float
    ci95: tuple[float, float]
    units: int

    @property
    def separates(self) -> bool:
        """The interval leaves out 0."""
        return self.ci95[0] > 0 or self.ci95[1] < 0

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "difference": json_figure(self.difference, 4),
                "ci95": [json_figure(self.ci95[0], 4), json_figure(self.ci95[1], 4)],
                "units": self.units,
                "separates": self.separates}


@dataclass(frozen=True)
class Standings:
    settings: MatchSettings
    seat: int | None
    units: int
    incomplete: int
    bots: tuple[BotStanding, ...]
    pairs: tuple[PairStanding, ...]

    def to_json(self) -> dict[str, Any]:
        s = self.settings
        return {"rules": s.rules, "players": s.players, "seed": s.seed, "session": s.session,
                "seat": self.seat,
                "units": self.units, "incomplete_units": self.incomplete,
                "bots": [b.to_json() for b in self.bots],
                "pairs": [p.to_json() for p in self.pairs]}


def unit_totals(settings: MatchSettings, rows: Sequence[MatchRow],
                seat: int | None = None) -> tuple[dict[int, dict[str, tuple[int, int]]], int]:
    """Per complete session: each bot's (counters, plays), at every seat or only at ``seat``
    (from 1); and how many sessions are not complete."""
    want = len(settings.bots) * settings.session
    grouped: dict[int, list[MatchRow]] = defaultdict(list)
    for row in rows:
        grouped[row.session].append(row)
    units: dict[int, dict[str, tuple[int, int]]] = {}
    for session, unit in grouped.items():
        if len(unit) != want:
            continue
        totals = dict.fromkeys(settings.bots, (0, 0))
        for row in unit:
            for at, (bot, value) in enumerate(zip(row.seats, row.values, strict=True)):
                if seat is not None and at + 1 != seat:
                    continue
                counters, plays = totals[bot]
                totals[bot] = (counters + value, plays + 1)
        units[session] = totals
    return units, len(grouped) - len(units)


def standings(settings: MatchSettings, rows: Sequence[MatchRow],
              seat: int | None = None) -> Standings:
    """The standings, bots best first; with a ``seat`` (from 1), of the plays at that seat only
    (each bot holds it once per deal of a unit: the dealer's seat measures the peek)."""
    units, incomplete = unit_totals(settings, rows, seat)
    names = tuple(dict.fromkeys(settings.bots))  # copies of one bot stand as one
    means = {bot: [t[bot][0] / t[bot][1] for t in units.values() if t[bot][1]]
             for bot in names}
    bots = []
    for bot in names:
        counters = sum(t[bot][0] for t in units.values())
        plays = sum(t[bot][1] for t in units.values())
        _, low, high = mean_ci(means[bot])
        bots.append(BotStanding(bot, counters / plays if plays else float("nan"), (low, high),
                                plays))
    bots.sort(key=lambda b: -b.mean if b.plays else 0.0)
    pairs = []
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            diffs = [t[a.name][0] / t[a.name][1] - t[b.name][0] / t[b.name][1]
                     for t in units.values() if t[a.name][1] and t[b.name][1]]
            diff, low, high = mean_ci(diffs)
            pairs.append(PairStanding(a.name, b.name, diff, (low, high), len(diffs)))
    return Standings(settings, seat, len(units), incomplete, tuple(bots), tuple(pairs))


def _mean_text(value: float) -> str:
    """A mean in the standings' column, ``-`` when there is none (no complete unit)."""
    return f"{'-':>8}" if math.isnan(value) else f"{value:+8.3f}"


def describe(result: Standings) -> list[str]:
    """The standings as lines of text."""
    s = result.settings
    lines = [f"{s.rules}, {s.players} players, session of {s.session}, seed {s.seed}: "
             f"{result.units} complete units"
             + (f", plays at seat {result.seat} only" if result.seat is not None else "")
             + (f" ({result.incomplete} unfinished, left out)" if result.incomplete else "")]
    lines.append("  bot                           mean counters/deal [95% CI]      plays")
    for b in result.bots:
        lines.append(f"  {b.name:<30} {_mean_text(b.mean)} {interval_text(*b.ci95, '+.3f')}"
                     f"  {b.plays:>7}")
    lines.append("  pair (a - b)                                   difference [95% CI]")
    for p in result.pairs:
        mark = "  separated" if p.separates else ""
        lines.append(f"  {p.a + ' - ' + p.b:<45} {_mean_text(p.difference)} "
                     f"{interval_text(*p.ci95, '+.3f')}{mark}")
    return lines


def plot(result: Standings, path: Path) -> None:
    """Each bot's mean with its interval, as a bar chart (png or svg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bots = [b for b in result.bots if b.plays]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(bots) + 2), 3.5))
    ax.bar([b.name for b in bots], [b.mean for b in bots],
           yerr=[[b.mean - b.ci95[0] for b in bots], [b.ci95[1] - b.mean for b in bots]],
           capsize=4, color="#7a9cc6")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel("counters per deal (95% CI)")
    s = result.settings
    ax.set_title(f"{s.rules}, {s.players} players, {result.units} units", fontsize=9)
    ax.tick_params(axis="x", labelrotation=20, labelsize=8)
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
