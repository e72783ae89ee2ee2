"""``popejoan grade RECORD``: the record graded lead by lead, and its contract for bad input."""

from __future__ import annotations

import json
from pathlib import Path

from popejoan_solver.cli import main
from popejoan_solver.model.cards import card_name
from tests.conftest import ROOT
from tests.contract import assert_contract, run_cli

SESSION = ROOT / "tests" / "golden" / "record-session.json"


def _solved_record(tmp_path: Path, seed: int = 3) -> Path:
    deal, record = tmp_path / "deal.json", tmp_path / "record.json"
    outcome = run_cli(["deal", "--players", "4", "--seed", str(seed)])
    deal.write_text(outcome.stdout, encoding="utf-8")
    assert main(["solve", str(deal), "--seat", "1", "--record", str(record)]) == 0
    return record


def test_the_solved_line_is_graded_and_its_line_seat_never_loses(tmp_path: Path) -> None:
    record = _solved_record(tmp_path)
    outcome = run_cli(["grade", str(record), "--json"])
    assert_contract(outcome, 0)
    data = json.loads(outcome.stdout)
    assert data["legal"] is True
    assert data["leads"]
    for lead in data["leads"]:
        assert set(lead) >= {"deal", "play", "seat", "card", "kept", "best", "cost"}
        assert lead["cost"] == lead["best"] - lead["kept"] >= 0
        if lead["seat"] == 1:  # the line defends seat 1's guaranteed value
            assert lead["cost"] == 0
    players = {row["seat"]: row for row in data["players"]}
    assert players[1]["errors"] == 0
    assert sum(row["leads"] for row in data["players"]) == len(data["leads"])
    assert sum(row["errors"] for row in data["players"]) == sum(
        1 for lead in data["leads"] if lead["cost"] > 0)
    only = json.loads(run_cli(["grade", str(record), "--json", "--seat", "2"]).stdout)
    assert {lead["seat"] for lead in only["leads"]} <= {2}
    assert [row["seat"] for row in only["players"]] == [2]


def test_a_session_is_graded_deal_by_deal() -> None:
    outcome = run_cli(["grade", str(SESSION), "--json"])
    assert_contract(outcome, 0)
    data = json.loads(outcome.stdout)
    record = json.loads(SESSION.read_text(encoding="utf-8"))
    assert {lead["deal"] for lead in data["leads"]} == set(range(1, len(record["deals"]) + 1))
    text = run_cli(["grade", str(SESSION)])
    assert "leads graded" in text.stdout


def test_an_illegal_record_is_not_graded(tmp_path: Path) -> None:
    record = json.loads(_solved_record(tmp_path).read_text(encoding="utf-8"))
    plays = record["deals"][0]["plays"]
    plays[0], plays[1] = plays[1], plays[0]  # a card played before its lead
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record), encoding="utf-8")
    outcome = run_cli(["grade", str(bad), "--json"])
    assert_contract(outcome, 1)
    data = json.loads(outcome.stdout)
    assert data["legal"] is False
    assert data["error"]["deal"] == 1
    assert data["leads"] == []
    assert "not graded" in run_cli(["grade", str(bad)]).stdout


def test_bad_input_is_one_error_line(tmp_path: Path) -> None:
    assert_contract(run_cli(["grade", str(tmp_path / "missing.json")]), 2)
    assert_contract(run_cli(["grade", str(SESSION), "--seat", "9"]), 2)
    assert_contract(run_cli(["grade", str(SESSION), "--time-limit", "nan"]), 2)
    assert_contract(run_cli(["grade", "-"], stdin=b"{not json"), 2)


def test_the_text_names_each_lead(tmp_path: Path) -> None:
    outcome = run_cli(["grade", str(_solved_record(tmp_path))])
    assert_contract(outcome, 0)
    first = outcome.stdout.splitlines()[0]
    assert first.startswith("deal 1 play   1: player 1 (seat 1) leads ")
    assert any(card_name(c) in first for c in range(52))
