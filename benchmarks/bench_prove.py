"""What ``popejoan prove --rules R --json`` costs: the processor (CPU) time of the whole process,
its children included, for each ruleset, the median of ``--runs`` runs.

CPU time is what a machine loaded by other work inflates least. With ``--against DIR`` each run
of this checkout is followed by a run of the package in ``DIR`` (on ``PYTHONPATH``), so a
change and its base are measured in the same conditions, alternately.

    python benchmarks/bench_prove.py
    python benchmarks/bench_prove.py --rules parlett,spinado --runs 3 --against /tmp/base
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

DEFAULT_RULES = "hoyle-modernized,parlett,hoyle-modernized+pope_in_lieu=run-continues"
CHECKOUT = Path(__file__).resolve().parent.parent


def cpu_of(rules: str, package_dir: Path) -> tuple[float, int]:
    """CPU seconds (user and system, the child's) of one ``prove`` and its exit status."""
    env = dict(os.environ, PYTHONPATH=str(package_dir))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "popejoan_solver", "prove", "--rules", rules,
                           "--json"], capture_output=True, text=True, env=env, check=False,
                          cwd=package_dir)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default=DEFAULT_RULES, help="comma-separated rulesets")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, default=None,
                        help="another checkout (holding popejoan_solver/) to compare with")
    args = parser.parse_args(argv)
    dirs = {"this": CHECKOUT}
    if args.against is not None:
        dirs["against"] = args.against.resolve()
    print("| ruleset | " + " | ".join(f"{k} CPU s (median; runs)" for k in dirs) + " | status |")
    print("|---|" + "---|" * len(dirs) + "---|")
    for rules in args.rules.split(","):
        times: dict[str, list[float]] = {k: [] for k in dirs}
        statuses: set[int] = set()
        for _ in range(args.runs):
            for key, path in dirs.items():
                seconds, status = cpu_of(rules, path)
                times[key].append(seconds)
                statuses.add(status)
        cells = [f"{statistics.median(t):.1f} ({', '.join(f'{x:.1f}' for x in t)})"
                 for t in times.values()]
        print(f"| {rules} | " + " | ".join(cells) + f" | {sorted(statuses)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
