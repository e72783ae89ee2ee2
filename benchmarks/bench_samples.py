"""Per-sample cost of advice: the deals ``popejoan advise`` draws at the first lead of one
standard deal, each valued by ``advice.values.evaluate`` (the search and everything around it:
the game, the engine and its tables, the run trees), on one or two threads.

Prints, for each repeat, the wall seconds and the process's CPU seconds for all the samples,
and the nodes searched (the same every repeat: a change that keeps them changes no search).
With ``--workers 2`` the samples are shared between two threads as advice shares them; CPU
seconds beyond one worker's are what two threads lose to each other (the GIL, the caches).

    python benchmarks/bench_samples.py --rules spinado --players 4
    python benchmarks/bench_samples.py --rules britannica --players 4 --workers 2 --repeat 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from popejoan_solver.advice.values import SampleEval, evaluate
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge, sample_deals


def value_all(samples: list[Deal], workers: int) -> list[SampleEval | None]:
    """Every sample valued, on ``workers`` threads (never the main one, as in advice)."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(evaluate, samples))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="spinado")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--deal", type=int, default=0)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    deal = deal_random(args.players, args.seed, get_ruleset(args.rules), args.deal)
    samples = sample_deals(knowledge(deal, deal.leader, ()), args.samples, args.deal)
    walls, cpus = [], []
    for _ in range(args.repeat):
        started, cpu_started = time.perf_counter(), time.process_time()
        found = value_all(samples, args.workers)
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu_started)
        nodes = sum(e.nodes for e in found if e is not None)
        print(f"wall {walls[-1]:.3f} s  CPU {cpus[-1]:.3f} s  nodes {nodes:,}", flush=True)
    print(f"{args.rules}, {args.players} players, deal {args.deal}, {args.samples} samples, "
          f"{args.workers} worker(s): median wall {statistics.median(walls):.3f} s, "
          f"median CPU {statistics.median(cpus):.3f} s "
          f"({1000 * statistics.median(cpus) / args.samples:.2f} ms a sample)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
