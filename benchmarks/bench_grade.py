"""Grading benchmark: every lead of a played deal marked against the best lead (issue 13's
target: one deal in well under a second for 4 to 8 players, under 5 s for 3).

Each deal is ``deal_random(players, seed, rules, i)`` played to its end by random legal leads
(and random choices inside a run, where the rules give one), then graded by
``search.grade.grade_line``: two searches a lead on one engine for the whole line.

    python benchmarks/bench_grade.py --deals 10
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search.grade import grade_line


def random_line(deal: Deal, seed: int) -> list[Run]:
    """A legal line from the outset: random leads, random choices."""
    rng = random.Random(seed)
    position, runs = Position.from_deal(deal), []
    while not position.is_over:
        run = rng.choice(position.outcomes(rng.choice(position.legal_leads())))
        runs.append(run)
        position = position.after(run)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--players", default="3,4,5,6,7,8")
    args = parser.parse_args(argv)
    rules = get_ruleset(args.rules)
    print("| ruleset | players | deals | leads (median) | median s | worst s |")
    print("|---|---|---|---|---|---|")
    for players in map(int, args.players.split(",")):
        seconds, leads = [], []
        for index in range(args.deals):
            deal = deal_random(players, args.seed, rules, index)
            runs = random_line(deal, index)
            started = time.perf_counter()
            grade_line(deal, runs)
            seconds.append(time.perf_counter() - started)
            leads.append(len(runs))
        print(f"| {args.rules} | {players} | {args.deals} | {statistics.median(leads):.0f} | "
              f"{statistics.median(seconds):.3f} | {max(seconds):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
