"""Advice on a choice inside a run (``popejoan_solver/advice/choice.py``): its arguments checked
as ``advise`` checks them."""

from __future__ import annotations

from typing import Any

import pytest

from popejoan_solver import deal_from_line, parse_card
from popejoan_solver.advice.choice import advise_choice
from popejoan_solver.advice.leads import MAX_WORKERS, AdviceError, advise

SPINADO = "spinado: 46.AT.9T.3479J 589J.79JQ.K.56 A7TK.3456.3.8Q | 3Q.K.A45678JQ.ATK ^4H"


def test_advice_arguments_are_checked_alike() -> None:
    """``advise_choice`` checks its arguments as ``advise`` does (a string or bool seat, a bad
    lead card, an unseeded or float seed, ``exact="yes"``), and both bound ``workers`` from 1
    to MAX_WORKERS (a thread per deal would grow memory with them): each an AdviceError."""
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
