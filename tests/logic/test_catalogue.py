"""Every named ruleset's whole theorem catalogue, run as ``popejoan prove --rules R --json``
each named ruleset of ``popejoan rules --json`` is proved, refuted where the
texts disagree or a choice inside a run changes the play (docs/proofs.md); the Pope in lieu
readings pope-leads and run-continues too.

Each ruleset is a test of its own, in a process of its own (the test runner spreads them over
the cores); each takes about 20-40 s of CPU. Their times are printed (``pytest -s``) and
recorded in the test report.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from popejoan_solver.logic.theorems import THEOREMS
from popejoan_solver.model.rules import get_ruleset

LIEU_REFUTED = {"pope-only-led", "unreachable-at-outset", "played-on-top"}
REFUTED = {"parlett": {"kings-are-stops", "unreachable-at-outset"},
           "spinado": {"played-on-top"},
           "hoyle-modernized+pope_in_lieu=pope-leads": LIEU_REFUTED,
           "hoyle-modernized+pope_in_lieu=run-continues": LIEU_REFUTED
           | {"pope-in-lieu-player-leads"}}
"""The catalogue's refutations: Parlett's ace high (docs/proofs.md, "Findings about the
texts"); Spin stops a run below unplayed cards (solver Fact 1); the Pope in lieu is played
other than as a lead, below unplayed cards, and under run-continues another player may go on
(docs/proofs.md, "Choices inside a run"). Every other theorem is proved."""

OPTIONS = ["hoyle-modernized+pope_in_lieu=run-continues"]
"""Rulesets with a choice inside a run that are not named rulesets (Spinado is one): the
`run-continues` reading, whose refutations hold every other reading's (`pope-leads`' whole
catalogue, the dearest at 32 s of CPU, is left to `popejoan prove --rules
hoyle-modernized+pope_in_lieu=pope-leads` run by hand, docs/proofs.md; its refutation of
`pope-only-led` is replayed by tests/logic/test_choice_proofs.py)."""


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


NAMED = ["hoyle-modernized", "britannica", "parlett", "early-hoyle", "peel", "cassell",
         "britannica-1911", "spinado"]
"""The named rulesets (``popejoan rules --json`` lists exactly these: checked below)."""


def test_the_catalogue_covers_every_named_ruleset() -> None:
    listing = _popejoan("rules", "--json")
    assert listing.returncode == 0, listing.stderr
    assert [r["name"] for r in json.loads(listing.stdout)["rulesets"]] == NAMED


@pytest.mark.slow
@pytest.mark.parametrize("name", [*NAMED, *OPTIONS])
def test_every_named_rulesets_catalogue(name: str,
                                        record_property: Callable[[str, object], None]) -> None:
    """One ruleset's whole catalogue in its own process (the test runner spreads them over
    the cores)."""
    run = _prove(name)
    print(f"prove --rules {run.name}: {run.seconds:.0f} s, status {run.status}")
    record_property(f"prove-{run.name}-seconds", round(run.seconds, 1))
    _check(run)


def _check(run: Run) -> None:
    rules = get_ruleset(run.name)
    refuted = REFUTED.get(run.name, set())
    assert run.status == (1 if refuted else 0), (run.name, run.err)
    results = {t["name"]: t["status"] for t in json.loads(run.out)["theorems"]}
    expected = {name for name, theorem in THEOREMS.items() if theorem.not_for(rules) is None}
    assert set(results) == expected, run.name
    assert {n for n, s in results.items() if s == "refuted"} == refuted, run.name
    assert all(s == "proved" for n, s in results.items() if n not in refuted), results
