"""``popejoan deal``: a record of a seed or index a record cannot hold is written by its cards."""

from __future__ import annotations

import pytest

from popejoan_solver import deal_random
from popejoan_solver.cli import main


@pytest.mark.parametrize(("seed", "index"), [(10**30, 0), (-(10**30), 0), (1, 2**31)])
def test_deal_record_of_a_seed_a_record_cannot_hold(
        seed: int, index: int, capsys: pytest.CaptureFixture[str]) -> None:
    """``deal --format record`` of a seed or index a record cannot hold (``--seed 10**30``,
    ``--index 2**31``) writes the deal by its cards: a record ``check`` accepts."""
    from popejoan_solver.model.record import parse_record_text

    assert main(["deal", "--players", "4", "--seed", str(seed), "--index", str(index),
                 "--format", "record"]) == 0
    record = parse_record_text(capsys.readouterr().out)
    assert record.deals[0].deal == deal_random(4, seed, None, index)
