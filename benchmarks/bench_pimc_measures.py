"""The AAAI-2010 measures of Long, Sturtevant, Buro and Furtak for every named ruleset.

    python benchmarks/bench_pimc_measures.py --players 3,4 --deals 100 --seed 1 \\
        --out pimc-measures.json

Deal ``i`` of a row is ``popejoan deal --players P --seed S --index i --rules R``, played out at
random (``studies.pimc_measures``). Prints one Markdown table row per ruleset and player
count (the table of docs/studies/pimc-measures.md) and writes every figure as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path

from popejoan_solver.model.rules import RULESETS
from popejoan_solver.studies.pimc_measures import (
    Measures,
    hidden_at_last,
    indifference_by_depth,
    measure,
    playouts,
)


def _interval(hits: int, total: int) -> str:
    """A proportion with its 95% Wilson interval."""
    if not total:
        return "-"
    p, z = hits / total, 1.96
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return f"{p:.2f} ({centre - half:.2f}-{centre + half:.2f})"


def _row(found: Measures, seconds: float) -> str:
    rates = " ".join(f"{r:.2f}" for r in found.out_rates)
    spread = _spread(found.df)
    return (f"| {found.rules} | {found.players} | {found.deals} | "
            f"{_interval(found.correlated, found.decisions)} | {found.bias:.2f} ({rates}) | "
            f"{found.disambiguation_factor:.3f} ± {spread:.3f} ({len(found.df)}"
            f"{f'; {found.uncounted} leads uncounted' if found.uncounted else ''}) | "
            f"{math.log10(found.to_json()['median_first_information_set']):.1f} | "
            f"{seconds:.0f} |")


def _spread(values: list[float]) -> float:
    """Half the width of a 95% normal interval of the mean."""
    if len(values) < 2:
        return math.nan
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return 1.96 * math.sqrt(var / len(values))


def depth_rows(players: list[int], rules: list[str], deals: int, seed: int,
               deepest: int) -> list[dict[str, object]]:
    """How often a decision is indifferent (every lead the same double-dummy value for its
    mover), by its distance from the playout's last decision; one table row a ruleset."""
    print("\n| ruleset | players | deals | "
          + " | ".join(f"{d}{'+' if d == deepest else ''} from the end" for d in range(deepest + 1))
          + " |")
    print("|---|---|---|" + "---|" * (deepest + 1))
    rows = []
    for count in players:
        for name in rules:
            tally = [[0, 0] for _ in range(deepest + 1)]
            for playout in playouts(RULESETS[name], count, deals, seed):
                for depth, same in indifference_by_depth(playout, deepest):
                    tally[depth][0] += same
                    tally[depth][1] += 1
            cells = " | ".join(f"{_interval(h, n)} n={n}" for h, n in tally)
            print(f"| {name} | {count} | {deals} | {cells} |", flush=True)
            rows.append({"rules": name, "players": count, "deals": deals,
                         "indifferent_by_depth": tally})
    return rows


def hidden_rows(players: list[int], rules: list[str], deals: int, seed: int) -> None:
    """What the mover still cannot see at each playout's last real decision (medians)."""
    print("\n| ruleset | players | deals | median log10 consistent deals | median cards unplaced |")
    print("|---|---|---|---|---|")
    for count in players:
        for name in rules:
            found = [h for h in map(hidden_at_last, playouts(RULESETS[name], count, deals, seed))
                     if h is not None]
            logs = statistics.median(math.log10(size) for size, _ in found)
            cards = statistics.median(hidden for _, hidden in found)
            print(f"| {name} | {count} | {len(found)} | {logs:.1f} | {cards:g} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="3,4")
    parser.add_argument("--deals", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rules", default=",".join(RULESETS))
    parser.add_argument("--out", type=Path, default=Path("pimc-measures.json"))
    parser.add_argument("--depths", type=int, default=0, metavar="D",
                        help="instead: how often decisions 0..D from the end are indifferent")
    parser.add_argument("--hidden", action="store_true",
                        help="instead: what is still hidden at the last decision")
    args = parser.parse_args()
    if args.hidden:
        hidden_rows([int(p) for p in args.players.split(",")], args.rules.split(","),
                    args.deals, args.seed)
        return
    if args.depths:
        rows = depth_rows([int(p) for p in args.players.split(",")], args.rules.split(","),
                          args.deals, args.seed, args.depths)
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
        return
    results = []
    print("| ruleset | players | deals | leaf correlation (95%) | bias (going-out rate by seat) "
          "| disambiguation factor (pairs) | log10 first information set | s |")
    print("|---|---|---|---|---|---|---|---|")
    for players in (int(p) for p in args.players.split(",")):
        for name in args.rules.split(","):
            started = time.perf_counter()
            found = measure(RULESETS[name], players, args.deals, args.seed)
            seconds = time.perf_counter() - started
            print(_row(found, seconds), flush=True)
            results.append(found.to_json() | {"seconds": seconds, "seed": args.seed})
            args.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
