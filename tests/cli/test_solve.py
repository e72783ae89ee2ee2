"""``popejoan solve``: Ctrl-C stops a long search within a second; a record it cannot write is
refused before the search."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from tests.contract import ROOT, assert_interrupted, interrupt_cli


def test_a_long_solve_stops_at_ctrl_c_within_a_second() -> None:
    """A search that runs for minutes, on one thread and on two, by each engine: early-hoyle
    with the Pope in lieu of a stop, 3 players, seed 136, made long by a transposition table
    of one entry for the fast engine (plain early-hoyle's seed 136, once 8 s, takes 0.7 s so
    since fact 5); the reference never finishes it."""
    deal = subprocess.run([sys.executable, "-m", "popejoan_solver", "deal", "--players", "3",
                           "--seed", "136", "--rules", "early-hoyle+pope_in_lieu=pope-leads",
                           "--format", "line"],
                          capture_output=True, text=True, check=True, cwd=ROOT).stdout.strip()
    for engine in (["--tt-entries", "1"], ["--engine", "reference"]):
        for threads in ("1", "2"):
            # a second, and half a second for a machine busy with the other tests' processes
            assert_interrupted(interrupt_cli(["solve", deal, *engine, "--threads", threads,
                                              "--json"], after=2.0), within=2.0)


def test_solve_refuses_a_record_it_cannot_write_before_solving(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``solve --record`` to a path it cannot write (a missing folder, a folder) is refused before
    the search, naming the path given, never a temporary file."""
    import popejoan_solver.cli.solve as solve_command

    def no_search(*args: object, **kwargs: object) -> object:
        raise AssertionError("solved before the record's path was checked")

    monkeypatch.setattr(solve_command, "solve", no_search)
    for path in (tmp_path / "missing" / "x.txt", tmp_path):
        assert main(["solve", "--record", str(path)]) == 2
        err = capsys.readouterr().err.splitlines()[-1]  # after the example deal's warning
        assert err.startswith("error: --record ")
        assert ".tmp" not in err
