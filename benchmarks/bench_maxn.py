"""Max^n benchmark: what one sample of ``pimc:model=maxn`` costs at each lead of a deal.

Each deal is ``deal_random(players, seed, rules, i)`` played by every leader leading its
lowest legal card; at each lead the exact max^n value of the position (every hand known, a
fresh memo: one sample of a decision) is searched up to ``--limit`` positions. Prints, by
lead number, the positions expanded and the processor seconds (">" where the limit was
passed: the search is not finished there, and ``pimc`` skips such a sample).

    python benchmarks/bench_maxn.py --players 4 --deals 3 --limit 2000000
"""

from __future__ import annotations

import argparse
import sys
import time

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.play import Game
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search.maxn import MaxnLimitError, MaxnSearch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--limit", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    rules = get_ruleset(args.rules)
    print("| deal | lead | cards left | positions | CPU s | µs a position |")
    print("|---|---|---|---|---|---|")
    for index in range(args.deals):
        deal = deal_random(args.players, args.seed, rules, index)
        game = Game.from_deal(deal)
        played, leader, lead_number = deal.played_mask, deal.leader, 1
        while game.winner(played) is None:
            search = MaxnSearch(deal, leader, node_limit=args.limit)
            started = time.process_time()
            try:
                search.value(played, leader)
                passed = ""
            except MaxnLimitError:
                passed = ">"
            cpu = time.process_time() - started
            left = (game.in_play & ~played).bit_count()
            print(f"| {index} | {lead_number} | {left} | {passed}{search.nodes:,} | "
                  f"{passed}{cpu:.2f} | {1e6 * cpu / max(search.nodes, 1):.1f} |", flush=True)
            run = game.forced_run(played, leader, game.legal_leads(played, leader)[0])
            played |= run.mask
            leader = run.leader_after
            lead_number += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
