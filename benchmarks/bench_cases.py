"""Published-cases benchmark: the time of each case ``popejoan cases`` checks, and of the set.

The cases run in order in one process, as ``popejoan cases`` runs them: a case whose theorem
another case already proved under the same ruleset reuses that proof, and the prover's
encodings are shared per ruleset. ``--alone NAME`` times one case from a fresh process state.
Wall and CPU seconds (every thread of the process; z3 checks run on a helper thread).

    python benchmarks/bench_cases.py
    python benchmarks/bench_cases.py --alone hoyle-only-known-unreachable
"""

from __future__ import annotations

import argparse
import sys
import time

from popejoan_solver.analysis.cases import check_case, load_cases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--alone", metavar="NAME", help="time this case only")
    parser.add_argument("--all", action="store_true",
                        help="list every case (default: those over 0.1 s)")
    args = parser.parse_args(argv)
    cases = load_cases()
    if args.alone is not None:
        cases = [c for c in cases if c.name == args.alone]
        if not cases:
            parser.error(f"no case {args.alone!r}")
    print("| case | wall s | CPU s | agrees |")
    print("|---|---|---|---|")
    wall, cpu = time.perf_counter(), time.process_time()
    for case in cases:
        started, used = time.perf_counter(), time.process_time()
        result = check_case(case)
        seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - used
        if args.all or seconds > 0.1:
            print(f"| {case.name} | {seconds:.2f} | {cpu_seconds:.2f} | "
                  f"{'yes' if result.agrees else 'NO'} |", flush=True)
    print(f"| all {len(cases)} | {time.perf_counter() - wall:.2f} | "
          f"{time.process_time() - cpu:.2f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
