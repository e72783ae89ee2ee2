"""Match throughput: pimc in every seat, one worker against two, Dask against local.

    python benchmarks/bench_match.py --players 4 --deals 8 --repeat 1

The bots play the same seeded deals into a fresh match file for each configuration (one bot,
``pimc:samples=32`` by default, so a deal is one duplicate deal-play with pimc in every seat).
Reported: deal-plays per second (median over the repeats) for one and two local workers and
for a two-worker Dask LocalCluster, their ratios, and the median and 90th percentile of the
seconds one pimc decision took, wall-clock and CPU (a decision with one legal lead is not
searched and not counted; CPU time is what a loaded machine inflates least). Targets (issue
15): >= 2 deal-plays/s with two workers at 4 players; decision median <= 0.1 s; two workers
>= 1.8x one; Dask within 20% of local. The load average is printed: wall-clock figures
inflate under load.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from local_dask import local_cluster

from popejoan_solver.analysis.match import read_match, run_match


def _run(kind: str, bots: list[str], players: int, deals: int, seed: int,
         rules: str) -> tuple[float, list[tuple[float, float]]]:
    """Deal-plays per second, and every decision's wall-clock and CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.db"
        started = time.perf_counter()
        if kind == "dask-2":
            with local_cluster() as address:
                started = time.perf_counter()
                report = run_match(out, bots, players, deals, seed, rules=rules,
                                   cluster=address)
                seconds = time.perf_counter() - started
        else:
            report = run_match(out, bots, players, deals, seed, rules=rules,
                               workers=int(kind.split("-")[1]))
            seconds = time.perf_counter() - started
        _, rows = read_match(out)
        decisions = [(wall, cpu) for row in rows for _, wall, cpu in row.decisions]
        return report.played / seconds, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", default="pimc:samples=32")
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--kinds", default="local-1,local-2,dask-2")
    args = parser.parse_args()
    bots = args.bots.split(";")
    rates: dict[str, float] = {}
    decisions: list[tuple[float, float]] = []
    load = os.getloadavg()[0]
    for kind in args.kinds.split(","):
        runs = []
        for _ in range(args.repeat):
            rate, times = _run(kind, bots, args.players, args.deals, args.seed, args.rules)
            runs.append(rate)
            decisions += times
        rates[kind] = statistics.median(runs)
    searched = sorted(wall for wall, _ in decisions if wall > 1e-3)
    cpu = sorted(c for wall, c in decisions if wall > 1e-3)
    figures: dict[str, object] = {
        "bots": bots, "rules": args.rules, "players": args.players, "deals": args.deals,
        "deal_plays_per_second": {k: round(v, 3) for k, v in rates.items()},
        "decisions": len(decisions), "searched_decisions": len(searched),
        "decision_median_s": round(statistics.median(searched), 4) if searched else None,
        "decision_p90_s": round(searched[int(0.9 * (len(searched) - 1))], 4)
        if searched else None,
        "decision_cpu_median_s": round(statistics.median(cpu), 4) if cpu else None,
        "decision_cpu_p90_s": round(cpu[int(0.9 * (len(cpu) - 1))], 4) if cpu else None,
        "decision_cpu_mean_s": round(statistics.fmean(cpu), 4) if cpu else None,
        "cpu_seconds_per_deal_play": round(sum(c for _, c in decisions)
                                           / (args.deals * args.repeat * len(rates)), 3),
        "load_average_before": round(load, 1), "load_average_after": round(os.getloadavg()[0], 1)}
    if "local-1" in rates and "local-2" in rates:
        figures["two_workers_vs_one"] = round(rates["local-2"] / rates["local-1"], 3)
    if "dask-2" in rates and "local-2" in rates:
        figures["dask_vs_local"] = round(rates["dask-2"] / rates["local-2"], 3)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
