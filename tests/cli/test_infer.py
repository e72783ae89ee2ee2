"""``popejoan view --infer MODEL`` and ``popejoan advise --infer MODEL``: what the other
players' leads tell, as text and JSON; a bad model is one error line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from popejoan_solver.bots.driver import play_deal, session_record
from popejoan_solver.bots.registry import make_bot
from popejoan_solver.cli import main
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.record import record_to_text
from popejoan_solver.model.rules import get_ruleset


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    deal = deal_random(4, 29, get_ruleset("hoyle-modernized"), 0)
    bots = [make_bot("hoyle") for _ in range(4)]
    played = play_deal(deal, bots, 1)
    path = tmp_path_factory.mktemp("records") / "deal.txt"
    path.write_text(record_to_text(session_record([played], ["a", "b", "c", "d"])))
    return path


def test_view_infer_json(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(record), "--seat", "2", "--after", "6", "--infer", "hoyle",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    found = data["inference"]
    assert found["model"] == "hoyle"
    assert found["places"] == ["1", "3", "4", "dead"]
    assert found["leads_weighed"] > 0
    assert 0 < found["effective_deals"] <= found["deals"]
    for row in found["cards"]:
        assert sum(row["inferred"].values()) == pytest.approx(1, abs=1e-3)
        assert sum(row["uniform"].values()) == pytest.approx(1, abs=1e-3)
    assert any(abs(row["inferred"][p] - row["uniform"][p]) > 0.05
               for row in found["cards"] for p in found["places"])


def test_view_infer_uniform_changes_nothing(record: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(record), "--seat", "2", "--after", "6", "--infer", "uniform",
                 "--json"]) == 0
    found = json.loads(capsys.readouterr().out)["inference"]
    for row in found["cards"]:
        assert row["inferred"] == row["uniform"]


def test_view_infer_text_and_bad_model(record: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(record), "--seat", "2", "--after", "6", "--infer", "hoyle:0.7"]) == 0
    out = capsys.readouterr().out
    assert "what the other players' leads tell (opponent model hoyle:0.7" in out
    assert main(["view", str(record), "--seat", "2", "--infer", "softmax"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:")
    assert err.count("\n") == 1


def test_advise_infer(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["advise", str(record), "--seat", "3", "--after", "7", "--samples", "12",
                 "--infer", "hoyle", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    valued = data["inference"]["valued"]
    assert [lead["card"] for lead in valued["leads"]] == [lead["card"] for lead in data["leads"]]
    assert valued["advised"] in [lead["card"] for lead in data["leads"]]
    assert valued["deals"] == 12
    assert main(["advise", str(record), "--seat", "3", "--after", "7", "--samples", "8",
                 "--infer", "hoyle"]) == 0
    out = capsys.readouterr().out
    assert "the leads over that posterior (8 deals valued)" in out
