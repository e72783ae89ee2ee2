"""A play names the table's version it was chosen at (the page sends it): chosen before the
table moved on, it is refused with a 409 and nothing is played; without a version a play is
taken as before; a version that is no whole number is a 400."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from starlette.testclient import TestClient

from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from tests.table_helpers import auth, create


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with TestClient(app) as test_client:
        yield test_client
    app.state.hub.close()
    app.state.scheduler.close()


def play(client: TestClient, table: str, token: str, **body: object) -> tuple[int, dict[str, Any]]:
    answer = client.post(f"/api/tables/{table}/play", headers=auth(token), json=body)
    return answer.status_code, answer.json()


def test_a_play_chosen_before_the_table_moved_on_is_refused(client: TestClient) -> None:
    table, tokens = create(client, players=3, seats=["person"] * 3, seed=12)
    state = client.get(f"/api/tables/{table}", headers=auth(tokens[1])).json()
    first = state["to_play"]
    mine = client.get(f"/api/tables/{table}", headers=auth(tokens[first])).json()
    status, after = play(client, table, tokens[first], card=mine["legal"][0],
                         version=mine["version"])
    assert status == 200, after
    assert after["version"] == mine["version"] + 1
    nxt = after["to_play"]
    hers = client.get(f"/api/tables/{table}", headers=auth(tokens[nxt])).json()
    assert hers["legal"]
    status, refused = play(client, table, tokens[nxt], card=hers["legal"][0],
                           version=mine["version"])  # chosen at the version before
    assert status == 409
    assert "moved on" in refused["error"]
    again = client.get(f"/api/tables/{table}", headers=auth(tokens[nxt])).json()
    assert again["version"] == hers["version"]  # nothing was played
    assert again["plays"] == hers["plays"]
    status, bad = play(client, table, tokens[nxt], card=hers["legal"][0], version="7")
    assert status == 400
    assert "version" in bad["error"]
    status, taken = play(client, table, tokens[nxt], card=hers["legal"][0])
    assert status == 200, taken
    assert taken["version"] == hers["version"] + 1
