"""The shared argument readers (``popejoan_solver/cli/args.py``): an option set twice to two
values is refused."""

from __future__ import annotations

import pytest

from popejoan_solver.cli import main


@pytest.mark.parametrize("args", [["rules", "hoyle-modernized+ace=high,ace=low"],
                                  ["deal", "--players", "4", "--seed", "1", "--set", "ace=high",
                                   "--set", "ace=low"],
                                  ["deal", "--players", "4", "--seed", "1", "--rules",
                                   "early-hoyle", "--set", "stock-size=6", "--set",
                                   "stock_size=8"]])
def test_an_option_set_twice_to_two_values_is_refused(
        args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """``--set ace=high --set ace=low`` (or ``+ace=high,ace=low``) is refused, never the last
    value taken silently."""
    assert main(args) == 2
    assert "is set twice" in capsys.readouterr().err
