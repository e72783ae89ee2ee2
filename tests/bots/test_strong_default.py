"""``strong``: the strongest fair bot by name, the default opponent of ``play`` and the web."""

from __future__ import annotations

import argparse

import pytest

from popejoan_solver.bots.registry import STRONG, make_bot, parse_spec
from popejoan_solver.cli.play import DEFAULT_PLAYERS, _players
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


def test_strong_is_the_tables_default_and_bounded_in_time() -> None:
    """A table's seats default to ``strong`` (a timed-out person's turn too), and at a table a
    sampling bot given no time stops after the table's bound; a time of its own is kept."""
    pytest.importorskip("starlette", reason="the web extra")
    from popejoan_solver.web.tables.decide import BOT_SECONDS, table_bot
    from popejoan_solver.web.tables.spec import DEFAULT_BOT, PERSON, read_spec

    assert DEFAULT_BOT == "strong"
    assert read_spec({"players": 3}).seats == (PERSON, "strong", "strong")
    for spec in ("strong", "epimc:samples=8", "pimc"):
        assert table_bot(spec).seconds == BOT_SECONDS  # type: ignore[attr-defined]
    assert table_bot("strong:time=0.3").seconds == 0.3  # type: ignore[attr-defined]
    assert table_bot("strong:clock=cpu").clock == "cpu"  # type: ignore[attr-defined]
    assert table_bot("hoyle").name == "hoyle"
