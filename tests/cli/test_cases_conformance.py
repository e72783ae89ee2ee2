"""``popejoan cases --conformance``: the conformance examples (studies/conformance.py) checked
from the command line, one line each, their mismatches under them, status 1 when any
disagrees; bad input is one ``error:`` line and status 2. ``popejoan cases`` without the flag
is pinned by the golden invocations."""

from __future__ import annotations

import json
from pathlib import Path

from popejoan_solver.studies.conformance import examples_folder

from ..contract import assert_contract, run_cli


def test_every_example_agrees_with_every_backend() -> None:
    outcome = run_cli(["cases", "--conformance"], timeout=300)
    assert_contract(outcome, 0)
    lines = outcome.stdout.splitlines()
    count = sum(1 for f in examples_folder().iterdir() if f.name.endswith(".toml"))
    assert lines[-1] == f"{count} of {count} conformance examples agree with every backend"
    assert len(lines) == count + 1


def test_a_disagreeing_example_names_each_backend_and_the_payment(tmp_path: Path) -> None:
    text = (examples_folder() / "parlett-spinado-spin.toml").read_text(encoding="utf-8")
    (tmp_path / "x.toml").write_text(
        text.replace('amount = 12, kind = "game"', 'amount = 11, kind = "game"'),
        encoding="utf-8")
    outcome = run_cli(["cases", "--conformance", "--dir", str(tmp_path)], timeout=120)
    assert_contract(outcome, 1)
    assert "parlett-spinado-spin  DISAGREES" in outcome.stdout
    for backend in ("model", "python engine", "C core", "z3 settlement"):
        assert f"\n  {backend}: " in outcome.stdout
    assert "model: payment ('game', 'seat 1', 11, 'game'): expected paid, found not paid" \
        in outcome.stdout
    outcome = run_cli(["cases", "--conformance", "--dir", str(tmp_path), "--json"],
                      timeout=120)
    assert_contract(outcome, 1)
    [result] = json.loads(outcome.stdout)["conformance"]
    assert not result["agrees"]
    assert {m["backend"] for m in result["mismatches"]} == {
        "model", "python engine", "C core", "z3 settlement"}


def test_bad_folders_and_files_are_one_error_line(tmp_path: Path) -> None:
    assert_contract(run_cli(["cases", "--conformance", "--dir", str(tmp_path / "none")]))
    assert_contract(run_cli(["cases", "--conformance", "--dir", str(tmp_path)]))
    (tmp_path / "a.toml").write_text("name = \n", encoding="utf-8")
    assert_contract(run_cli(["cases", "--conformance", "--dir", str(tmp_path)]))
    text = (examples_folder() / "parlett-spinado-spin.toml").read_text(encoding="utf-8")
    (tmp_path / "a.toml").write_text(text.replace('kind = "spin" }', 'kind = "spun" }'),
                                     encoding="utf-8")
    assert_contract(run_cli(["cases", "--conformance", "--dir", str(tmp_path)]))
