"""Sampled deals valued as advice values them: the search's nodes and processor time.

For each (ruleset, players), seat 1's view at the first lead of ``--deals`` seeded deals is
sampled ``--samples`` times (``seat.sample_deals``, as ``popejoan advise`` draws them), and each
sample is valued by ``search.leads.evaluate_leads`` with the forced win and advice's table size
(``advice.values``). Prints the total nodes (deterministic), the processor seconds of the whole
set (least and all of ``--repeat`` runs: the machine is shared), the median sample, and a digest
of every lead's values, so that two builds can be checked to give the same values.

    python benchmarks/bench_sampled_leads.py --deals 5 --samples 20 \
        --sets hoyle-modernized:3,hoyle-modernized:4 --repeat 3
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import time

from popejoan_solver.advice.values import TT_ENTRIES
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search.leads import evaluate_leads
from popejoan_solver.seat import knowledge, sample_deals


def drawn(rules_name: str, players: int, deals: int, seed: int, samples: int) -> list[Deal]:
    """The sampled deals: ``samples`` from seat 1's view of each of ``deals`` seeded deals."""
    rules = get_ruleset(rules_name)
    out: list[Deal] = []
    for index in range(deals):
        out += sample_deals(knowledge(deal_random(players, seed, rules, index), 1, ()),
                            samples, index)
    return out


def run(rules_name: str, players: int, deals: int, seed: int, samples: int,
        repeat: int) -> str:
    """One row: nodes, processor seconds (least, all runs), median sample, values digest."""
    sampled = drawn(rules_name, players, deals, seed, samples)
    cpu: list[float] = []
    per: list[float] = []
    nodes = 0
    values: list[object] = []
    for _ in range(repeat):
        nodes, values, per = 0, [], []
        started = time.process_time()
        for deal in sampled:
            begun = time.process_time()
            found = evaluate_leads(deal, forced_win=True, tt_entries=TT_ENTRIES)
            per.append(time.process_time() - begun)
            nodes += found.nodes
            values.append(tuple((e.card, e.guaranteed, e.forced_win) for e in found.leads))
        cpu.append(time.process_time() - started)
    digest = hashlib.sha1(repr(values).encode()).hexdigest()[:10]
    runs = " ".join(f"{c:.2f}" for c in cpu)
    return (f"| {rules_name} | {players} | {len(sampled)} | {nodes:,} | {min(cpu):.2f} ({runs}) | "
            f"{1000 * statistics.median(per):.1f} | {digest} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="hoyle-modernized:3,hoyle-modernized:4",
                        help="comma-separated ruleset:players")
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print("| ruleset | players | samples | nodes | CPU s: least (all runs) | median ms | values |")
    print("|---|---|---|---|---|---|---|")
    for item in args.sets.split(","):
        name, players = item.rsplit(":", 1)
        print(run(name, int(players), args.deals, args.seed, args.samples, args.repeat),
              flush=True)


if __name__ == "__main__":
    main()
