"""The study reports written to ``docs/studies/``: markdown tables with 95% intervals, and plots."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Final

from ..files.writing import (
    OutputPathError,
    check_output_folder,
    check_output_path,
    save_figure,
    write_output,
)
from ..intervals import wilson
from ..model.errors import clip
from .hoyle_maxims import MAXIMS, MaximSummary
from .stats import Group, interval_text, plot

REPORT_FILES: Final = {"seat-values": ("seat-values.md", "seat-values.png"),
                       "hoyle-maxims": ("hoyle-maxims.md", "hoyle-maxims.png")}
"""The files each study's report writes into its folder."""


def check_report(study: str, directory: Path | str, option: str | None = None) -> Path:
    """Refuse, before the study runs, a report folder (or a file in it) that could not be
    written (``files.writing``); returns the folder through any symbolic link."""
    folder = check_output_folder(directory, option, parents=True)
    if folder.is_dir():
        for name in REPORT_FILES[study]:
            check_output_path(folder / name, option)
    return folder


def _make_folder(directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"cannot make the folder {clip(str(directory))}: "
                              f"{exc.strerror or exc}") from None


def _ci(low: float, high: float, digits: int = 3) -> str:
    return interval_text(low, high, f".{digits}f")


def seat_values_report(found: list[Group], command: str, directory: Path) -> Path:
    """``seat-values.md`` and its figure."""
    _make_folder(directory)
    figure = directory / "seat-values.png"
    plot(found, figure)
    lines = [
        "# Seat values and forced wins",
        "",
        "Double-dummy values of seeded standard deals (each ruleset's own dealing), every seat's",
        "`guaranteed` (the paranoid value: net counters from play) and whether it has a forced",
        "win. Intervals are 95%: Wilson for rates, normal approximation for means. Deals that",
        "ran past the per-deal time limit are counted in *deals* but left out of the rates.",
        "",
        f"Made with `{command}`; `popejoan stats` on the same file prints the same figures.",
        "",
        "![forced-win rate and mean guaranteed value by seat](seat-values.png)",
        "",
        "| ruleset | players | deals | any seat forced win | seat 1 (eldest) forced win | "
        "dealer forced win | mean guaranteed by seat (1 = eldest) | mean / worst solve s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for g in found:
        any_lo, any_hi = wilson(g.any_forced_win, g.exact)
        e_lo, e_hi = wilson(g.forced_win[0], g.exact)
        d_lo, d_hi = wilson(g.forced_win[-1], g.exact)
        means = ", ".join(f"{m:+.2f}±" + ("-" if math.isnan(lo) else f"{(hi - lo) / 2:.2f}")
                          for m, lo, hi in g.guaranteed)  # one deal: no interval
        lines.append(
            f"| {g.rules} | {g.players} | {g.deals} | {g.any_forced_win_rate:.3f} "
            f"{_ci(any_lo, any_hi)} | {g.forced_win_rate[0]:.3f} {_ci(e_lo, e_hi)} | "
            f"{g.forced_win_rate[-1]:.3f} {_ci(d_lo, d_hi)} | {means} | "
            f"{g.mean_seconds:.3f} / {g.worst_seconds:.2f} |")
    path = directory / "seat-values.md"
    write_output(path, "\n".join(lines) + "\n")
    return path


def maxims_report(results: dict[int, dict[str, MaximSummary]], command: str,
                  directory: Path) -> Path:
    """``hoyle-maxims.md`` and its figure."""
    _make_folder(directory)
    players = sorted(results)
    _maxims_figure(results, players, directory / "hoyle-maxims.png")
    lines = [
        "# Hoyle's maxims against double-dummy play",
        "",
        "The advice in Hoffmann, *Hoyle's Games Modernized* (c. 1909), \"Pope Joan\", turned into",
        "eldest's first lead (see `popejoan_solver/studies/hoyle_maxims.py` for the exact",
        "reading, in Hoyle's order: known stops, Pope, a sequence or alternate sequence to a",
        "King, the lower of two close cards, the lowest card of the longest suit) and compared",
        "with the optimal first leads: the leads that keep eldest's double-dummy `guaranteed`",
        "value highest. *Cost* is the best lead's value minus the advised lead's, in counters.",
        "The baseline is a uniformly random legal lead, computed exactly per deal (the share of",
        "optimal leads, the mean cost over all leads). Intervals are 95% (Wilson for rates,",
        "normal for means).",
        "",
        f"Made with `{command}`.",
        "",
        "![advice against a random lead](hoyle-maxims.png)",
        "",
        "| players | chooser | deals | first lead optimal | mean cost |",
        "|---|---|---|---|---|",
    ]
    for p in players:
        for label in ("all advice", *MAXIMS, "random lead"):
            summary = results[p].get(label)
            if summary is None:
                continue
            rate, lo, hi = summary.optimal_rate
            cost, clo, chi = summary.mean_cost
            name = f"**{label}**" if label in ("all advice", "random lead") else f"{label}"
            lines.append(f"| {p} | {name} | {summary.deals} | {rate:.3f} {_ci(lo, hi)} | "
                         f"{cost:.2f} {_ci(clo, chi, 2)} |")
    path = directory / "hoyle-maxims.md"
    write_output(path, "\n".join(lines) + "\n")
    return path


def _maxims_figure(results: dict[int, dict[str, MaximSummary]], players: list[int],
                   path: Path) -> None:
    """The first lead's optimal rate and mean cost by players: all advice against a random
    lead."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for label in ("all advice", "random lead"):
        rates = [results[p][label].optimal_rate for p in players]
        costs = [results[p][label].mean_cost for p in players]
        axes[0].errorbar(players, [r[0] for r in rates],
                         yerr=[[r[0] - r[1] for r in rates], [r[2] - r[0] for r in rates]],
                         marker="o", capsize=3, label=label)
        axes[1].errorbar(players, [c[0] for c in costs],
                         yerr=[[c[0] - c[1] for c in costs], [c[2] - c[0] for c in costs]],
                         marker="o", capsize=3, label=label)
    axes[0].set(title="first lead is optimal", xlabel="players", ylabel="rate")
    axes[1].set(title="mean cost of the first lead", xlabel="players", ylabel="counters")
    axes[0].legend()
    fig.tight_layout()
    try:
        save_figure(fig, path)
    finally:
        plt.close(fig)
