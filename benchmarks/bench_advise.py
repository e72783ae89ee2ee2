"""Advice benchmark: ``popejoan advise`` at the first lead of standard deals, 200 samples
(issue 14's targets: median <= 0.5 s for 4 to 8 players, <= 2 s for 3; other rulesets
<= 0.2 s).

Each deal is ``deal_random(players, seed, rules, i)``; seat 1 (eldest, on lead) is advised
over ``--samples`` deals drawn from its view, each valued by ``search.lead_values`` (the
paranoid model), on the default threads. Besides the wall-clock seconds it prints the CPU
seconds of the process (all threads: on a loaded machine the less inflated figure; on an idle
one the wall time with two threads is about half of it), the mean number of
legal leads and the price of information at that lead (the mean over the deals of the best
lead on each sampled deal less the best mean of one lead).

    python benchmarks/bench_advise.py --deals 10
    python benchmarks/bench_advise.py --rules parlett,britannica --players 4
    python benchmarks/bench_advise.py --model maxn --players 8 --samples 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from popejoan_solver.advice.leads import advise, no_lead_left
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--players", default="3,4,5,6,7,8")
    parser.add_argument("--model", default="paranoid")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    print("| ruleset | players | deals | samples | leads (mean) | median s | worst s | "
          "median CPU s | price (mean) | advised = Hoyle |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in args.rules.split(","):
        rules = get_ruleset(name)
        for players in map(int, args.players.split(",")):
            seconds, cpu, leads, prices, hoyle = [], [], [], [], 0
            for index in range(args.deals):
                deal = deal_random(players, args.seed, rules, index)
                if no_lead_left(deal):  # the turned-up Pope ended it
                    continue
                started, cpu_started = time.perf_counter(), time.process_time()
                advice = advise(deal, 1, samples=args.samples, seed=index, model=args.model,
                                workers=args.workers)
                seconds.append(time.perf_counter() - started)
                cpu.append(time.process_time() - cpu_started)
                leads.append(len(advice.leads))
                prices.append(advice.price)
                hoyle += advice.advised == advice.hoyle
            print(f"| {name} | {players} | {len(seconds)} | {args.samples} | "
                  f"{statistics.mean(leads):.1f} | {statistics.median(seconds):.3f} | "
                  f"{max(seconds):.3f} | {statistics.median(cpu):.3f} | "
                  f"{statistics.mean(prices):.2f} | "
                  f"{hoyle}/{len(seconds)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
