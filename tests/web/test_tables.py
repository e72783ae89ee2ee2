"""The tables people play at (``/api/tables``): every endpoint and every error, choices asked
of their holder, time-outs played by a bot and marked in the record, the record refereed, the
grade only of finished deals, and a table that outlives its server."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from starlette.testclient import TestClient

from popejoan_solver.model.record import parse_record_text
from popejoan_solver.model.referee import replay
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.tables.hub import TableLimits
from tests.table_helpers import auth, create, scan, send_play, wait_for

LIMITS = Limits(study_workers=1, play_workers=1)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(LIMITS)
    with TestClient(app) as test_client:
        yield test_client
    app.state.hub.close()
    app.state.scheduler.close()


def session_of(client: TestClient, table: str) -> Any:
    return client.app.state.hub.tables[table].session  # type: ignore[attr-defined]


def me(client: TestClient, table: str, token: str | None, **query: str) -> dict[str, Any]:
    answer = client.get(f"/api/tables/{table}", headers=auth(token), params=query)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def test_the_contract_example(client: TestClient) -> None:
    answer = client.post("/api/tables", json={
        "rules": "hoyle-modernized", "players": 4, "seats": ["person", "person", "pimc", "hoyle"],
        "deals": 3, "seed": 7})
    assert answer.status_code == 200
    data = answer.json()
    assert set(data) == {"table", "seats", "watch"}
    assert [s["seat"] for s in data["seats"]] == [1, 2]
    tokens = [s["token"] for s in data["seats"]]
    assert len(set(tokens)) == 2
    assert all(len(t) == 32 for t in tokens)
    assert data["seats"][0]["url"].endswith(f"/table/{data['table']}#{tokens[0]}")
    assert data["watch"].endswith(f"/table/{data['table']}")
    assert tokens[0] not in data["watch"]
    state = me(client, data["table"], tokens[1])
    assert state["seat"] == 2
    assert len(state["hand"]) == 10
    assert state["to_play"] == 1
    assert state["legal"] == []
    assert state["plays"] == []
    assert state["deal"] == 1
    assert state["totals"] == [0, 0, 0, 0]
    assert state["state"] == "playing"
    assert set(state["board"]) >= {"pope", "game"}
    first = me(client, data["table"], tokens[0])
    assert first["legal"]
    assert set(first["legal"]) <= set(first["hand"])
    watcher = me(client, data["table"], None)
    assert watcher["seat"] is None
    assert watcher["hand"] is None
    session = session_of(client, data["table"])
    scan(json.dumps(state), session, 1, "contract example")
    scan(json.dumps(watcher), session, None, "contract example")


def test_bad_specs_are_400_with_one_line(client: TestClient) -> None:
    for body, words in [
        ({"rules": "nope"}, "unknown ruleset"),
        ({"players": 2}, "'players'"),
        ({"players": 3, "seats": ["person", "person"]}, "'seats'"),
        ({"players": 3, "seats": ["person", "robot", "pimc"]}, "seat 2"),
        ({"players": 3, "seats": ["person"] * 3, "deals": 0}, "'deals'"),
        ({"players": 3, "seats": ["person"] * 3, "seed": -1}, "'seed'"),
        ({"players": 3, "seats": ["person"] * 3, "turn_seconds": "soon"}, "'turn_seconds'"),
        ({"colour": "red"}, "unknown key"),
        ([], "JSON object"),
    ]:
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 400, body
        assert words in answer.json()["error"]
    assert client.post("/api/tables", content=b"{").status_code == 400
    assert client.post("/api/tables", content=b"x" * 5000).status_code == 400


def test_unknown_tables_and_bad_tokens(client: TestClient) -> None:
    table, tokens = create(client, players=3, seats=["person", "person", "lowest"], seed=1)
    assert client.get("/api/tables/0123456789abcdef01234567").status_code == 404
    assert client.get("/api/tables/../etc").status_code == 404
    missing = client.get("/api/tables/nope")
    assert missing.status_code == 404
    assert "error" in missing.json()
    for header in ("Bearer " + "0" * 32, "Bearer short", "Basic " + tokens[1], tokens[1]):
        bad = client.get(f"/api/tables/{table}", headers={"Authorization": header})
        assert bad.status_code == 403
        assert "error" in bad.json()
    _other, other_tokens = create(client, players=3, seats=["person", "lowest", "lowest"])
    crossed = client.get(f"/api/tables/{table}", headers=auth(other_tokens[1]))
    assert crossed.status_code == 403
    watcher_play = client.post(f"/api/tables/{table}/play", json={"card": "2C"})
    assert watcher_play.status_code == 403
    assert client.post("/api/tables/nope/play", json={"card": "2C"},
                       headers=auth(tokens[1])).status_code == 404


def test_wrong_turn_illegal_card_and_bad_bodies(client: TestClient) -> None:
    table, tokens = create(client, rules="parlett", players=3,
                           seats=["person", "person", "lowest"], seed=5)
    first = me(client, table, tokens[1])
    wrong = client.post(f"/api/tables/{table}/play", json={"card": first["hand"][0]},
                        headers=auth(tokens[2]))
    assert wrong.status_code == 409
    assert "not seat 2's turn" in wrong.json()["error"]
    held = set(first["hand"]) - set(first["legal"])
    assert held, "parlett: the lowest of a suit only, so some held cards are not leads"
    illegal = client.post(f"/api/tables/{table}/play", json={"card": sorted(held)[0]},
                          headers=auth(tokens[1]))
    assert illegal.status_code == 400
    error = illegal.json()["error"]
    assert "lowest card held of a suit" in error
    assert "Parlett" in error
    assert "legal:" in error
    for body in ({"card": "ZZ"}, {"card": 7}, {}, [], {"card": "+"}):
        answer = client.post(f"/api/tables/{table}/play", json=body, headers=auth(tokens[1]))
        assert answer.status_code == 400, body
    not_held = client.post(f"/api/tables/{table}/play", json={"card": "8D"},
                           headers=auth(tokens[1]))
    assert not_held.status_code == 400
    ready = client.post(f"/api/tables/{table}/ready", headers=auth(tokens[1]))
    assert ready.status_code == 409
    played = client.post(f"/api/tables/{table}/play", json={"card": first["legal"][0]},
                         headers=auth(tokens[1]))
    assert played.status_code == 200
    after = played.json()
    assert after["plays"][0] == {"seat": 1, "card": first["legal"][0], "choice": False}
    assert first["legal"][0] not in after["hand"]


def _play_out(client: TestClient, table: str, tokens: dict[int, str],
              chooser: Any = None) -> dict[str, Any]:
    """Play the session through: each person leads its first legal card; a choice is taken
    by ``chooser(state)`` ("pass" or "+CARD"). Returns the watcher's last state. (Whose turn
    it is comes from the table itself: a run waiting for a choice is shown to its chooser
    alone, and a lead's answer waits until its run is over.)"""
    live = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    sent: list[Any] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        session = live.session
        if session.phase == "over":
            break
        if session.phase == "between-deals":
            for token in tokens.values():
                client.post(f"/api/tables/{table}/ready", headers=auth(token))
            continue
        turn = session.turn()
        if turn is None or turn.player + 1 not in tokens:
            time.sleep(0.005)
            continue
        mine = me(client, table, tokens[turn.player + 1])
        if mine["waiting"] == "choice":
            card = chooser(mine) if chooser else mine["options"][1]["card"]
        elif mine["legal"] and mine["to_play"] == turn.player + 1:
            card = mine["legal"][0]
        else:
            continue
        sent.append(send_play(client, table, tokens[turn.player + 1],
                              {"card": card, "version": mine["version"]}))
    for answer in sent:
        result = answer.result(60)
        assert result.status_code in (200, 409), result.text  # 409: a time-out won the race
    return wait_for(client, table, lambda s: s["state"] == "over")


