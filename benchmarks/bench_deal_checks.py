"""What a deal's checks cost where deals are built in bulk: a seat's sampled deals at the first
lead and three runs in (``seat.sample_deals``, built by ``Deal.reached``: the structural checks
without the reachability search), a position reached by play (``model.deal.position_deal``, a
bot's or advice's), and a fresh ``Deal(...)`` (every check; the search is trivial there).

Prints microseconds per deal, the least of nine repeats of CPU time (what a loaded machine
inflates least). Compare against a build without the checks by running it with that build on
``PYTHONPATH``.

    python benchmarks/bench_deal_checks.py
    python benchmarks/bench_deal_checks.py --rules spinado,britannica --players 6
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import timeit
from collections.abc import Callable

from popejoan_solver.model.deal import Deal, deal_random, position_deal
from popejoan_solver.model.play import Position
from popejoan_solver.seat import knowledge, sample_deals


def per_call(work: Callable[[], object], number: int) -> float:
    """Microseconds of CPU a call: the least of nine repeats of ``number`` calls."""
    best = min(timeit.repeat(work, number=number, repeat=9, timer=time.process_time))
    return best / number * 1e6


def row(rules: str, players: int, seed: int, samples: int) -> tuple[float, ...]:
    """The four costs, in microseconds a deal, for deal 0 of ``seed``."""
    deal = deal_random(players, seed, rules, 0)
    rng = random.Random(3)
    position = Position.from_deal(deal)
    line = []
    for _ in range(3):
        run, position = position.play(rng.choice(position.legal_leads()))
        line.append(run)
    first = knowledge(deal, 1, ())
    later = knowledge(deal, position.leader, line)
    board = deal.board_or_dressed
    return (per_call(lambda: sample_deals(first, samples, 1), 1) / samples,
            per_call(lambda: sample_deals(later, samples, 1), 1) / samples,
            per_call(lambda: position_deal(deal, position, board), 2000),
            per_call(lambda: Deal(deal.hands, deal.dead, deal.turnup, deal.rules), 2000))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="hoyle-modernized,spinado,britannica")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--samples", type=int, default=500)
    args = parser.parse_args(argv)
    print("| ruleset | sample at the first lead | sample three runs in | position_deal | "
          "Deal(...) |")
    print("|---|---|---|---|---|")
    for rules in args.rules.split(","):
        costs = row(rules, args.players, args.seed, args.samples)
        print(f"| {rules} | " + " | ".join(f"{c:.1f}" for c in costs) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
