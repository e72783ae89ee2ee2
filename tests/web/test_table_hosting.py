"""What the pages are offered: the bots a table can seat (every one of them accepted by
``POST /api/tables``, the default first), and the study table's answer once a deal is over
(every hand and the dead hand shown, even in a player's view)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from starlette.testclient import TestClient

from popejoan_solver.bots.registry import BOTS
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.tables.spec import DEFAULT_BOT


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with TestClient(app) as test_client:
        yield test_client
    app.state.hub.close()
    app.state.scheduler.close()


def test_the_options_name_the_bots_a_table_seats(client: TestClient) -> None:
    options = client.get("/api/options").json()
    assert options["table_bot"] == DEFAULT_BOT
    assert options["table_bots"][0] == DEFAULT_BOT
    assert set(options["table_bots"]) <= set(BOTS)
    assert set(BOTS) - set(options["table_bots"]) <= {"ismcts"}  # only without OpenSpiel
    assert {"rules", "players", "bots"} <= set(options)  # the study page's keys kept
    for bot in options["table_bots"]:
        made = client.post("/api/tables", json={"players": 3, "seats": ["person", bot, bot],
                                                "pace": 0, "seed": 1})
        assert made.status_code == 200, (bot, made.text)


def test_a_finished_deal_shows_every_hand_in_a_players_view(client: TestClient) -> None:
    deal = deal_to_line(deal_random(3, 4))
    line: list[str] = []
    for _ in range(60):
        table = client.post("/api/table", json={"deal": deal, "line": line}).json()
        if table["over"]:
            break
        line.append(table["leads"][0]["runs"][0]["step"])
    playing = client.post("/api/table", json={"deal": deal, "line": line[:-1],
                                              "view": "player", "seat": 2}).json()
    assert [s["hand"] is None for s in playing["seats"]] == [True, False, True]
    assert playing["dead"] is None
    over = client.post("/api/table", json={"deal": deal, "line": line, "view": "player",
                                           "seat": 2}).json()
    assert over["over"]
    assert all(s["hand"] is not None and len(s["hand"]) == s["count"] for s in over["seats"])
    assert over["dead"] is not None
    assert len(over["dead"]) == over["dead_count"]