def test_a_session_with_choices_asked_of_their_holder(client: TestClient) -> None:
    """Spinado: whenever the A♦'s holder plays a card, the table waits for that seat's
    Spin (asked of that seat alone), and the record that comes out is legal."""
    table, tokens = create(client, rules="spinado", players=3, seats=["person"] * 3,
                           deals=2, seed=3)
    asked: list[dict[str, Any]] = []

    def spin(state: dict[str, Any]) -> str:
        asked.append(state)
        options = [o["card"] for o in state["options"]]
        assert options == ["pass", "+AD"]
        assert state["choice"]["card"] == "AD"
        assert "AD" in state["hand"]
        assert state["legal"] == []
        return "+AD" if len(asked) % 2 else "pass"

    last = _play_out(client, table, tokens, spin)
    assert asked, "seed 3 gives Spin a chance"
    record = client.get(f"/api/tables/{table}/record")
    assert record.status_code == 200
    result = replay(parse_record_text(record.text))
    assert result.legal
    assert len(result.deals) == 2
    assert list(result.totals) == last["totals"]
    text = client.get(f"/api/tables/{table}/record", params={"format": "text"}).text
    assert text.startswith('[Rules "spinado"]')


def test_a_choice_out_of_turn_and_badly_named(client: TestClient) -> None:
    table, tokens = create(client, rules="spinado", players=3, seats=["person"] * 3, seed=1)
    session = session_of(client, table)
    for _ in range(200):
        turn = session.turn()
        if turn.kind == "choice" or session.phase != "playing":
            break
        mine = me(client, table, tokens[turn.player + 1])
        send_play(client, table, tokens[turn.player + 1], {"card": mine["legal"][0]})
    assert session.pending is not None, "seed 1 gives Spin a chance at the first lead"
    chooser = session.chooser() + 1
    asked = me(client, table, tokens[chooser])
    assert asked["waiting"] == "choice"
    assert asked["choice"] == {"seat": chooser, "kind": "Spin", "card": "AD"}
    leader = session.player_at(session.position.leader - 1) + 1
    other = next(p for p in tokens if p not in (chooser, leader))
    held = send_play(client, table, tokens[other], {"card": "pass"}, wait=False) \
        if chooser != leader else None
    time.sleep(0.3)
    bad = client.post(f"/api/tables/{table}/play", json={"card": "+KD"},
                      headers=auth(tokens[chooser]))
    assert bad.status_code == 400
    assert "+AD" in bad.json()["error"]
    if held is not None:
        assert not held.done(), "another seat's play waits until the run is over"
    assert client.post(f"/api/tables/{table}/play", json={"card": "pass"},
                       headers=auth(tokens[chooser])).status_code == 200
    if held is not None and session.pending is None:
        refused = held.result(30)
        assert refused.status_code == 409
        assert "Spin" not in refused.text


