"""``popejoan advise``: the text and JSON of a run cut short, and choice advice under rules without
choices."""

from __future__ import annotations

import json
from typing import Any

import pytest

from popejoan_solver import deal_random, deal_to_line
from popejoan_solver.cli import main

SMALL = ("hoyle-modernized: 3.A.2.A A2... 4.2.. | ..A3.2K ^KS | played 58J.36TK.69Q.47T "
         "69Q.47J.47TK.58J 7TK.59Q.58J.369Q | lead 1")
"""A position of 210 consistent deals for seat 1 (0.1 s to value them all)."""


def test_an_exact_advice_cut_short_by_its_time_limit_has_no_interval(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """From the command line: the JSON of an exact run cut short has ``null`` intervals and no
    ``mean_fraction`` (the time limit's cut made certain: 22 of the 210 deals come back)."""
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
    """``advise DEAL --choice`` under rules with no choice inside any run (hoyle-modernized) says
    so in one line."""
    deal = deal_random(3, 1)
    status = main(["advise", deal_to_line(deal), "--seat", "1", "--choice", "AC",
                   "--samples", "1"])
    err = capsys.readouterr().err
    assert status == 2
    assert "no choice inside a run under hoyle-modernized" in err
    assert len(err.strip().splitlines()) == 1


DEAL = ("hoyle-modernized: A3.26J.8Q.589QK 9.359.45679.36J 6QK.A4TK.23TK.2 | "
        "24578TJ.7Q.AJ.A47T ^AH")


def test_advice_text_with_no_deal_valued(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["advise", DEAL, "--seat", "1", "--samples", "2", "--time-limit", "0.000001"])
    assert status == 3
    assert "PARTIAL" in capsys.readouterr().out


def test_choice_advice_text_with_no_deal_valued(capsys: pytest.CaptureFixture[str]) -> None:
    spin = "spinado: 46.AT.9T.3479J 589J.79JQ.K.56 A7TK.3456.3.8Q | 3Q.K.A45678JQ.ATK ^4H"
    status = main(["advise", spin, "--seat", "1", "--choice", "4C", "--samples", "2",
                   "--time-limit", "0.000001"])
    assert status == 3
    assert "PARTIAL" in capsys.readouterr().out
