"""Regression tests of view, advise, play and serve against bad input and Ctrl-C: each test
names the fault it guards against and failed before the fix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from popejoan_solver import advise, deal_random, view
from popejoan_solver.cli import main
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.notation import parse_deal_text

# popejoan deal --players 3 --seed 101 --rules early-hoyle, played with the Pope in lieu of
# a stop: its sampled deals take a tenth of a second or more each
HARD = ("early-hoyle+pope_in_lieu=pope-leads: "
        "A45T.236K.357.36JQ 38K.47JQ.A68K.A78K 267JQ.A59.24JQ.25T | 9.T.9T.49 ^9S")
POPE_ENDS = ("hoyle-modernized+pope_turnup=ends-deal: 34Q.A4.7J.A238J 568J.56K.89.45Q "
             "A79.2TJ.234Q.TK | 2TK.379Q.A56TK.679 ^9D")
DEAL = ("hoyle-modernized: A3.26J.8Q.589QK 9.359.45679.36J 6QK.A4TK.23TK.2 | "
        "24578TJ.7Q.AJ.A47T ^AH")
POPEJOAN = [sys.executable, "-m", "popejoan_solver"]


@pytest.fixture
def interrupt_after() -> Iterator[None]:
    """SIGALRM raises KeyboardInterrupt in the main thread, as Ctrl-C does."""
    def raise_interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, raise_interrupt)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, old)


def test_ctrl_c_stops_advice_within_seconds(interrupt_after: None) -> None:
    deal = parse_deal_text(HARD)
    # 80 deals drawn take about 18 s (the Pope in lieu of a stop: every stop before it is
    # played is a choice); plain early-hoyle takes 0.7 s since fact 5. Searches are under way.
    signal.setitimer(signal.ITIMER_REAL, 3.0)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        advise(deal, 1, samples=80, seed=0, workers=2)
    assert time.monotonic() - started < 5.0


def test_exact_limit_cannot_ask_for_unbounded_listing() -> None:
    code = ("from popejoan_solver import advise, deal_random\n"
            "from popejoan_solver.model.errors import PopeJoanError\n"
            "try:\n"
            "    advise(deal_random(3, 1), 1, exact=True, exact_limit=10**30)\n"
            "except PopeJoanError:\n"
            "    print('refused')\n")
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=5)
    except subprocess.TimeoutExpired:
        pytest.fail("advise(exact=True, exact_limit=10**30) ran past 5 s")
    assert done.stdout.strip() == "refused"


@pytest.mark.parametrize("seat", ["1", None, 1.0, True])
def test_view_refuses_a_seat_that_is_not_a_number(seat: object) -> None:
    with pytest.raises(PopeJoanError):
        view(deal_random(3, 1), seat)  # type: ignore[arg-type]


def test_view_of_a_deal_the_pope_turn_up_ended_is_over(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["advise", POPE_ENDS, "--seat", "1", "--samples", "1"]) == 2
    assert "the deal is over" in capsys.readouterr().err
    assert main(["view", POPE_ENDS, "--seat", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["over"] is True


def test_play_against_two_bots_of_one_kind() -> None:
    done = subprocess.run([*POPEJOAN, "play", "--seat", "1", "--bots", "random,random",
                           "--players", "3"], stdin=subprocess.DEVNULL, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "your hand (seat 1)" in done.stdout


def test_serve_refuses_an_empty_host() -> None:
    process = subprocess.Popen([*POPEJOAN, "serve", "--host", "", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        _, err = process.communicate(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGINT)
        process.communicate(timeout=20)
        pytest.fail("serve --host '' started a server")
    assert process.returncode == 2
    assert err.startswith("error: ")


def test_a_bad_line_step_is_named_as_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", DEAL, "--seat", "1", "--line", "ZZ"]) == 2
    err = capsys.readouterr().err
    assert "turnup" not in err
    assert "not a deal" not in err


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


@pytest.mark.parametrize(("name", "value"), [("samples", True), ("samples", 1.5),
                                             ("seed", None), ("seed", "7"), ("workers", True)])
def test_advise_refuses_arguments_of_the_wrong_type(name: str, value: object) -> None:
    """Finding 5 (advise): a bool, float, None or string where a whole number belongs is one
    PopeJoanError, never a run with True taken as 1 or an unseeded draw."""
    with pytest.raises(PopeJoanError, match=name):
        advise(deal_random(4, 1), 1, **{name: value})  # type: ignore[arg-type]
