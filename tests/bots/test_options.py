"""The options of the sampling bots (``sees``, ``infer``, ``pool``, ``clock``, ``top``) and of
``strong``: each read into the bot, each mistake one ``error:`` line and status 2 naming the spec
as given, and ``clock=cpu`` counting processor seconds, not the wall clock."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from popejoan_solver.bots.base import BotError, LeadRequest
from popejoan_solver.bots.deferred import EpimcBot
from popejoan_solver.bots.driver import decision_rng
from popejoan_solver.bots.pimc import PimcBot
from popejoan_solver.bots.registry import STRONG, make_bot, parse_spec
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge
from tests.contract import assert_contract, run_cli


@pytest.mark.parametrize(("spec", "fields"), [
    ("pimc:sees=dead", {"sees": "dead", "clock": "wall", "infer": None, "pool": 1}),
    ("pimc:sees=hands,samples=4", {"sees": "hands", "samples": 4}),
    ("pimc:infer=hoyle,pool=4", {"infer": "hoyle", "pool": 4}),
    ("pimc:time=0.2,clock=cpu", {"seconds": 0.2, "clock": "cpu"}),
    ("pimc:time=0.2,clock=wall", {"seconds": 0.2, "clock": "wall"}),
    ("epimc:top=2,samples=8,clock=cpu,time=0.1", {"top": 2, "samples": 8, "clock": "cpu"}),
    ("epimc:infer=uniform", {"infer": "uniform", "top": 3, "samples": 32}),
    ("strong", {"samples": 32, "top": 3, "seconds": None, "clock": "wall", "peeks": False}),
    ("strong:time=0.3,clock=cpu,peek", {"seconds": 0.3, "clock": "cpu", "peeks": True}),
])
def test_options_reach_the_bot(spec: str, fields: dict[str, object]) -> None:
    bot = make_bot(spec)
    assert bot.name == spec
    for field, value in fields.items():
        assert getattr(bot, field) == value, field
    assert not bot.sees_all


def test_strong_is_epimc_with_its_samples() -> None:
    name, options = parse_spec(STRONG)
    bot = make_bot("strong")
    assert isinstance(bot, EpimcBot)
    assert name == "epimc"
    assert bot.samples == int(options["samples"])


BAD = [
    ("pimc:sees=all", "sees is one of"),
    ("pimc:sees", "sees is one of"),
    ("pimc:infer=nonesuch", "nonesuch"),
    ("pimc:pool=3", "pool weighs deals for infer=MODEL"),
    ("pimc:infer=hoyle,pool=0", "pool"),
    ("pimc:clock=gpu", "clock is wall or cpu"),
    ("pimc:clock=", "clock is wall or cpu"),
    ("epimc:top=0", "top is a whole number"),
    ("epimc:top=14", "top is a whole number"),
    ("epimc:sees=dead", "unknown option 'sees'"),
    ("epimc:model=maxn", "unknown option 'model'"),
    ("strong:samples=8", "unknown option 'samples'"),
    ("strong:top=2", "unknown option 'top'"),
    ("strong:time=-1", "time is a number of seconds"),
    ("strong:time=nan", "time is a number of seconds"),
    ("strong:clock=gpu", "clock is wall or cpu"),
    ("strong:peek=maybe", "peek is yes or no"),
]


@pytest.mark.parametrize(("spec", "words"), BAD)
def test_a_bad_option_names_the_spec_as_given(spec: str, words: str) -> None:
    with pytest.raises(BotError, match=words) as caught:
        make_bot(spec)
    assert f"bot '{spec}'" in str(caught.value)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("spec", "words"), [BAD[0], BAD[3], BAD[5], BAD[7], BAD[11],
                                             BAD[15]])
@pytest.mark.parametrize("command", ["match", "play"])
def test_a_bad_option_on_the_command_line_is_one_line_and_status_2(
        spec: str, words: str, command: str, tmp_path: object) -> None:
    if command == "match":
        args = ["match", "--bots", f"{spec},random", "--players", "3", "--deals", "1",
                "--seed", "1", "--out", f"{tmp_path}/m.db"]
    else:
        args = ["play", "--seat", "1", "--bots", spec, "--players", "3", "--seed", "1"]
    outcome = run_cli(args, stdin=b"", timeout=60)
    assert_contract(outcome, 2)
    assert words in outcome.stderr
    assert f"'{spec}'" in outcome.stderr


def _request(seed: int) -> tuple[Deal, LeadRequest]:
    deal = deal_random(4, seed, get_ruleset("hoyle-modernized"), 0)
    position = Position.from_deal(deal)
    k = knowledge(deal, position.leader, ())
    return deal, LeadRequest(k, tuple(position.legal_leads()),
                             decision_rng(5, "0", k.seat, 0))


VALUED: list[int] = []


@dataclass(frozen=True)
class _Counting(PimcBot):
    """``pimc`` that counts the deals it values."""

    def valuer(self) -> Callable[[Deal], object]:  # type: ignore[override]
        inner = super().valuer()

        def value(deal: Deal) -> object:
            VALUED.append(1)
            return inner(deal)
        return value


def _valued(bot: PimcBot) -> int:
    VALUED.clear()
    _, request = _request(3)
    bot.lead_totals(request)
    return len(VALUED)


def test_clock_cpu_counts_processor_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A processor clock that runs fast stops a ``clock=cpu`` bot after its first deal and
    leaves a wall-clock bot alone; a wall clock that runs fast does the reverse."""
    real_cpu, real_wall = time.process_time, time.perf_counter
    fast: list[float] = [0.0]

    def jumping() -> float:
        fast[0] += 100.0
        return fast[0]

    cpu = _Counting("pimc", samples=6, seconds=1.0, clock="cpu")
    wall = _Counting("pimc", samples=6, seconds=1.0, clock="wall")
    monkeypatch.setattr(time, "process_time", jumping)
    assert _valued(cpu) == 1
    assert _valued(wall) == 6
    monkeypatch.setattr(time, "process_time", real_cpu)
    monkeypatch.setattr(time, "perf_counter", jumping)
    try:
        assert _valued(cpu) == 6
        assert _valued(wall) == 1
    finally:
        monkeypatch.setattr(time, "perf_counter", real_wall)


def test_sees_hands_and_sees_dead_are_not_fair_names() -> None:
    """Partial sight is for measurement: the bots say what they see, and ``strong`` sees
    nothing it should not."""
    assert make_bot("pimc:sees=dead").sees == "dead"  # type: ignore[attr-defined]
    assert make_bot("pimc:sees=hands").sees == "hands"  # type: ignore[attr-defined]
    assert make_bot("strong").sees is None  # type: ignore[attr-defined]
    assert make_bot("pimc").sees is None  # type: ignore[attr-defined]
