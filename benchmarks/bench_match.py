"""Match throughput: pimc in every seat, one worker against two, Dask against local.

    python benchmarks/bench_match.py --players 4 --deals 16 --repeat 1
    python benchmarks/bench_match.py --players 4 --deals 16 --nodes 32

The bots play the same seeded deals into a fresh match file for each configuration (one bot,
``pimc:samples=32`` by default, so a deal is one duplicate deal-play with pimc in every seat).
Reported: deal-plays per second (median over the repeats) for one and two local workers and
for a two-worker Dask LocalCluster, their ratios, and the median and 90th percentile of the
seconds one pimc decision took, wall-clock and CPU (a decision with one legal lead is not
searched and not counted; CPU time is what a loaded machine inflates least). Per
configuration: the CPU seconds of the decisions per deal-play (more with two workers than
with one: the two processes slow each other, say by sharing a cache) and how busy the
workers were deciding (CPU per deal-play x deal-plays per second / workers: below 1, a
worker waited, for the pool, the file or a core the machine's other jobs held). Targets (issue
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

from popejoan_solver.jobs.match import read_match, run_match


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


def _nodes(players: int, deals: int, seed: int, rules: str, samples: int) -> dict[str, object]:
    """The same seeded deals played in this process by pimc with each way of starting its
    searches (``advice.valuer.GUESSES``): node totals and CPU seconds; the records must match."""
    from popejoan_solver.advice.valuer import GUESSES, SampleValuer
    from popejoan_solver.bots.driver import play_deal
    from popejoan_solver.bots.pimc import PimcBot
    from popejoan_solver.model.deal import deal_random

    class Counted(PimcBot):
        made: list[SampleValuer] = []  # noqa: RUF012 - one list per mode, reset below

        def valuer(self) -> SampleValuer:
            made = super().valuer()
            Counted.made.append(made)
            return made

    out: dict[str, object] = {}
    records = {}
    for mode in GUESSES:
        Counted.made = []
        bot = Counted(f"pimc:samples={samples}", samples=samples, guesses=mode)
        cpu = time.process_time()
        played = [play_deal(deal_random(players, seed, rules, i), [bot] * players, seed, str(i))
                  for i in range(deals)]
        records[mode] = [p.recorded() for p in played]
        out[mode] = {"nodes": sum(v.nodes for v in Counted.made),
                     "deals_searched": sum(v.searched for v in Counted.made),
                     "cpu_s": round(time.process_time() - cpu, 2)}
    out["records_identical"] = all(r == records["none"] for r in records.values())
    return out


def _workers(kind: str) -> int:
    """The workers of a configuration (``local-2``, ``dask-2``: two)."""
    return int(kind.split("-")[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", default="pimc:samples=32")
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=16,
                        help="deals (one task each with one bot): with 8 the last task's tail "
                             "alone caps two workers at about 1.9x one")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--kinds", default="local-1,local-2,dask-2")
    parser.add_argument("--nodes", type=int, default=0, metavar="SAMPLES",
                        help="instead: node totals of pimc:samples=SAMPLES in every seat with "
                             "each way of starting its searches, in this process")
    args = parser.parse_args()
    if args.nodes:
        print(json.dumps(_nodes(args.players, args.deals, args.seed, args.rules, args.nodes),
                         indent=2))
        return
    bots = args.bots.split(";")
    rates: dict[str, float] = {}
    per_kind: dict[str, dict[str, float]] = {}
    decisions: list[tuple[float, float]] = []
    load = os.getloadavg()[0]
    for kind in args.kinds.split(","):
        runs, cpu_runs, busy_runs = [], [], []
        for _ in range(args.repeat):
            rate, times = _run(kind, bots, args.players, args.deals, args.seed, args.rules)
            runs.append(rate)
            decisions += times
            cpu_play = sum(c for _, c in times) / args.deals
            cpu_runs.append(cpu_play)
            busy_runs.append(cpu_play * rate / _workers(kind))
        rates[kind] = statistics.median(runs)
        per_kind[kind] = {"cpu_seconds_per_deal_play": round(statistics.median(cpu_runs), 3),
                          "worker_busy": round(statistics.median(busy_runs), 3)}
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
        "per_kind": per_kind,
        "load_average_before": round(load, 1), "load_average_after": round(os.getloadavg()[0], 1)}
    if "local-1" in rates and "local-2" in rates:
        figures["two_workers_vs_one"] = round(rates["local-2"] / rates["local-1"], 3)
    if "dask-2" in rates and "local-2" in rates:
        figures["dask_vs_local"] = round(rates["dask-2"] / rates["local-2"], 3)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
