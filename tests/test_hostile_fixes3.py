"""Regression tests of a seat's view and the advice (view, advise, advise_choice, their Python
API): each test names the fault it guards against and failed before the fix."""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction
from typing import Any

import pytest

from popejoan_solver import deal_from_line, deal_random, deal_to_line, parse_card, view
from popejoan_solver.advice.choice import advise_choice
from popejoan_solver.advice.leads import MAX_WORKERS, Advice, AdviceError, advise, summarise
from popejoan_solver.advice.valuer import SampleValuer
from popejoan_solver.cli import main
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.seat import all_deals, sample_deals
from popejoan_solver.seat.sampling import seeded

SMALL = ("hoyle-modernized: 3.A.2.A A2... 4.2.. | ..A3.2K ^KS | played 58J.36TK.69Q.47T "
         "69Q.47J.47TK.58J 7TK.59Q.58J.369Q | lead 1")
"""A position of 210 consistent deals for seat 1 (0.1 s to value them all)."""
SPINADO = "spinado: 46.AT.9T.3479J 589J.79JQ.K.56 A7TK.3456.3.8Q | 3Q.K.A45678JQ.ATK ^4H"


def test_a_negative_seed_draws_deals_of_its_own() -> None:
    """Finding 1: ``sample_deals`` (and ``advise --seed``) drew the same deals for ``-S`` as
    for ``S`` (``random.Random`` takes a seed's absolute value); seeds from 0 are unchanged."""
    known = view(deal_random(4, 7), 1)
    lines = {seed: [deal_to_line(d) for d in sample_deals(known, 3, seed)]
             for seed in (1, -1, 2, -2)}
    assert lines[1] != lines[-1]
    assert lines[2] != lines[-2]
    assert lines[-1] == [deal_to_line(d) for d in sample_deals(known, 3, -1)]
    assert seeded(5).random() == random.Random(5).random()


def test_advice_arguments_are_checked_alike() -> None:
    """Finding 2: ``advise_choice`` checked none of its arguments (TypeError, IndexError;
    ``seed=None`` silently unseeded, ``seat=True`` reported as seat True, ``lead=-1`` read as
    the KS); ``advise`` and ``advise_choice`` ran ``workers=0`` or ``-1`` on one thread and
    ``workers=10**6`` on a thread per deal, each with its own table (memory grows with them);
    ``exact="yes"`` was taken as true."""
    deal = deal_from_line(SPINADO)
    lead = parse_card("4C")
    bad_choice: list[dict[str, object]] = [
        {"seat": "1"}, {"seat": True}, {"lead": "4C"}, {"lead": None}, {"lead": 999},
        {"lead": -1}, {"lead": True}, {"seed": None}, {"seed": 1.5}, {"seed": "x"},
        {"samples": True}, {"samples": 1.0}, {"workers": 0}, {"workers": "2"},
        {"exact_limit": "5"}, {"exact": "yes"}, {"workers": 10**6}]
    for bad in bad_choice:
        arguments: dict[str, Any] = {"seat": 1, "lead": lead, "samples": 1, **bad}
        with pytest.raises(AdviceError):
            advise_choice(deal, arguments.pop("seat"), arguments.pop("lead"), **arguments)
    wrong: tuple[dict[str, Any], ...] = (
        {"workers": 0}, {"workers": -1}, {"workers": 10**6}, {"exact": "yes"}, {"exact": 1},
        {"exact": None})
    for bad_advise in wrong:
        with pytest.raises(AdviceError):
            advise(deal, 1, samples=1, **bad_advise)
    assert advise_choice(deal, 1, lead, samples=1, workers=MAX_WORKERS).deals == 1


