"""``strong``: the strongest fair bot by name, the default opponent of ``play`` and the web."""

from __future__ import annotations

import argparse

from popejoan_solver.bots.registry import STRONG, make_bot, parse_spec
from popejoan_solver.commands.play import DEFAULT_PLAYERS, _players
from popejoan_solver.web.bots import WEB_BOTS, web_bot


def test_strong_is_the_named_spec_under_its_own_name() -> None:
    bot = make_bot("strong")
    same = make_bot(STRONG)
    assert bot.name == "strong"
    assert type(bot) is type(same)
    assert not bot.sees_all
    assert parse_spec(STRONG)[0] in ("pimc", "epimc")
    timed = make_bot("strong:time=0.5,peek")
    assert timed.peeks
    assert timed.seconds == 0.5  # type: ignore[attr-defined]


def test_strong_is_the_default_opponent() -> None:
    assert WEB_BOTS[0] == "strong"
    assert web_bot("strong", 1.5).seconds == 1.5  # type: ignore[attr-defined]
    args = argparse.Namespace(bots=None, players=None, seed=1)
    assert _players(args, ["strong"]) == DEFAULT_PLAYERS == 4
