"""Decision times of bots: each spec plays seeded deals in every seat, every decision timed.

    python benchmarks/bench_bot_decisions.py --players 4 --deals 20 --rules hoyle-modernized \\
        --bots pimc,strong

For each bot: decisions, the median and mean processor seconds a decision (what a loaded
machine does not inflate) and the median wall-clock seconds, over the same deals (seed 29,
indices from 0), each bot in all seats of its own games (docs/performance.md, "Bot decision
times"). Also reads the decisions stored in match files: ``--match FILE ...``.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections import defaultdict
from pathlib import Path

from popejoan_solver.bots.driver import play_deal
from popejoan_solver.bots.registry import make_bot, split_bots
from popejoan_solver.jobs.match import read_match
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset


def _report(times: dict[str, list[tuple[float, float]]]) -> None:
    print(f"{'bot':44} {'decisions':>9} {'cpu median':>11} {'cpu mean':>9} {'wall median':>12}")
    for bot, found in times.items():
        wall = [w for w, _ in found]
        cpu = [c for _, c in found]
        print(f"{bot:44} {len(found):9} {statistics.median(cpu):11.4f} "
              f"{statistics.mean(cpu):9.4f} {statistics.median(wall):12.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", default="pimc,strong")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--match", nargs="*", default=None,
                        help="report the decisions stored in these match files instead")
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = defaultdict(list)
    if args.match:
        for name in args.match:
            _, rows = read_match(Path(name))
            for row in rows:
                for seat, wall, cpu in row.decisions:
                    times[f"{Path(name).stem}: {row.seats[seat - 1]}"].append((wall, cpu))
        _report(times)
        return
    print(f"{args.rules}, {args.players} players, {args.deals} deals (seed {args.seed}), "
          f"load average {os.getloadavg()[0]:.1f}")
    rules = get_ruleset(args.rules)
    for spec in split_bots(args.bots):
        bot = make_bot(spec, args.seed)
        for index in range(args.deals):
            deal = deal_random(args.players, args.seed, rules, index)
            played = play_deal(deal, [bot] * args.players, args.seed, str(index))
            times[spec].extend((wall, cpu) for _, wall, cpu in played.decisions)
    _report(times)


if __name__ == "__main__":
    main()
