"""Every named ruleset's whole theorem catalogue, run as ``popejoan prove --rules R --json``
(issue 12): each named ruleset of ``popejoan rules --json`` is proved, refuted where the
texts disagree (docs/proofs.md), or refused with one error line when its runs have choices.

The rulesets run two at a time in separate processes (CI has two cores); each takes about
35-55 s of CPU. Their times are printed (``pytest -s``) and recorded in the test report.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from popejoan_solver.logic.theorems import THEOREMS
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.table import compile_rules

REFUTED = {"parlett": {"kings-are-stops", "unreachable-at-outset"}}
"""The catalogue's refutations under the named rulesets: Parlett's ace high (docs/proofs.md,
"Findings about the texts"); every other theorem is proved."""


@dataclass(frozen=True)
class Run:
    name: str
    status: int
    out: str
    err: str
    seconds: float


def _popejoan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "popejoan_solver", *args], capture_output=True,
                          text=True, timeout=1200, check=False)


def _prove(name: str) -> Run:
    start = time.perf_counter()
    done = _popejoan("prove", "--rules", name, "--json")
    return Run(name, done.returncode, done.stdout, done.stderr, time.perf_counter() - start)


@pytest.mark.slow
def test_every_named_rulesets_catalogue(record_property: Callable[[str, object], None]) -> None:
    listing = _popejoan("rules", "--json")
    assert listing.returncode == 0, listing.stderr
    names = [r["name"] for r in json.loads(listing.stdout)["rulesets"]]
    assert {"hoyle-modernized", "parlett"} <= set(names)
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(_prove, names))
    for run in runs:
        print(f"prove --rules {run.name}: {run.seconds:.0f} s, status {run.status}")
        record_property(f"prove-{run.name}-seconds", round(run.seconds, 1))
        _check(run)


def _check(run: Run) -> None:
    rules = get_ruleset(run.name)
    choices = compile_rules(rules).choice_points
    if choices:  # the encodings cannot express a choice inside a run: refused, one line
        assert run.status == 2, (run.name, run.err)
        assert run.out == ""
        assert run.err.startswith("error: ")
        assert run.err.count("\n") == 1
        assert choices[0].option in run.err
        return
    refuted = REFUTED.get(run.name, set())
    assert run.status == (1 if refuted else 0), (run.name, run.err)
    results = {t["name"]: t["status"] for t in json.loads(run.out)["theorems"]}
    expected = {name for name, theorem in THEOREMS.items() if theorem.not_for(rules) is None}
    assert set(results) == expected, run.name
    assert {n for n, s in results.items() if s == "refuted"} == refuted, run.name
    assert all(s == "proved" for n, s in results.items() if n not in refuted), results
