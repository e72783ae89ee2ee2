"""The double-dummy cost of each bot's leads in a match file (for docs/studies/bots.md).

    python benchmarks/bots_lead_costs.py MATCH.db --units 30

Every lead a bot made in the first ``units`` complete sessions is graded as
``popejoan grade`` grades it: the leader's guaranteed value (double dummy, everyone else against
it) after the best lead less after the lead played. Per bot: leads, the share that were optimal
(Wilson 95%) and the mean cost (normal 95%). The cheat's cost is 0 by construction; a fair bot's
cost is what not seeing the hands (and its policy) lost, measured in the cheat's currency.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from popejoan_solver.jobs.match import read_match, session_records
from popejoan_solver.search.grading import grade_record
from popejoan_solver.studies.stats import mean_ci, wilson


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file")
    parser.add_argument("--units", type=int, default=30)
    parser.add_argument("--time-limit", type=float, default=20.0)
    args = parser.parse_args()
    settings, rows = read_match(Path(args.file))
    costs: dict[str, list[float]] = defaultdict(list)
    sessions: set[int] = set()
    for session, _, record in session_records(settings, rows):
        if session not in sessions and len(sessions) >= args.units:
            continue
        sessions.add(session)
        graded = grade_record(record, time_limit=args.time_limit)
        for lead in graded.leads:
            if lead.grade.cost.lower != lead.grade.cost.upper:
                continue  # past the time limit: bounds only
            bot = record.player_name(lead.player).split(" ", 1)[1]
            costs[bot].append(float(lead.grade.cost.lower))
    result = []
    for bot, values in sorted(costs.items()):
        zero = sum(1 for v in values if v == 0)
        low, high = wilson(zero, len(values))
        mean, mlo, mhi = mean_ci(values)
        result.append({"bot": bot, "leads": len(values), "optimal": round(zero / len(values), 3),
                       "optimal_ci95": [round(low, 3), round(high, 3)],
                       "mean_cost": round(mean, 3), "mean_cost_ci95": [round(mlo, 3),
                                                                       round(mhi, 3)]})
    print(json.dumps({"file": args.file, "rules": settings.rules, "players": settings.players,
                      "units": len(sessions), "bots": result}, indent=1))


if __name__ == "__main__":
    main()
