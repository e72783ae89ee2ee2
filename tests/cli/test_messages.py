"""Messages that say what is wrong, not something else: each test is a message that once
misled (docs/contract.md). The commands run in-process (``run_main``): what is checked is
their message and status, the same in a child process or a call of ``cli.main``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.jobs import store
from popejoan_solver.jobs.batch import BatchFileError, BatchStore
from popejoan_solver.model.board import MAX_COUNT
from popejoan_solver.model.cards import parse_card
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset
from tests.contract import assert_contract, run_main

DEAL_NO_TURNUP = ("hoyle-modernized: A349Q..3J.6JQ 56T..2579K.8K JK.ATJ.4.379T 7.9QK.68Q.A24 "
                  "| 28.234567.AT.5")


def _error(argv: list[str], stdin: bytes | None = None) -> str:
    outcome = run_main(argv, stdin=stdin)
    assert_contract(outcome, 2)
    return outcome.stderr


def test_spaces_around_the_plus_of_a_ruleset_name() -> None:
    """``--rules 'parlett + ace=high'`` said "unknown ruleset 'parlett'"."""
    outcome = run_main(["deal", "--players", "4", "--seed", "1", "--rules",
                       "parlett + ace=high", "--format", "line"])
    assert_contract(outcome, 0)
    assert outcome.stdout.startswith("parlett")
    assert "unknown ruleset 'parlet'" in _error(["deal", "--players", "4", "--seed", "1",
                                                 "--rules", "parlet + ace=high"])


def test_a_record_seed_of_twenty_digits(tmp_path: Path) -> None:
    """A 20-digit seed in the text form was called a notation error of a one-line deal."""
    path = tmp_path / "r.txt"
    for deal, words in (("seed 12345678901234567890 index 0 players 4", "below 2**63"),
                        ("seed 1 index 123456789012345678901234 players 4", "below 2**31"),
                        ("seed 1 index 0 players 12345678901234567890123", "3 to 8")):
        path.write_text(f'[Rules "hoyle-modernized"]\n[Deal "{deal}"]\n', encoding="utf-8")
        message = _error(["check", str(path)])
        assert words in message, message
        assert "one-line deal" not in message


def test_a_board_carried_past_the_limit_names_the_deal(tmp_path: Path) -> None:
    """A board legal at 2**31 whose carried board passed it in deal 2 failed with a message
    that named no deal."""
    rules = get_ruleset("hoyle-modernized")
    pope = parse_card("9D")
    seed = next(s for s in range(1, 200)
                if deal_random(4, s, rules).dead >> pope & 1)  # the Pope is never paid out
    deal = json.loads(run_main(["deal", "--players", "4", "--seed", str(seed)]).stdout)
    deal["board"] = {"pope": MAX_COUNT, "matrimony": 2, "intrigue": 2, "ace": 1, "king": 1,
                     "queen": 1, "jack": 1, "game": 1}
    (tmp_path / "deal.json").write_text(json.dumps(deal), encoding="utf-8")
    record_path = tmp_path / "record.json"
    assert_contract(run_main(["solve", str(tmp_path / "deal.json"), "--seat", "1",
                             "--record", str(record_path)]), 0)
    record = json.loads(record_path.read_text(encoding="utf-8"))
    record["deals"].append({"deal": {"seed": seed + 1, "index": 0, "players": 4}})
    record_path.write_text(json.dumps(record), encoding="utf-8")
    message = _error(["check", str(record_path)])
    assert "deal 2" in message
    assert "2**31" in message


@pytest.mark.parametrize("argv", [
    ["deal", "--players", "4", "--seed", "1", "--index", "9" * 5000],
    ["deal", "--players", "x" * 400, "--seed", "1"],
    ["solve", "--engine", "y" * 400],
    ["match", "--bots", "random,lowest", "--players", "3", "--deals", "1", "--out", "m.db",
     "--seed", "7" * 5000],
])
def test_the_parser_echoes_little_and_names_no_function(argv: list[str]) -> None:
    """argparse echoed 300 characters of the value and named an internal function
    ("invalid _whole value")."""
    message = _error(argv)
    assert "_whole" not in message
    assert "_positive" not in message
    assert len(message) < 220, message
    assert "x" * 81 not in message
    assert "9" * 81 not in message


@pytest.mark.parametrize("other_seed", [1, 2])
def test_two_batches_racing_on_a_new_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          other_seed: int) -> None:
    """Two ``batch`` runs making the same new file at once could print SQLite's "UNIQUE
    constraint failed: meta.key": here the other run makes the file between this run's look
    at the path and its own set-up. The same settings: this run resumes the file; others:
    the settings are named."""
    out = tmp_path / "race.db"
    inspect = store.inspect_path
    racing: list[bool] = []

    def other_run_first(path: Path, *, writing: bool, noun: str = "batch file") -> bool:
        fresh = inspect(path, writing=writing, noun=noun)
        if fresh and not racing:
            racing.append(True)
            BatchStore(out, other_seed, None).close()  # the other run, all of it
        return fresh

    monkeypatch.setattr(store, "inspect_path", other_run_first)
    if other_seed == 1:
        BatchStore(out, 1, None).close()
    else:
        with pytest.raises(BatchFileError, match="was made with seed 2, not 1"):
            BatchStore(out, 1, None)
    assert racing


def test_a_report_folder_holding_a_pipe_names_the_file(tmp_path: Path) -> None:
    """``study --report`` onto a pipe said "not seekable" without naming the file."""
    import os

    report = tmp_path / "report"
    report.mkdir()
    os.mkfifo(report / "seat-values.md")
    message = _error(["study", "seat-values", "--deals", "1", "--players", "3", "--rules",
                      "parlett", "--workers", "1", "--out", str(tmp_path / "s.db"),
                      "--report", str(report)])
    assert "seat-values.md" in message
    assert "not seekable" not in message


@pytest.mark.parametrize("command", [["solve"], ["stops"], ["view", "--seat", "1"]])
def test_a_one_line_deal_without_its_turnup(command: list[str]) -> None:
    """A one-line deal without ``^TURNUP`` was called "no such file"."""
    message = _error([command[0], DEAL_NO_TURNUP, *command[1:]])
    assert "no such file" not in message
    assert "DEAD ^TURNUP" in message


@pytest.mark.parametrize("version", [True, 1.0, "1", None, 2])
def test_a_json_record_version_is_the_number_one(tmp_path: Path, version: object) -> None:
    """``"version": true`` and ``1.0`` were taken as 1."""
    outcome = run_main(["deal", "--players", "4", "--seed", "7", "--format", "record"])
    record = json.loads(outcome.stdout)
    record["version"] = version
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record), encoding="utf-8")
    assert "version" in _error(["check", str(path)])


def test_the_first_command_of_the_readme_does_not_warn() -> None:
    """``popejoan solve`` on the built-in example ended in a ``warning:`` about its split."""
    outcome = run_main(["solve"])
    assert_contract(outcome, 0)
    assert outcome.stderr == ""
    assert outcome.stdout.startswith("the built-in example: Hoyle's dead-hand deal")
    solved = run_main(["solve", "--json"])
    assert solved.stderr == ""
    json.loads(solved.stdout)  # nothing but the JSON
