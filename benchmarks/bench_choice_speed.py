"""Choices inside a run against their base ruleset: full tables on the same seeded deals.

Each pair is a choice variant (the Pope in lieu of a stop, Spin) and the ruleset it is built
on, solved in one run on the same deals: ``deal_random(players, seed=SEED, index=i)`` dealt by
the base ruleset and played under each (``Deal.with_rules``; a variant with a pack of its own,
Spinado's, is dealt by its own rules). Full tables as ``popejoan solve`` computes them, one
thread by default. Prints per variant the median and worst seconds and nodes of both, and the
ratios of the medians (seconds and nodes); node counts are exact, so they judge a change while
the machine is loaded. The two rulesets of a pair are solved deal by deal, alternately, so
that a slow spell of the machine falls on both; with ``--repeats N`` each deal is solved N
times under each and its time is the least of the N (as ``timeit`` does: the least is the run
the machine disturbed least), which steadies the medians of deals that take ten milliseconds.

    python benchmarks/bench_choice_speed.py --deals 200 --repeats 3
    python benchmarks/bench_choice_speed.py --deals 20 \
        --pairs "hoyle-modernized+pope_in_lieu=pope-leads@hoyle-modernized"
    python benchmarks/bench_choice_speed.py --deals 200 --repeats 3 --wider
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.search import solve

LIEU = "hoyle-modernized+pope_in_lieu="
DEFAULT_PAIRS = [(LIEU + reading, "hoyle-modernized")
                 for reading in ("pope-leads", "run-continues", "pope-leads-after-king")] + [
    ("spinado", "parlett"), ("spinado+lead=any", "parlett+lead=any")]
"""(choice variant, base ruleset). Spinado's pack is its own, so its deals are its own."""

WIDER_PAIRS = [(f"{base}+pope_in_lieu={reading}", base)
               for base in ("peel", "britannica", "parlett", "early-hoyle", "cassell",
                            "britannica-1911")
               for reading in ("pope-leads", "run-continues", "pope-leads-after-king")] + [
    (LIEU + f"{reading},ace=high", "hoyle-modernized+ace=high")
    for reading in ("pope-leads", "run-continues", "pope-leads-after-king")] + [
    (LIEU + "pope-leads,lead=lowest-in-hand", "hoyle-modernized+lead=lowest-in-hand"),
    ("spinado+ace=high", "parlett+ace=high"),
    ("spinado+ace=high,lead=any", "parlett+ace=high,lead=any"),
    ("spinado+pairs=divided,lead=any", "parlett+pairs=divided,lead=any"),
    ("spinado+lead=lowest-in-hand", "parlett+lead=lowest-in-hand")]
"""``--wider``: the choice variants over the other named rulesets and with the other options
(the ace high, the lowest-card lead rules, divided pairs)."""


def deal_for(players: int, seed: int, index: int, rules: Ruleset, base: Ruleset) -> Deal:
    """Deal ``index`` of the pair: the base's deal played under ``rules`` where the packs are
    the same, else the ruleset's own deal."""
    if rules.table.pack == base.table.pack:
        return deal_random(players, seed, base, index).with_rules(rules)
    return deal_random(players, seed, rules, index)


def timed_solve(deal: Deal, threads: int) -> tuple[float, int]:
    """Seconds and nodes of one full table."""
    started = time.perf_counter()
    solution = solve(deal, threads=threads)
    return time.perf_counter() - started, solution.stats.nodes


def solve_pair(rules: Ruleset, base: Ruleset, index: int, seed: int, players: int,
               threads: int, repeats: int) -> tuple[float, int, float, int]:
    """Deal ``index`` under the base and the variant, alternately ``repeats`` times: the least
    seconds and the nodes of each (the nodes of a full table are the same at every repeat)."""
    base_deal = deal_for(players, seed, index, base, base)
    deal = deal_for(players, seed, index, rules, base)
    base_runs = []
    runs = []
    for _ in range(repeats):
        base_runs.append(timed_solve(base_deal, threads))
        runs.append(timed_solve(deal, threads))
    for timings in (base_runs, runs):
        if len({nodes for _, nodes in timings}) != 1:
            raise SystemExit(f"deal {index}: node counts differ between repeats: {timings}")
    return (min(t for t, _ in base_runs), base_runs[0][1], min(t for t, _ in runs), runs[0][1])


