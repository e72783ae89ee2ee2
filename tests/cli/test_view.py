"""``popejoan view`` (and ``advise``) on the command line: a record with ``--line``, a deal the
turn-up ended, a bad step of the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from popejoan_solver.cli import main


@pytest.mark.parametrize("command", ["view", "advise"])
def test_line_on_a_record_is_named_as_such(command: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """``view RECORD --line`` (and ``advise``) says that ``--line`` plays from a deal and POSITION
    is a game record, never that a good record is broken TOML."""
    assert main(["deal", "--players", "4", "--seed", "7", "--format", "record"]) == 0
    record = tmp_path / "game.txt"
    record.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main([command, str(record), "--seat", "1", "--line", "2C"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --line plays runs from a deal; POSITION is a game record")
    assert err.count("\n") == 1


POPE_ENDS = ("hoyle-modernized+pope_turnup=ends-deal: 34Q.A4.7J.A238J 568J.56K.89.45Q "
             "A79.2TJ.234Q.TK | 2TK.379Q.A56TK.679 ^9D")


DEAL = ("hoyle-modernized: A3.26J.8Q.589QK 9.359.45679.36J 6QK.A4TK.23TK.2 | "
        "24578TJ.7Q.AJ.A47T ^AH")


def test_view_of_a_deal_the_pope_turn_up_ended_is_over(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["advise", POPE_ENDS, "--seat", "1", "--samples", "1"]) == 2
    assert "the deal is over" in capsys.readouterr().err
    assert main(["view", POPE_ENDS, "--seat", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["over"] is True


def test_a_bad_line_step_is_named_as_a_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", DEAL, "--seat", "1", "--line", "ZZ"]) == 2
    err = capsys.readouterr().err
    assert "turnup" not in err
    assert "not a deal" not in err
