"""Solver benchmark: full tables on seeded standard deals, fast engine against the reference.

A full table is what ``popejoan solve`` computes: every seat's guaranteed, forced-win and
best-case values, the leads of seat 1 and an optimal line. Deals are ``deal_random(players,
seed=SEED, index=i)`` under each ruleset's own dealing rule, so every figure can be reproduced.

    python benchmarks/bench_solver.py --deals 20 --reference-deals 3 --json out.json

Prints one row per (ruleset, players): median, p95 and worst seconds, median nodes, and for
the sets named by --reference-sets the reference engine's median on the first deals and the
ratio to a full table of the fast engine on ONE thread, in the same run, by processor time
(the reference is stopped at --reference-limit seconds of the clock; a stopped run gives a
ratio that is a lower bound, marked ">="). The reference is a plain alpha-beta with a
competent lead order (the leads that end the deal first, then the longest runs:
search/reference.py).

    python benchmarks/bench_solver.py --lead-values --deals 50 --sets hoyle-modernized:3

times ``lead_values`` at the first lead (what single-dummy advice solves per sample) instead:
median, p95 and worst milliseconds per deal, median nodes and the processor time of the set.

    python benchmarks/bench_solver.py --sampled 20 --deals 5 --sets hoyle-modernized:3

values ``--sampled K`` deals drawn from seat 1's view at the first lead of each deal, as advice
does, in the same run with each start of MTD(f) in ``GUESS_MODES`` (``guesses``).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import statistics
import sys
import time
from typing import Any

from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search import Solution, solve
from popejoan_solver.search.fast import COMPILED
from popejoan_solver.search.leads import evaluate_leads

DEFAULT_SETS = [("hoyle-modernized", p) for p in range(3, 9)] + [
    ("britannica", 3), ("britannica", 5), ("parlett", 3), ("parlett", 5),
    ("early-hoyle", 3), ("early-hoyle", 4),
    ("peel", 3), ("cassell", 3), ("britannica-1911", 3), ("hoyle-modernized+pools=five", 3),
    ("spinado", 3), ("spinado", 5), ("hoyle-modernized+pope_in_lieu=pope-leads", 3),
    ("hoyle-modernized+pope_in_lieu=run-continues", 3)]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def timed_solve(deal: Deal, **options: Any) -> tuple[Solution, float]:
    started = time.perf_counter()
    solution = solve(deal, **options)
    return solution, time.perf_counter() - started


def run_set(rules_name: str, players: int, deals: int, seed: int,
            threads: int | None) -> dict[str, Any]:
    rules = get_ruleset(rules_name)
    seconds, nodes, exact = [], [], True
    for index in range(deals):
        solution, elapsed = timed_solve(deal_random(players, seed, rules, index),
                                        threads=threads)
        seconds.append(elapsed)
        nodes.append(solution.stats.nodes)
        exact = exact and solution.exact
    return {"rules": rules_name, "players": players, "deals": deals,
            "median": statistics.median(seconds), "p95": percentile(seconds, 0.95),
            "worst": max(seconds), "median_nodes": statistics.median(nodes),
            "total_nodes": sum(nodes), "seconds": seconds, "exact": exact}


def cpu_solve(deal: Deal, **options: Any) -> tuple[Solution, float]:
    """A solve and the processor time it took (the process's, all threads): on a machine
    shared with other work, a fairer measure than the clock when both run on one thread."""
    started = time.process_time()
    solution = solve(deal, **options)
    return solution, time.process_time() - started


def after_leads(deal: Deal, leads: int) -> Deal:
    """The position after ``leads`` leads of ``deal``, each the middle legal lead (positions
    small enough for the reference engine to finish)."""
    position = Position.from_deal(deal)
    for _ in range(leads):
        if position.is_over:
            break
        choices = position.legal_leads()
        _, position = position.play(choices[len(choices) // 2])
    if not leads:
        return deal
    return Deal.create([h & ~position.played for h in deal.hands], deal.dead, deal.turnup,
                       deal.rules, played=[h & position.played for h in deal.hands],
                       leader=position.leader)


def run_reference(rules_name: str, players: int, deals: int, seed: int,
                  limit: float, threads: int | None, leads: int = 0) -> dict[str, Any]:
    """The reference engine against the fast one on ONE thread, by processor time (the
    reference is stopped after ``limit`` seconds of the clock)."""
    rules = get_ruleset(rules_name)
    ratios, reference_seconds, complete = [], [], True
    fast_cpu, reference_nodes = [], []
    for index in range(deals):
        deal = after_leads(deal_random(players, seed, rules, index), leads)
        fast, fast_seconds = cpu_solve(deal, threads=1)
        slow, slow_seconds = cpu_solve(deal, engine="reference", time_limit=limit, threads=1)
        if slow.exact:
            assert slow.seats == fast.seats, (rules_name, players, index)
        complete = complete and slow.exact
        reference_seconds.append(slow_seconds)
        fast_cpu.append(fast_seconds)
        reference_nodes.append(slow.stats.nodes)
        ratios.append(slow_seconds / fast_seconds)
        print(f"  reference, deal {index}: {slow_seconds:.1f} s CPU, {slow.stats.nodes:,} "
              f"nodes, exact {slow.exact}; fast one thread {fast_seconds:.3f} s CPU, "
              f"{fast.stats.nodes:,} nodes; ratio {slow_seconds / fast_seconds:.0f}",
              flush=True)
    return {"reference_median": statistics.median(reference_seconds),
            "ratio_median": statistics.median(ratios), "ratio_min": min(ratios),
            "reference_complete": complete, "reference_deals": deals,
            "fast_cpu": fast_cpu, "reference_cpu": reference_seconds,
            "reference_nodes": reference_nodes}


def run_lead_values(rules_name: str, players: int, deals: int, seed: int) -> dict[str, Any]:
    """lead_values at the first lead of each deal: seconds and the nodes of its engine."""
    rules = get_ruleset(rules_name)
    seconds, nodes = [], []
    cpu_started = time.process_time()
    for index in range(deals):
        deal = deal_random(players, seed, rules, index)
        started = time.perf_counter()
        found = evaluate_leads(deal)
        seconds.append(time.perf_counter() - started)
        nodes.append(found.nodes)
    return {"rules": rules_name, "players": players, "deals": deals,
            "cpu": time.process_time() - cpu_started,
            "median": statistics.median(seconds), "p95": percentile(seconds, 0.95),
            "worst": max(seconds), "median_nodes": statistics.median(nodes),
            "total_nodes": sum(nodes), "seconds": seconds, "exact": True}


GUESS_MODES = ("none", "previous", "mean", "first")
"""MTD(f)'s start for each lead: the engine's own (the value it found last), the previous
sample's value of the lead, the mean of the samples so far, or the previous sample's value
for the deal's first lead only (the engine's own start after it)."""


def run_sampled(rules_name: str, players: int, deals: int, seed: int,
                samples: int) -> dict[str, Any]:
    """Seat 1's sampled deals at the first lead valued with each way of guessing: node totals
    and processor seconds (the values must agree)."""
    from popejoan_solver.seat import knowledge, sample_deals

    rules = get_ruleset(rules_name)
    nodes = dict.fromkeys(GUESS_MODES, 0)
    cpu = dict.fromkeys(GUESS_MODES, 0.0)
    for index in range(deals):
        drawn = sample_deals(knowledge(deal_random(players, seed, rules, index), 1), samples,
                             index)
        answers = {}
        for mode in GUESS_MODES:
            sums: dict[int, list[int]] = {}
            values = []
            started = time.process_time()
            for deal in drawn:
                guesses = {card: (round(sum(v) / len(v)) if mode == "mean" else v[-1])
                           for card, v in sums.items()} if mode != "none" else None
                if mode == "first" and guesses:
                    guesses = dict([min(guesses.items())])
                found = evaluate_leads(deal, guesses=guesses)
                nodes[mode] += found.nodes
                for lead in found.leads:
                    sums.setdefault(lead.card, []).append(lead.guaranteed.lower)
                values.append(found.leads)
            cpu[mode] += time.process_time() - started
            answers[mode] = values
        assert answers["none"] == answers["previous"] == answers["mean"], (rules_name, index)
    return {"rules": rules_name, "players": players, "deals": deals, "samples": samples,
            "nodes": nodes, "cpu": cpu}


def sampled_main(sets: list[tuple[str, int]], deals: int, seed: int,
                 samples: int) -> list[dict[str, Any]]:
    """The --sampled table."""
    print("| ruleset | players | deals × samples | " + " | ".join(
        f"{m}: nodes, CPU s" for m in GUESS_MODES) + " |")
    print("|---|---|---|" + "---|" * len(GUESS_MODES))
    rows = []
    for rules_name, players in sets:
        row = run_sampled(rules_name, players, deals, seed, samples)
        rows.append(row)
        print(f"| {rules_name} | {players} | {deals} × {samples} | " + " | ".join(
            f"{row['nodes'][m]:,}, {row['cpu'][m]:.2f}" for m in GUESS_MODES) + " |",
              flush=True)
    return rows


def lead_values_main(sets: list[tuple[str, int]], deals: int, seed: int) -> list[dict[str, Any]]:
    """The --lead-values table."""
    print("| ruleset | players | deals | median ms | p95 ms | worst ms | median nodes | "
          "total nodes | CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for rules_name, players in sets:
        row = run_lead_values(rules_name, players, deals, seed)
        rows.append(row)
        print(f"| {rules_name} | {players} | {deals} | {row['median'] * 1000:.1f} | "
              f"{row['p95'] * 1000:.1f} | {row['worst'] * 1000:.1f} | "
              f"{row['median_nodes']:,.0f} | {row['total_nodes']:,} | {row['cpu']:.2f} |",
              flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--sets", help="comma list of RULES:PLAYERS (default: a standard mix)")
    parser.add_argument("--reference-sets", default="hoyle-modernized:3,hoyle-modernized:4")
    parser.add_argument("--reference-deals", type=int, default=3)
    parser.add_argument("--reference-limit", type=float, default=300.0)
    parser.add_argument("--reference-after", type=int, default=0, metavar="LEADS",
                        help="compare with the reference at the position after LEADS leads "
                             "(each the middle legal lead), where it can finish")
    parser.add_argument("--threads", type=int,
                        help="threads of the fast engine (default: one per core)")
    parser.add_argument("--lead-values", action="store_true",
                        help="time lead_values at the first lead instead of full tables")
    parser.add_argument("--sampled", type=int, default=0, metavar="K",
                        help="value K deals sampled from seat 1's view at the first lead, "
                             "without and with guesses of each lead's value")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args(argv)
    sets = DEFAULT_SETS
    if args.sets:
        sets = [(s.split(":")[0], int(s.split(":")[1])) for s in args.sets.split(",")]
    if args.sampled:
        rows = sampled_main(sets, args.deals, args.seed, args.sampled)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump({"compiled": COMPILED, "seed": args.seed, "sampled": args.sampled,
                           "rows": rows}, out, indent=1)
        return 0
    if args.lead_values:
        rows = lead_values_main(sets, args.deals, args.seed)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as out:
                json.dump({"compiled": COMPILED, "seed": args.seed, "lead_values": True,
                           "rows": rows}, out, indent=1)
        return 0
    reference_sets = {(s.split(":")[0], int(s.split(":")[1]))
                      for s in args.reference_sets.split(",") if s}
    rows = []
    threads = args.threads or "one per core"
    print(f"compiled core: {COMPILED}; threads: {threads}; "
          f"{platform.processor() or platform.machine()}; Python {platform.python_version()}",
          flush=True)
    print("| ruleset | players | deals | median s | p95 s | worst s | median nodes | "
          "total nodes | reference median s | ratio (median, min) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for rules_name, players in sets:
        row = run_set(rules_name, players, args.deals, args.seed, args.threads)
        if (rules_name, players) in reference_sets and args.reference_deals:
            row |= run_reference(rules_name, players, args.reference_deals, args.seed,
                                 args.reference_limit, args.threads, args.reference_after)
        rows.append(row)
        ref = ""
        if "reference_median" in row:
            mark = "" if row["reference_complete"] else ">="
            ref = (f"{row['reference_median']:.1f} | {mark}{row['ratio_median']:.0f}x, "
                   f"{mark}{row['ratio_min']:.0f}x")
        else:
            ref = " | "
        print(f"| {rules_name} | {players} | {row['deals']} | {row['median']:.3f} | "
              f"{row['p95']:.3f} | {row['worst']:.3f} | {row['median_nodes']:.0f} | "
              f"{row['total_nodes']:,} | {ref} |",
              flush=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory: {peak_mb:.0f} MB")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"compiled": COMPILED, "seed": args.seed, "peak_mb": peak_mb,
                       "threads": args.threads,
                       "python": platform.python_version(), "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