def test_pope_in_lieu_goes_to_the_holder_under_each_reading(client: TestClient) -> None:
    for reading in ("run-continues", "pope-leads", "pope-leads-after-king"):
        table, tokens = create(client, rules=f"peel+pope_in_lieu={reading}", players=4,
                               seats=["person", "person", "hoyle", "random"], deals=1, seed=9)
        _play_out(client, table, tokens, lambda s: "+9D")
        record = replay(parse_record_text(client.get(f"/api/tables/{table}/record").text))
        assert record.legal


def test_time_outs_are_played_by_a_bot_and_marked(client: TestClient) -> None:
    table, tokens = create(client, players=3, seats=["person", "lowest", "lowest"], seed=2,
                           turn_seconds=0.2)
    state = me(client, table, tokens[1])
    assert state["deadline"] is not None
    assert state["deadline"] <= 0.2
    over = wait_for(client, table, lambda s: s["state"] == "over", 120)
    assert over["state"] == "over"
    record = client.get(f"/api/tables/{table}/record").json()
    tags = record["deals"][0]["tags"]
    assert tags["TimedOut"], "seat 1 never played: a bot played each of its turns"
    plays = record["deals"][0]["plays"]
    for mark in tags["TimedOut"].split():
        number = int(mark.rstrip("-"))
        if not mark.endswith("-"):
            assert plays[number - 1]["seat"] == 1 or plays[number - 1].get("choice")
    assert replay(parse_record_text(json.dumps(record))).legal


