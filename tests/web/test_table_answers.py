"""A table's answers are built once per change: the public part once, each seat's knowledge
once per seat, shared by the seat's play answer, its state and its stream; and they are the
answers :func:`views.answer_for` builds from scratch, at every change of random sessions."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from popejoan_solver.web.tables import views
from popejoan_solver.web.tables.hub import Live
from popejoan_solver.web.tables.session import By, Event, EventKind, Session
from popejoan_solver.web.tables.spec import read_spec


def table(rules: str, players: int, seed: int) -> Live:
    spec = read_spec({"rules": rules, "players": players, "seats": ["person"] * players,
                      "deals": 2, "seed": seed, "pace": 0})
    return Live("0" * 24, Session(spec), (None,) * players, time.time())


def decide(live: Live, rng: random.Random) -> None:
    session = live.session
    turn = session.turn()
    if turn is None:
        for player in session.waiting_for():
            session.apply(Event(EventKind.READY, player, 0, By.PERSON))
    elif turn.kind == "lead":
        card = rng.choice(session.position.legal_leads())
        session.apply(Event(EventKind.LEAD, turn.player, card, By.PERSON))
    else:
        session.apply(Event(EventKind.CHOOSE, turn.player, rng.randrange(2), By.PERSON))


def test_each_seat_is_known_once_per_change(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three people, each asking twice (its stream and its play's answer) and a watcher: three
    knowledges built per change, none for the watcher."""
    built: list[int] = []
    original = views.seat_knowledge

    def counted(session: Session, player: int) -> Any:
        built.append(player)
        return original(session, player)

    monkeypatch.setattr(views, "seat_knowledge", counted)
    live, rng = table("hoyle-modernized", 3, 5), random.Random(5)
    for _ in range(6):
        built.clear()
        for player in (0, 1, 2, None, 0, 1, 2, None):
            live.answer(player)
        live.answer(1, with_knowledge=True)
        assert sorted(built) == [0, 1, 2]
        decide(live, rng)


@pytest.mark.parametrize(("rules", "players"), [("hoyle-modernized", 3), ("spinado", 4),
                                                ("peel+pope_in_lieu=run-continues", 5)])
def test_the_answers_are_those_built_from_scratch(rules: str, players: int) -> None:
    """At every change of two random deals (choices taken or declined, the deal's end, the
    readiness between deals), each seat's and the watcher's answer is the one built anew."""
    live, rng = table(rules, players, 11), random.Random(rules)
    changes = 0
    while live.session.phase != "over":
        for player in [None, *range(players)]:
            for knows in (False, True):
                cached = live.answer(player, knows)
                fresh = views.answer_for(live.session, player, live.result(), None, knows)
                assert cached == fresh
        decide(live, rng)
        changes += 1
    assert changes > players


def test_a_bad_seat_is_still_refused() -> None:
    live = table("hoyle-modernized", 3, 1)
    with pytest.raises(views.TableError, match="no such seat"):
        live.answer(3)


def test_the_knowledge_is_built_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the server, the people's knowledge comes from the view workers: were the
    server's own process to build it, this test's broken ``seat_knowledge`` would fail the
    answers; they are the answers built from scratch."""
    from starlette.testclient import TestClient

    from popejoan_solver.web.app import create_app
    from popejoan_solver.web.limits import Limits
    from tests.table_helpers import auth, create

    app = create_app(Limits(study_workers=1, play_workers=1))
    with TestClient(app) as client:
        table_id, tokens = create(client, players=3, seats=["person"] * 3, seed=9)
        live = app.state.hub.tables[table_id]
        expected = {p: views.answer_for(live.session, p - 1, live.result(), None)
                    for p in tokens}

        def refused(session: Session, player: int) -> Any:
            raise AssertionError("the seat's knowledge was built on the event loop")

        monkeypatch.setattr(views, "seat_knowledge", refused)
        for p, token in tokens.items():
            answer = client.get(f"/api/tables/{table_id}", headers=auth(token))
            assert answer.status_code == 200, answer.text
            assert answer.json() == expected[p]
        mine = client.get(f"/api/tables/{table_id}", headers=auth(tokens[1])).json()
        seat = mine["to_play"]
        played = client.post(f"/api/tables/{table_id}/play", headers=auth(tokens[seat]),
                             json={"card": client.get(f"/api/tables/{table_id}",
                                                      headers=auth(tokens[seat])).json()
                                   ["legal"][0]})
        assert played.status_code == 200, played.text
        assert len(played.json()["plays"]) >= 1
    app.state.hub.close()
    app.state.scheduler.close()
