"""Text from a file never reaches a terminal as control characters (docs/contract.md, "Text
shown"): a record's names and tags holding them are refused where the record is read, a match
or batch file's names likewise, and every error line escapes them (``\\x1b``, ``\\u202e``).

The commands run in-process (``run_main``): what is checked is the text they print and their
status, the same whether the command is a child process or a call of ``cli.main``."""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

import pytest

from popejoan_solver.jobs.batch import run_batch
from popejoan_solver.jobs.match import run_match
from popejoan_solver.model.errors import CONTROL_CHARACTERS, clip, escape_controls
from tests.contract import Outcome, assert_contract, run_main

HOSTILE = {
    "clear screen": "Ann\x1b[2J\x1b[H",
    "window title": "Bob\x1b]0;owned\x07",
    "bell": "Cat\x07\x07",
    "right-to-left override": "Dan\u202eevil",
    "C1 CSI": "Eve\x9b31m",
}


@functools.cache
def _record_text() -> str:
    """A record of one seeded deal, as ``popejoan deal --format record`` writes it (made once
    a process: each test changes its own copy)."""
    outcome = run_main(["deal", "--players", "4", "--seed", "7", "--format", "record"])
    assert_contract(outcome, 0)
    return outcome.stdout


def _record() -> dict[str, object]:
    data: dict[str, object] = json.loads(_record_text())
    return data


def _no_controls(outcome: Outcome) -> None:
    """Nothing a terminal would act on, in either stream."""
    for stream in (outcome.stdout, outcome.stderr):
        assert CONTROL_CHARACTERS.search(stream.replace("\n", "")) is None, stream


@pytest.mark.parametrize("payload", list(HOSTILE), ids=list(HOSTILE))
@pytest.mark.parametrize("place", ["player", "tag", "deal tag"])
def test_check_refuses_a_record_whose_text_holds_controls(tmp_path: Path, payload: str,
                                                          place: str) -> None:
    """``check`` printed players' names and tags raw: ``ESC [2J`` cleared the screen."""
    data = _record()
    text = HOSTILE[payload]
    if place == "player":
        data["players"] = ["Ann", "Bob", text, "Dan"]
    elif place == "tag":
        data["tags"] = {"Event": text}
    else:
        deals = data["deals"]
        assert isinstance(deals, list)
        deals[0]["tags"] = {"Round": text}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for argv in (["check", str(path)], ["grade", str(path)], ["view", str(path), "--seat", "1"]):
        outcome = run_main(argv)
        assert_contract(outcome, 2)
        assert "control character" in outcome.stderr
        _no_controls(outcome)


@pytest.mark.parametrize("payload", list(HOSTILE), ids=list(HOSTILE))
def test_the_text_form_is_refused_alike(tmp_path: Path, payload: str) -> None:
    quoted = json.dumps(HOSTILE[payload], ensure_ascii=True)  # the text form's own escapes
    path = tmp_path / "record.txt"
    path.write_text(f'[Rules "hoyle-modernized"]\n[Player {quoted}]\n[Player "B"]\n'
                    f'[Player "C"]\n[Deal "seed 7 index 0 players 3"]\n', encoding="utf-8")
    outcome = run_main(["check", str(path)])
    assert_contract(outcome, 2)
    assert "the name of player 1 holds the control character" in outcome.stderr
    _no_controls(outcome)


def test_an_error_line_escapes_what_it_echoes(tmp_path: Path) -> None:
    """A file name is echoed in the error (here unclipped by the batch reader)."""
    name = str(tmp_path / "no\x1b]0;owned\x07such.db")
    outcome = run_main(["stats", name])
    assert_contract(outcome, 2)
    assert "no\\x1b]0;owned\\x07such.db" in outcome.stderr
    _no_controls(outcome)


@pytest.fixture(scope="module")
def match_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("match") / "m.db"
    run_match(out, ["hoyle", "random"], 3, 2, 1, workers=1)
    return out


def test_a_match_file_whose_bot_names_hold_controls_is_refused(match_file: Path,
                                                              tmp_path: Path) -> None:
    """``standings`` printed a match file's bot names raw."""
    hostile = tmp_path / "m.db"
    hostile.write_bytes(match_file.read_bytes())
    with sqlite3.connect(hostile) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'bots'",
                   (json.dumps(["hoyle\x1b[2J", "random"]),))
    db.close()
    outcome = run_main(["standings", str(hostile)])
    assert_contract(outcome, 2)
    assert "control characters" in outcome.stderr
    _no_controls(outcome)


def test_a_batch_row_whose_ruleset_holds_controls_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "b.db"
    run_batch(out, ["parlett"], [3], 1, 1, workers=1)
    with sqlite3.connect(out) as db:
        db.execute("UPDATE deals SET rules = ?", ("parlett\x1b[2J",))
    db.close()
    outcome = run_main(["stats", str(out)])
    assert_contract(outcome, 2)
    assert "control characters" in outcome.stderr
    _no_controls(outcome)


def test_escaping() -> None:
    assert escape_controls("a\x1b[2Jb\x07\u202ec\x9b\u2066d ♠ é") == \
        "a\\x1b[2Jb\\x07\\u202ec\\x9b\\u2066d ♠ é"
    assert clip("x\x1b" * 100, 10) == "x\\x1bx\\x1bx\\x1bx..."  # cut, then escaped
    assert escape_controls("plain, with suits ♣♦♥♠") == "plain, with suits ♣♦♥♠"


def test_golden_records_hold_no_controls() -> None:
    """Valid records stay valid: the golden records still read."""
    from popejoan_solver.model.record import parse_record_text

    golden = Path(__file__).parents[1] / "golden"
    records = sorted(golden.glob("record-*.json"))
    assert records
    for path in records:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") == "popejoan-record":
            parse_record_text(path.read_text(encoding="utf-8"))
