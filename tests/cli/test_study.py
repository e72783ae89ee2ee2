"""``popejoan study``: Ctrl-C keeps the rows solved; options it would ignore or fail on late are
refused before any work."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.contract import assert_contract, assert_interrupted, interrupt_cli, run_cli


def test_a_study_stops_at_ctrl_c_and_keeps_its_rows(tmp_path: Path) -> None:
    out = tmp_path / "study.db"
    outcome = interrupt_cli(["study", "seat-values", "--deals", "300", "--players", "3",
                             "--rules", "early-hoyle", "--workers", "2", "--out", str(out)],
                            after=4.0)
    assert_interrupted(outcome)  # and no half report on stdout
    time.sleep(0.5)
    with pytest.raises(ProcessLookupError):
        os.killpg(outcome.pid, 0)  # no worker left behind
    from popejoan_solver.jobs.batch import read_rows
    assert list(read_rows(out))  # the rows solved before the signal are kept


def test_study_options_it_would_ignore_or_fail_on_late_are_refused_first(tmp_path: Path) -> None:
    out = str(tmp_path / "s.db")
    assert_contract(run_cli(["study", "hoyle-maxims", "--deals", "1", "--players", "3",
                             "--rules", "parlett", "--out", out]), within=10)
    (tmp_path / "file").write_text("x")
    for report in ("", str(tmp_path / "file")):
        assert_contract(run_cli(["study", "seat-values", "--deals", "1", "--players", "3",
                                 "--rules", "parlett", "--out", out, "--report", report]),
                        within=10)
    assert not Path(out).exists()  # refused before any work
