"""``popejoan case`` and ``popejoan cases``: an internal error of a proof case (status 4)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from popejoan_solver.analysis import cases
from popejoan_solver.cli import main
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Position

from .conftest import ROOT
from .contract import assert_contract, run_cli

PUBLISHED = ROOT / "cases"
REFUTED = "parlett-kings-not-stops"
"""A proof case whose theorem is refuted by a line replayed through the rules model (quick)."""

REFUSE_EVERY_LINE = '''
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Position

def _refuse(self, lead):
    raise IllegalPlayError("refused by the test")

Position.outcomes = _refuse
'''
"""A ``sitecustomize`` that plants a bug: the rules model refuses every line the prover found."""


@pytest.fixture
def fresh_proofs() -> Iterator[None]:
    """Proofs are cached per ruleset within a process: each test proves afresh."""
    cases._proved.cache_clear()
    yield
    cases._proved.cache_clear()


@pytest.fixture
def one_proof_case(tmp_path: Path) -> Path:
    """A cases directory holding only the quick proof case."""
    folder = tmp_path / "cases"
    folder.mkdir()
    shutil.copy(PUBLISHED / f"{REFUTED}.toml", folder)
    return folder


def _refuse_every_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(_self: Position, _lead: int) -> list[object]:
        raise IllegalPlayError("refused by the test")
    monkeypatch.setattr(Position, "outcomes", refuse)


@pytest.mark.usefixtures("fresh_proofs")
@pytest.mark.parametrize("command", ["case", "cases"])
def test_a_proof_case_with_an_internal_error_is_status_4_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        one_proof_case: Path, command: str) -> None:
    _refuse_every_line(monkeypatch)
    argv = [command, *([REFUTED] if command == "case" else []), "--dir", str(one_proof_case)]
    assert main(argv) == 4
    captured = capsys.readouterr()
    assert captured.err.startswith("error: internal error: the rules model cannot replay a line")
    assert captured.err.count("\n") == 1
    assert "a bug of popejoan" in captured.err
    assert "agree" not in captured.out


def test_cases_with_an_internal_error_keeps_the_contract_in_a_process(
        tmp_path: Path, one_proof_case: Path) -> None:
    """The whole command in its own process: no traceback, one line, status 4."""
    planted = tmp_path / "planted"
    planted.mkdir()
    (planted / "sitecustomize.py").write_text(REFUSE_EVERY_LINE, encoding="utf-8")
    outcome = run_cli(["cases", "--dir", str(one_proof_case)],
                      env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(planted)})
    assert_contract(outcome, 4)
    assert outcome.stderr.startswith("error: internal error: ")
