"""A seat's knowledge benchmark: building the knowledge, counting the consistent deals exactly
and drawing 200 of them, at the first lead and at later points of seeded random lines.

Each deal is ``deal_random(players, seed, rules, i)``; a line of random legal leads (and random
choices) is played and the knowledge of every seat taken after 0, 3, 8 and 20 runs. Reported
per ruleset and number of players: the median time at the first lead (knowledge, count and 200
samples), and the worst later point (time, and the counting programme's steps, bounded by
``seat.counting.MAX_STEPS``).

    python benchmarks/bench_seat.py --deals 5 --players 3,8
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge, sample_deals
from popejoan_solver.seat.sampling import placements

RULESETS = ("hoyle-modernized", "britannica", "parlett", "cassell", "spinado",
            "hoyle-modernized+pope_in_lieu=run-continues",
            "hoyle-modernized+lead=lowest-in-hand")


def line_of(position: Position, seed: int, runs: int) -> list[Run]:
    rng = random.Random(seed)
    line: list[Run] = []
    while len(line) < runs and not position.is_over:
        run = rng.choice(position.outcomes(rng.choice(position.legal_leads())))
        line.append(run)
        position = position.after(run)
    return line


def timed(deal_seat_line: tuple[object, int, list[Run]]) -> tuple[float, int]:
    """Seconds to know, count and draw 200; the counting steps."""
    deal, seat, line = deal_seat_line
    start = time.perf_counter()
    k = knowledge(deal, seat, line)  # type: ignore[arg-type]
    found = placements(k)
    found.total()
    sample_deals(k, 200, seed=1)
    return time.perf_counter() - start, found.steps


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--players", default="3,5,8")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    print("rules | players | first lead, median s | later, worst s | later, worst steps")
    for name in RULESETS:
        rules = get_ruleset(name)
        for players in (int(p) for p in args.players.split(",")):
            first: list[float] = []
            worst = (0.0, 0)
            for index in range(args.deals):
                deal = deal_random(players, args.seed, rules, index)
                first.append(timed((deal, index % players + 1, []))[0])
                for runs in (3, 8, 20):
                    line = line_of(Position.from_deal(deal), index, runs)
                    for seat in range(1, players + 1):
                        seconds, steps = timed((deal, seat, line))
                        worst = (max(worst[0], seconds), max(worst[1], steps))
            print(f"{name} | {players} | {statistics.median(first):.3f} | {worst[0]:.3f} | "
                  f"{worst[1]:,}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
