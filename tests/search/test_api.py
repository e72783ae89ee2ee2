"""The search's Python API checks (``popejoan_solver/search/api.py``): a table size past this
machine's memory is refused in the API and the CLI."""

from __future__ import annotations

import pytest

from popejoan_solver.cli import main
from popejoan_solver.model.errors import PopeJoanError


def test_a_table_size_past_this_machines_memory_is_refused_in_the_api_and_the_cli(
        capsys: pytest.CaptureFixture[str]) -> None:
    # 2**40 entries (16 TiB) was accepted: a table grows on demand, so a typo surfaced only as
    # memory exhausted in the middle of a long search.
    from popejoan_solver.search.api import check_tt_entries, tt_entries_limit

    limit = tt_entries_limit()
    assert 1 << 20 <= limit < 1 << 40  # this machine has gigabytes, not terabytes
    check_tt_entries(limit)
    with pytest.raises(PopeJoanError, match="must be from 1 to"):
        check_tt_entries(limit + 1)
    code = main(["solve", "--tt-entries", str(1 << 40)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    errors = [line for line in err.splitlines() if not line.startswith("warning:")]
    assert len(errors) == 1
    assert errors[0].startswith("error: tt_entries (--tt-entries) must be from 1 to")
