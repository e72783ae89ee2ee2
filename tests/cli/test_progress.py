"""Progress of the long commands: ``find``, ``advise`` and ``match`` tell how far they are,
shown as a bar on a terminal (standard error) and nowhere else."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import ClassVar

import pytest

from popejoan_solver.advice.leads import AdviceError, advise
from popejoan_solver.cli import find as find_command
from popejoan_solver.cli import main
from popejoan_solver.jobs import pool
from popejoan_solver.logic.find import FindQuery, Property, find_deals
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset

HOYLE = get_ruleset("hoyle-modernized")


class Bar:
    """A stand-in for the terminal's bar: what it was told, and whether it was closed."""

    made: ClassVar[list[Bar]] = []

    def __init__(self, unit: str = "deal") -> None:
        self.unit = unit
        self.calls: list[tuple[int, int]] = []
        self.notes: list[str] = []
        self.closed = False
        Bar.made.append(self)

    def __call__(self, done: int, total: int) -> None:
        self.calls.append((done, total))

    def note(self, text: str) -> None:
        self.notes.append(text)

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def bars(monkeypatch: pytest.MonkeyPatch) -> list[Bar]:
    """Every command's bar is a :class:`Bar`, as on a terminal."""
    Bar.made = []
    monkeypatch.setattr(pool, "tty_progress", Bar)  # read when a command runs
    monkeypatch.setattr(find_command, "tty_progress", Bar)  # imported with find's module
    return Bar.made


def test_find_tells_deals_found_and_candidates_checked() -> None:
    calls: list[tuple[int, int, int]] = []
    query = FindQuery(Property.FORCED_WIN, HOYLE, 4, 1, {}, 0, 2, 2, None)
    result = find_deals(query, lambda *told: calls.append(told))
    assert calls[0] == (0, 2, 0)
    assert calls[-1] == (len(result.deals), 2, result.stats.candidates)
    assert [c for _, _, c in calls] == list(range(len(calls)))
    assert [f for f, _, _ in calls] == sorted(f for f, _, _ in calls)


@pytest.mark.parametrize("workers", [1, 2])
def test_advise_tells_each_deal_valued(workers: int) -> None:
    calls: list[tuple[int, int]] = []
    advice = advise(deal_random(4, 7), 1, samples=6, seed=1, workers=workers,
                    progress=lambda done, total: calls.append((done, total)))
    assert advice.complete
    assert calls == [(k, 6) for k in range(7)]


def test_advise_refuses_a_progress_it_cannot_call() -> None:
    with pytest.raises(AdviceError, match="progress must be called"):
        advise(deal_random(4, 7), 1, samples=2, progress=3)  # type: ignore[arg-type]


def test_find_shows_its_bar_and_ends_it(bars: list[Bar],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["find", "forced-win", "--players", "4", "--count", "2", "--seed", "2"]) == 0
    (bar,) = bars
    assert bar.unit == "deal"
    assert bar.calls[0] == (0, 2)
    assert bar.calls[-1] == (2, 2)
    assert bar.notes[-1].endswith("candidates checked")
    assert bar.closed
    assert "2 candidates" in capsys.readouterr().out


def test_advise_shows_its_bar_and_ends_it(bars: list[Bar],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    deal = "hoyle-modernized: 37J.3.4.A 48.4.5J.3 5.5.2Q.4 6.6.3K.6 | " \
           "A29TQK.A279TJQK.A6789T.25789TJQK ^KC"
    assert main(["advise", deal, "--seat", "1", "--samples", "5"]) == 0
    (bar,) = bars
    assert bar.calls == [(k, 5) for k in range(6)]
    assert bar.closed
    assert "advised" in capsys.readouterr().out


def test_match_shows_a_bar_of_deal_plays(bars: list[Bar], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "match.db"
    assert main(["match", "--bots", "random,lowest", "--players", "3", "--deals", "2",
                 "--seed", "1", "--workers", "1", "--out", str(out)]) == 0
    (bar,) = bars
    assert bar.unit == "deal-play"
    assert bar.calls[-1] == (4, 4)


def test_no_bar_where_standard_error_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert pool.tty_progress("deal") is None