def run_pair(variant: str, base_name: str, players: int, deals: int, seed: int,
             threads: int, repeats: int = 1) -> dict[str, Any]:
    """Both rulesets of a pair on the same deals, deal by deal, the base first."""
    base = get_ruleset(base_name)
    rules = get_ruleset(variant)
    base_seconds, base_nodes, seconds, nodes = [], [], [], []
    for index in range(deals):
        base_s, base_n, var_s, var_n = solve_pair(rules, base, index, seed, players, threads,
                                                  repeats)
        base_seconds.append(base_s)
        base_nodes.append(base_n)
        seconds.append(var_s)
        nodes.append(var_n)
    worst = max(range(deals), key=seconds.__getitem__)
    return {"variant": variant, "base": base_name, "players": players, "deals": deals,
            "repeats": repeats,
            "median": statistics.median(seconds), "worst": max(seconds), "worst_deal": worst,
            "median_nodes": statistics.median(nodes), "worst_nodes": max(nodes),
            "total_nodes": sum(nodes), "base_median": statistics.median(base_seconds),
            "base_worst": max(base_seconds), "base_median_nodes": statistics.median(base_nodes),
            "base_total_nodes": sum(base_nodes),
            "ratio": statistics.median(seconds) / statistics.median(base_seconds),
            "node_ratio": statistics.median(nodes) / statistics.median(base_nodes),
            "seconds": seconds, "nodes": nodes, "base_seconds": base_seconds,
            "base_nodes": base_nodes}


def print_row(row: dict[str, Any]) -> None:
    print(f"| {row['variant']} | {row['base']} | {row['median']:.4f} / {row['base_median']:.4f}"
          f" | {row['worst']:.3f} (deal {row['worst_deal']}) / {row['base_worst']:.3f} | "
          f"{row['median_nodes']:,.0f} / {row['base_median_nodes']:,.0f} | "
          f"{row['worst_nodes']:,} | {row['total_nodes']:,} / {row['base_total_nodes']:,} | "
          f"{row['ratio']:.2f}x; nodes {row['node_ratio']:.2f}x |", flush=True)


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """``VARIANT@BASE`` pairs separated by semicolons or commas; a comma inside a ruleset's
    options belongs to it (each pair has one ``@``, so a piece without one continues the pair
    before it)."""
    pieces: list[str] = []
    for piece in (p.strip() for p in text.replace(";", ",").split(",")):
        if piece and pieces and ("@" not in piece or "@" not in pieces[-1]):
            pieces[-1] += "," + piece
        elif piece:
            pieces.append(piece)
    if not pieces or any(p.count("@") != 1 for p in pieces):
        raise SystemExit(f"error: --pairs is VARIANT@BASE,... (one @ a pair): {text!r}")
    return [(p.split("@")[0], p.split("@")[1]) for p in pieces]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=1,
                        help="solve each deal N times under each ruleset and keep the least time")
    parser.add_argument("--pairs", help="list of VARIANT@BASE, separated by commas or "
                        "semicolons (a ruleset's own options may hold commas: a+x=1,y=2@b)")
    parser.add_argument("--wider", action="store_true",
                        help="the pairs over the other named rulesets and options instead")
    parser.add_argument("--json", help="write every figure to this file")
    args = parser.parse_args(argv)
    if args.deals < 1 or args.repeats < 1:
        parser.error("--deals and --repeats must be at least 1")
    pairs = WIDER_PAIRS if args.wider else DEFAULT_PAIRS
    if args.pairs:
        pairs = parse_pairs(args.pairs)
    print(f"{args.players} players, {args.deals} deals, seed {args.seed}, "
          f"threads {args.threads}, repeats {args.repeats}")
    print("| variant | base | median s (variant / base) | worst s | median nodes | "
          "worst nodes | total nodes | ratio of medians |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for variant, base in pairs:
        row = run_pair(variant, base, args.players, args.deals, args.seed, args.threads,
                       args.repeats)
        rows.append(row)
        print_row(row)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({"seed": args.seed, "threads": args.threads, "repeats": args.repeats,
                       "rows": rows}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