def test_advise_reads_its_line_as_view_does() -> None:
    """Finding 3: ``advise(deal, seat, line=["AC"])`` was refused with "line must be a
    sequence of runs ..., not list" (a list is a sequence), though ``view`` takes the same
    steps; a bad step is named as ``view`` names it."""
    deal = deal_random(3, 1)
    after = view(deal, 1, "AC")
    seat = after.leader + 1
    by_steps = advise(deal, seat, line=["AC"], samples=2, seed=1)
    by_text = advise(deal, seat, line="AC", samples=2, seed=1)
    by_runs = advise(deal, seat, line=list(after.line), samples=2, seed=1)
    assert by_steps.leads == by_text.leads == by_runs.leads
    with pytest.raises(PopeJoanError, match="step 1"):
        advise(deal, seat, line=["ZZ"], samples=1)
    spinado = deal_from_line(SPINADO)
    assert advise_choice(spinado, 1, parse_card("4C"), line=(), samples=1).deals == 1


def test_an_exact_run_cut_short_claims_no_exact_mean() -> None:
    """Finding 4: ``advise --exact --time-limit`` cut short gave the mean of the first deals of
    a fixed order with a zero-width "95% interval" and an exact fraction (22 of 210 deals:
    AS "13/22 [0.591, 0.591]", the exact mean -5/7); now no interval and no fraction."""
    deal = deal_from_line(SMALL)
    full = advise(deal, 1, exact=True, workers=1)
    assert full.complete
    assert full.lead(parse_card("AS")).mean_fraction == Fraction(-5, 7)
    evals = [e for e in (SampleValuer("paranoid")(d, None) for d in all_deals(
        view(deal, 1), 210)[:22]) if e is not None]
    cut = summarise(evals, full_cards(full), exact=True, complete=False)
    for lead in cut:
        assert lead.mean_fraction is None
        assert all(math.isnan(x) for x in lead.ci95)
    assert summarise(evals, full_cards(full), exact=True)[0].mean_fraction is not None


def full_cards(advice: Advice) -> list[int]:
    return [lead.card for lead in advice.leads]


def test_an_exact_advice_cut_short_by_its_time_limit_has_no_interval(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 4, from the command line: the JSON of a run cut short has ``null`` intervals and
    no ``mean_fraction`` (the time limit's cut made certain: 22 of the 210 deals come back)."""
    from popejoan_solver.advice import leads as advice_module

    whole = advice_module.run_all

    def cut(*args: Any, **kwargs: Any) -> Any:
        return whole(*args, **kwargs)[:22]

    monkeypatch.setattr(advice_module, "run_all", cut)
    status = main(["advise", SMALL, "--seat", "1", "--exact", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert status == 3
    assert data["complete"] is False
    assert data["exact"] is True
    assert data["deals"] == 22
    assert data["consistent_deals"] == 210
    for lead in data["leads"]:
        assert "mean_fraction" not in lead
        assert lead["ci95"] == [None, None]
    assert data["double_dummy_ci95"] == [None, None]


def test_choice_advice_under_rules_without_choices_says_so(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Finding 6: ``advise DEAL --choice 3C`` under hoyle-modernized (no choice inside any run)
    said "seat 1 has no choice in the run of 3C (every earlier choice declined)"."""
    deal = deal_random(3, 1)
    status = main(["advise", deal_to_line(deal), "--seat", "1", "--choice", "AC",
                   "--samples", "1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "no choice inside a run under hoyle-modernized" in err
    assert len(err.strip().splitlines()) == 1


def test_a_composed_position_is_valued_with_a_table_that_can_grow() -> None:
    """Finding 5: the advice's per-deal table was capped at 2**18 entries; on a teacher's
    position with a hand of 44 cards one deal took 146.6 M nodes (6.0 M with the search's
    default); after the seventh session's search changes 34.2 M against 1.4 M. Judged by
    nodes, not time."""
    from popejoan_solver.advice.values import evaluate
    deal = deal_from_line("hoyle-modernized: A2456789JQK.A245679JQK.A2346789TJQK.A23456789JK "
                           "3.3.. T...T | .T.5.Q ^QS")
    valued = evaluate(deal)
    assert valued is not None
    assert valued.nodes < 10_000_000
