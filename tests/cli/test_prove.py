"""``popejoan prove``: Ctrl-C is status 130 and no verdict."""

from __future__ import annotations

from tests.contract import assert_interrupted_past_warnings, interrupt_cli


def test_ctrl_c_during_prove_is_status_130_and_no_verdict() -> None:
    """Ctrl-C during ``prove`` is status 130 and no verdict: z3 must not swallow the signal and
    report every theorem."""
    for argv, after in ((["prove", "--json"], 3.0), (["prove"], 9.0)):
        assert_interrupted_past_warnings(interrupt_cli(argv, after=after))
