"""Bad input to bots' lists, matches resumed and solve's and advise's arguments: each test
names the fault it guards against, and failed before its fix."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from popejoan_solver.bots.registry import split_bots
from popejoan_solver.jobs.match import run_match
from popejoan_solver.model.errors import PopeJoanError


def test_one_bot_in_two_spellings_is_named_twice() -> None:
    """``match --bots lowest,LOWEST`` played lowest against itself as two contestants (the
    standings then print 'lowest - LOWEST +0.000'); names are case-blind everywhere else."""
    with pytest.raises(PopeJoanError, match="twice"):
        split_bots("lowest,LOWEST")


def test_an_empty_spec_is_malformed() -> None:
    """``--bots random,,lowest`` (a typo: a spec left out) ran as two bots; docs/bots.md says a
    malformed spec is one error line."""
    with pytest.raises(PopeJoanError):
        split_bots("random,,lowest")


def test_resume_with_fewer_deals_reports_what_it_planned(tmp_path: Path) -> None:
    """After a 4-deal match, ``match ... --deals 2`` printed "4 deal-plays in m.db: 8 already
    there" (batch says "2 deals: 2 already there")."""
    out = tmp_path / "m.db"
    run_match(out, ["lowest", "random"], 3, 4, 1, workers=1)
    report = run_match(out, ["lowest", "random"], 3, 2, 1, workers=1)
    assert report.played == 0
    assert report.already == report.planned == 4


SOLVE_WRONG_TYPES = [
    ("seats=[True]", {"seats": [True]}),  # was solved as seat 1, reported as seat True
    ("seats=1", {"seats": 1}),  # TypeError
    ("seats='1'", {"seats": "1"}),  # TypeError
    ("seats=[1.0]", {"seats": [1.0]}),  # TypeError
    ("time_limit=True", {"seats": [1], "time_limit": True}),  # was taken as 1 second
    ("tt_entries=True", {"seats": [1], "tt_entries": True}),  # was a table of one entry
    ("threads=True", {"seats": [1], "threads": True}),  # was one thread
    ("line_seat=True", {"seats": [1], "line_seat": True}),
    ("seats=[1, 1]", {"seats": [1, 1]}),  # was solved and reported twice
    ("threads=1.5", {"seats": [1], "threads": 1.5}),
]


@pytest.mark.parametrize(("call", "kwargs"), SOLVE_WRONG_TYPES,
                         ids=[c for c, _ in SOLVE_WRONG_TYPES])
def test_solve_refuses_wrong_argument_types(call: str, kwargs: dict[str, object]) -> None:
    from popejoan_solver import hoyle_dead_hand, solve

    with pytest.raises(PopeJoanError):
        solve(hoyle_dead_hand(), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("call", [
    "solve(None)",
    "advise(None, 1)", "advise(deal, 1, line=5)"])
def test_solve_and_advise_refuse_what_is_not_a_deal_or_line(call: str) -> None:
    from popejoan_solver import advise, hoyle_dead_hand, solve

    calls: dict[str, Callable[[], object]] = {
        "solve(None)": lambda: solve(None),  # type: ignore[arg-type]
        "advise(None, 1)": lambda: advise(None, 1, samples=1),  # type: ignore[arg-type]
        "advise(deal, 1, line=5)":
            lambda: advise(hoyle_dead_hand(), 1, samples=1, line=5)}  # type: ignore[arg-type]
    with pytest.raises(PopeJoanError):
        calls[call]()
