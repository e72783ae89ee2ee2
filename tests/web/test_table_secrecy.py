"""No answer to a seat or a watcher ever names a card that seat cannot know.

Random sessions of every ruleset (and the readings of the Pope in lieu) and every number of
players are played through the HTTP API by simulated people, beside bots: each person plays a
random legal card, takes or declines a choice at random, now and then sends a card out of turn
or an illegal one. After every answer to every seat and to a watcher, the answer's whole text is
scanned for card names (``3C`` and "three of clubs") outside what the seat may know, read from
the true deal through ``popejoan_solver.seat`` (:mod:`tests.table_helpers`). A few sessions per
ruleset here; many more under ``-m slow``. A planted leak shows the scan catches one.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra: pip install 'popejoan-solver[web]'")

from starlette.testclient import TestClient

from popejoan_solver.model.cards import card_name, iter_mask
from popejoan_solver.model.deal import MAX_PLAYERS, MIN_PLAYERS
from popejoan_solver.model.rules import RULESETS
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.tables import views
from tests.table_helpers import RANKS, SUITS, LeakError, auth, create, scan

RULES = [*RULESETS, "peel+pope_in_lieu=run-continues", "hoyle-modernized+pope_in_lieu=pope-leads"]
BOTS = ("lowest", "random", "hoyle")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with TestClient(app) as test_client:
        yield test_client
    app.state.hub.close()
    app.state.scheduler.close()


def _checked(client: TestClient, table: str, player: int | None, token: str | None,
             text: str, where: str) -> None:
    """Scan ``text`` against the seat's knowledge at the version the answer was made at
    (bots move meanwhile: the answer is fetched again until the versions agree)."""
    live = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    for _ in range(50):
        data = json.loads(text)
        if "version" not in data or data["version"] == live.version:
            if data.get("state", "playing") == "playing" and live.session.phase == "playing":
                scan(text, live.session, player, where)
            return
        text = client.get(f"/api/tables/{table}", headers=auth(token)).text
    raise AssertionError("the table never stood still long enough to check")


def play_session(client: TestClient, rules: str, players: int, rng: random.Random) -> int:
    """One random session played through; the number of answers scanned."""
    kinds = ["person" if rng.random() < 0.6 else rng.choice(BOTS) for _ in range(players)]
    kinds[rng.randrange(players)] = "person"
    table, tokens = create(client, rules=rules, players=players, seats=kinds,
                           deals=rng.randint(1, 2), seed=rng.randrange(1 << 30))
    scanned = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for player, token in [(None, None), *((p - 1, t) for p, t in tokens.items())]:
            answer = client.get(f"/api/tables/{table}", headers=auth(token),
                                params={"knowledge": "1"} if rng.random() < 0.3 else {})
            _checked(client, table, player, token, answer.text, f"{rules}, {players} players")
            scanned += 1
        state = json.loads(answer.text)
        if state["state"] == "over":
            return scanned
        if state["state"] == "between-deals":
            for token in tokens.values():
                client.post(f"/api/tables/{table}/ready", headers=auth(token))
            continue
        if state["to_play"] not in tokens:
            time.sleep(0.005)
            continue
        player, token = state["to_play"], tokens[state["to_play"]]
        mine = client.get(f"/api/tables/{table}", headers=auth(token)).json()
        if rng.random() < 0.15:  # out of turn, or illegal: refused, and says nothing secret
            other = rng.choice(list(tokens.values()))
            wrong = client.post(f"/api/tables/{table}/play", headers=auth(other),
                                json={"card": card_name(rng.randrange(52))})
            assert wrong.status_code in (200, 400, 409)
            _checked(client, table, next(p - 1 for p, t in tokens.items() if t == other),
                     other, wrong.text, "an error")
            continue
        if mine["waiting"] == "choice":
            card = rng.choice(mine["options"])["card"]
        elif mine["legal"]:
            card = rng.choice(mine["legal"])
        else:
            continue
        played = client.post(f"/api/tables/{table}/play", headers=auth(token),
                             json={"card": card})
        assert played.status_code in (200, 409), played.text
        _checked(client, table, player - 1, token, played.text, "a play's answer")
    raise AssertionError("the session did not end")


@pytest.mark.parametrize("rules", RULES)
def test_no_answer_names_a_card_its_seat_cannot_know(client: TestClient, rules: str) -> None:
    rng = random.Random(f"secrecy:{rules}")
    assert play_session(client, rules, rng.randint(MIN_PLAYERS, MAX_PLAYERS), rng) > 0


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULES)
def test_no_answer_names_a_card_its_seat_cannot_know_many(client: TestClient,
                                                          rules: str) -> None:
    rng = random.Random(f"secrecy-slow:{rules}")
    for players in rng.sample(range(MIN_PLAYERS, MAX_PLAYERS + 1), 3):
        play_session(client, rules, players, rng)


def test_the_scan_catches_a_planted_leak(client: TestClient,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Were the public part to carry one card of the dead hand, the scan fails."""
    original = views.public_state

    def leaky(session: Any, *args: Any) -> views.PublicState:
        public = original(session, *args)
        if session.phase == "playing":
            public.data["note"] = f"by the way: {card_name(next(iter_mask(session.deal.dead)))}"
        return public

    monkeypatch.setattr(views, "public_state", leaky)
    with pytest.raises(LeakError, match="names"):
        play_session(client, "hoyle-modernized", 4, random.Random(1))


def test_the_scan_reads_words_too(client: TestClient) -> None:
    table, _tokens = create(client, players=3, seats=["person"] * 3, seed=2)
    session = client.app.state.hub.tables[table].session  # type: ignore[attr-defined]
    hidden = next(iter_mask(session.deal.dealt_hand(1)))
    words = f"{RANKS[hidden % 13]} of {SUITS[hidden // 13]}"
    with pytest.raises(LeakError):
        scan(json.dumps({"text": f"The {words.title()}"}), session, 0, "words")
