"""In how many deals of a match did the rotations play alike (for docs/studies/bots.md)?

    python benchmarks/match_alike.py MATCH.db

Every decision of a match is seeded by the match seed, the deal and the seat, so two bots
that differ only in how they value the same sampled deals (``pimc`` and ``pimc:model=maxn``
with the same samples) draw the same deals at the same seat. Where they lead and choose
alike at every decision, every rotation of a deal is the same play and the bots' difference
in that deal is 0. Per complete unit: whether its rotations' plays are identical. Prints the
units, how many played alike, and over the units that did not the mean difference of the
first bot named less the second (counters per deal-play, paired by unit as ``popejoan
standings`` pairs them) with its 95% interval.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from popejoan_solver.intervals import mean_ci
from popejoan_solver.jobs.match import read_match
from popejoan_solver.studies.standings import unit_totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    args = parser.parse_args()
    settings, rows = read_match(Path(args.file))
    units, _ = unit_totals(settings, rows)
    plays: dict[int, set[str]] = {}
    for row in rows:
        if row.session in units:
            plays.setdefault(row.session, set()).add(json.dumps(row.record["plays"]))
    a, b = list(dict.fromkeys(settings.bots))[:2]
    differ = [t[a][0] / t[a][1] - t[b][0] / t[b][1]
              for session, t in units.items() if len(plays[session]) > 1]
    print(f"{len(units)} complete units; {len(units) - len(differ)} played alike in every "
          f"rotation, {len(differ)} not")
    if differ:
        mean, low, high = mean_ci(differ)
        print(f"{a} - {b} over the {len(differ)} that differ: {mean:+.3f} "
              f"[{low:+.3f}, {high:+.3f}]")


if __name__ == "__main__":
    main()
