"""The ismcts bot's cost: a decision's median time at a number of simulations, and the game's
basic operations in OpenSpiel (a clone, a random playout from the first lead).

    python benchmarks/bench_ismcts.py --players 4 --deals 5 --simulations 50,100,200

Each decision is the first lead of a seeded deal (deal ``i`` is ``popejoan deal --players P
--seed 11 --index i``), from eldest's knowledge. Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from popejoan_solver.bots.base import LeadRequest
from popejoan_solver.bots.registry import make_bot
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge
from popejoan_solver.spiel import load
from popejoan_solver.spiel.worlds import state_from


def decision_seconds(spec: str, players: int, rules: str, deals: int) -> list[float]:
    """The time of each first-lead decision of ``spec`` over ``deals`` seeded deals."""
    times = []
    for index in range(deals):
        deal = deal_random(players, 11, get_ruleset(rules), index)
        legal = tuple(Position.from_deal(deal).legal_leads())
        bot = make_bot(spec, 1)
        request = LeadRequest(knowledge(deal, 1), legal, random.Random(index))
        started = time.perf_counter()
        bot.lead(request)
        times.append(time.perf_counter() - started)
    return times


def operations(players: int, rules: str, repeat: int) -> dict[str, float]:
    """Median milliseconds of a clone, a world built (dealt and replayed: no line here) and a
    random playout from the first lead."""
    game = load(players, rules)
    deal = deal_random(players, 11, get_ruleset(rules), 0)
    clone, build, playout = [], [], []
    rng = random.Random(0)
    for _ in range(repeat):
        started = time.perf_counter()
        state = state_from(game, deal, ())
        build.append(time.perf_counter() - started)
        started = time.perf_counter()
        copy = state.clone()
        clone.append(time.perf_counter() - started)
        started = time.perf_counter()
        while not copy.is_terminal():
            copy.apply_action(rng.choice(copy.legal_actions()))
        playout.append(time.perf_counter() - started)
    return {name: 1000 * statistics.median(values)
            for name, values in (("clone_ms", clone), ("world_ms", build),
                                 ("playout_ms", playout))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rules", default="hoyle-modernized")
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--simulations", default="50,100,200")
    args = parser.parse_args()
    result: dict[str, object] = {"players": args.players, "rules": args.rules,
                                 "deals": args.deals}
    result |= operations(args.players, args.rules, 50)
    for count in args.simulations.split(","):
        times = decision_seconds(f"ismcts:simulations={count}", args.players, args.rules,
                                 args.deals)
        result[f"decision_s_{count}"] = statistics.median(times)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