def test_between_deals_waits_for_people_then_deals_on(client: TestClient) -> None:
    table, tokens = create(client, players=3, seats=["person", "lowest", "lowest"], deals=2,
                           seed=4)
    while me(client, table, None)["state"] == "playing":
        mine = me(client, table, tokens[1])
        if mine["to_play"] == 1:
            client.post(f"/api/tables/{table}/play", json={"card": mine["legal"][0]},
                        headers=auth(tokens[1]))
        time.sleep(0.01)
    between = me(client, table, tokens[1])
    assert between["state"] == "between-deals"
    assert between["waiting"] == "ready"
    last = between["last_deal"]
    assert sorted(last["hands"]) == ["1", "2", "3"]
    assert last["dead"]
    assert sum(between["totals"]) + sum(last["board_after"].values()) == 0
    assert between["history"] == [last["values"]]
    grade = client.get(f"/api/tables/{table}/grade", headers=auth(tokens[1]))
    assert grade.status_code == 200
    graded = grade.json()
    assert graded["leads"]
    assert all(lead["seat"] == 1 for lead in graded["leads"])
    assert graded["cost"] >= 0
    assert client.get(f"/api/tables/{table}/grade").status_code == 403
    client.post(f"/api/tables/{table}/ready", headers=auth(tokens[1]))
    after = me(client, table, tokens[1])
    assert after["state"] == "playing"
    assert after["deal"] == 2
    assert after["dealer"] == 1
    assert [s["position"] for s in after["seats"]] == [3, 1, 2]
    record = client.get(f"/api/tables/{table}/record").json()
    assert len(record["deals"]) == 1, "the deal under way never appears"


def test_the_record_is_409_before_any_deal_ends(client: TestClient) -> None:
    table, _ = create(client, players=3, seats=["person", "lowest", "lowest"])
    answer = client.get(f"/api/tables/{table}/record")
    assert answer.status_code == 409
    assert "error" in answer.json()


def test_hoyles_final_round_closes_a_hoyle_session(client: TestClient) -> None:
    table, _tokens = create(client, players=3, seats=["lowest"] * 3, deals=2, seed=8)
    over = wait_for(client, table, lambda s: s["state"] == "over", 120)
    assert over["final_round"] is not None
    assert over["final_round"]["settlement"]
    record = client.get(f"/api/tables/{table}/record").json()
    assert "final_round" in record
    assert list(replay(parse_record_text(json.dumps(record))).totals) == over["totals"]


def test_the_seats_knowledge_on_request(client: TestClient) -> None:
    table, tokens = create(client, rules="cassell", players=3,
                           seats=["person", "person", "person"], seed=6)
    dealer = me(client, table, tokens[3], knowledge="1")
    assert dealer["knowledge"] is not None
    seen = set(dealer["knowledge"]["dead"]) | {dealer["turnup"]}
    assert len(seen) == dealer["dead_count"], "cassell: the dealer sees the extra hand"
    eldest = me(client, table, tokens[1], knowledge="1")
    assert eldest["knowledge"]["dead"] == []
    scan(json.dumps(dealer), session_of(client, table), 2, "knowledge")


def test_tables_are_bounded_and_expire(tmp_path: Path) -> None:
    app = create_app(LIMITS, data=tmp_path, table_limits=TableLimits(tables=2,
                                                                    idle_seconds=0.5))
    with TestClient(app) as test_client:
        create(test_client, players=3, seats=["person"] * 3)
        create(test_client, players=3, seats=["person"] * 3)
        full = test_client.post("/api/tables", json={"players": 3, "seats": ["person"] * 3})
        assert full.status_code == 503
        assert "2 tables" in full.json()["error"]
        time.sleep(0.6)
        _table, _ = create(test_client, players=3, seats=["person"] * 3)
        assert len(app.state.hub.tables) == 1
    app.state.hub.close()
    app.state.scheduler.close()


def test_a_table_outlives_its_server(tmp_path: Path) -> None:
    """Every accepted play is stored: a new server on the same folder resumes the table."""
    app = create_app(LIMITS, data=tmp_path)
    with TestClient(app) as test_client:
        table, tokens = create(test_client, players=3, seats=["person", "person", "lowest"],
                               deals=2, seed=12)
        for _ in range(3):
            state = wait_for(test_client, table, lambda s: s["to_play"] in tokens)
            mine = me(test_client, table, tokens[state["to_play"]])
            test_client.post(f"/api/tables/{table}/play", json={"card": mine["legal"][0]},
                             headers=auth(tokens[state["to_play"]]))
        before = {p: me(test_client, table, t) for p, t in tokens.items()}
    app.state.hub.close()
    again = create_app(LIMITS, data=tmp_path)
    with TestClient(again) as test_client:
        after = {p: me(test_client, table, t) for p, t in tokens.items()}
        assert after == before
    again.state.hub.close()
    again.state.scheduler.close()
    app.state.scheduler.close()
