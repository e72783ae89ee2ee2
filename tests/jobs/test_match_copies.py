"""A bot named more than once on ``--bots``: each copy seated by the rotations, standings by
name (``pimc,random,random,random``: one of X against three of Y)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from popejoan_solver.bots.base import BotError
from popejoan_solver.bots.registry import split_bots
from popejoan_solver.jobs.match import read_match, run_match
from popejoan_solver.studies.standings import standings


def test_split_bots_keeps_copies_under_one_spelling() -> None:
    assert split_bots("hoyle,random,RANDOM,random", unique=False) == [
        "hoyle", "random", "random", "random"]
    assert split_bots("pimc:peek,samples=8,pimc:samples=8,peek", unique=False) == [
        "pimc:peek,samples=8", "pimc:peek,samples=8"]
    with pytest.raises(BotError, match="twice"):
        split_bots("hoyle,hoyle")


def test_an_option_at_its_default_is_the_same_bot() -> None:
    """``pimc`` and ``pimc:samples=32`` are one bot: the copies take the first spelling, and
    naming both where each bot is named once is naming it twice."""
    assert split_bots("pimc,random,pimc:samples=32,model=paranoid", unique=False) == [
        "pimc", "random", "pimc"]
    assert split_bots("epimc:top=3,samples=032,epimc", unique=False) == [
        "epimc:top=3,samples=032", "epimc:top=3,samples=032"]
    assert split_bots("hoyle:peek=no,hoyle,random:peek=yes,random:peek", unique=False) == [
        "hoyle:peek=no", "hoyle:peek=no", "random:peek=yes", "random:peek=yes"]
    with pytest.raises(BotError, match="twice"):
        split_bots("pimc,pimc:samples=32")
    assert split_bots("pimc,pimc:samples=16,pimc:peek,random:peek") == [
        "pimc", "pimc:samples=16", "pimc:peek", "random:peek"]


def test_one_against_three(tmp_path: Path) -> None:
    specs = split_bots("hoyle,random,random,random", unique=False)
    out = tmp_path / "m.db"
    run_match(out, specs, 4, 3, 7, workers=1)
    settings, rows = read_match(out)
    assert len(rows) == 3 * 4  # each deal once per rotation: four rotations
    for deal in range(3):
        seats = [row.seats for row in rows if row.session == deal]
        # over the rotations the one hoyle holds every seat of the deal once
        assert sorted(s.index("hoyle") for s in seats) == [0, 1, 2, 3]
        assert all(Counter(s) == {"hoyle": 1, "random": 3} for s in seats)
    result = standings(settings, rows)
    assert [b.name for b in result.bots] in (["hoyle", "random"], ["random", "hoyle"])
    plays = {b.name: b.plays for b in result.bots}
    assert plays == {"hoyle": 12, "random": 36}
    assert len(result.pairs) == 1


def test_match_command_takes_copies(tmp_path: Path) -> None:
    out = tmp_path / "c.db"
    run = [sys.executable, "-m", "popejoan_solver"]
    done = subprocess.run([*run, "match", "--bots", "lowest,random,random", "--players", "3",
                           "--deals", "2", "--seed", "1", "--workers", "1", "--out", str(out)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    shown = subprocess.run([*run, "standings", str(out), "--json"], capture_output=True,
                           text=True, timeout=120, check=True)
    data = json.loads(shown.stdout)
    assert sorted(b["name"] for b in data["bots"]) == ["lowest", "random"]
    assert {b["name"]: b["plays"] for b in data["bots"]} == {"lowest": 6, "random": 12}
