"""Standard output (``popejoan_solver/cli/stdout.py``): a terminal that cannot show the suit
symbols gets escapes, not a crash."""

from __future__ import annotations

import os

from tests.contract import assert_contract, run_cli


def test_a_terminal_without_suit_symbols_gets_escapes_not_a_crash() -> None:
    outcome = run_cli(["rules"], env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert_contract(outcome, 0)
    assert "9[\\u2666]" in outcome.stdout  # the quote "9[♦] in hand", escaped
