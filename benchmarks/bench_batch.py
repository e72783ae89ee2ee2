"""Batch throughput: one worker against two, and the Dask path against the local one.

    python benchmarks/bench_batch.py --rules hoyle-modernized --players 4 --deals 24 --repeat 3

Each configuration solves the same seeded deals into a fresh file; the figure is the median
throughput (deals per second) over the repeats. Targets (issue "Studies over many deals"):
two workers >= 1.8x one; Dask on one machine within 20% of the local pool.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from local_dask import local_cluster

from popejoan_solver.jobs.batch import parse_players, run_batch


def _throughput(kind: str, rules: list[str], players: list[int], deals: int, seed: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.db"
        if kind == "dask-2":
            with local_cluster() as address:
                started = time.perf_counter()
                report = run_batch(out, rules, players, deals, seed, cluster=address)
                seconds = time.perf_counter() - started
        else:
            workers = int(kind.split("-")[1])
            started = time.perf_counter()
            report = run_batch(out, rules, players, deals, seed, workers=workers)
            seconds = time.perf_counter() - started
        return report.solved / seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--players", default="4")
    parser.add_argument("--deals", type=int, default=24)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = args.rules.split(",")
    players = parse_players(args.players)
    figures: dict[str, float] = {}
    for kind in ("local-1", "local-2", "dask-2"):
        runs = [_throughput(kind, rules, players, args.deals, args.seed)
                for _ in range(args.repeat)]
        figures[kind] = statistics.median(runs)
        print(f"{kind:8} {figures[kind]:.2f} deals/s  (runs: "
              + ", ".join(f"{r:.2f}" for r in runs) + ")")
    two = figures["local-2"] / figures["local-1"]
    dask = figures["dask-2"] / figures["local-2"]
    print(f"two workers / one: {two:.2f}x (target >= 1.8x)")
    print(f"dask / local, two workers each: {dask:.2f} (target >= 0.8)")
    results = Path(__file__).parent / "results"
    results.mkdir(exist_ok=True)
    (results / "batch.json").write_text(json.dumps(
        {"args": vars(args), "deals_per_second": figures, "two_over_one": two,
         "dask_over_local": dask}, indent=2))


if __name__ == "__main__":
    main()
