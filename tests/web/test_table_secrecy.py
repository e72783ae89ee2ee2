"""No answer to a seat or a watcher ever names a card that seat cannot know.

Random sessions of every ruleset (and the readings of the Pope in lieu) and every number of
players are played through the HTTP API by simulated people, beside bots: each person plays a
random legal card, takes or declines a choice at random, now and then sends a card out of turn
or an illegal one. After every answer to every seat and to a watcher, the answer's whole text is
scanned for card names (``3C`` and "three of clubs") outside what the seat may know, read from
the true deal through ``popejoan_solver.seat`` (:mod:`tests.table_helpers`; worked out once
for a seat at a point of a session). A seat is not asked again in the same form before the
table moves (an answer is made from the table's events: it would be the same answer), so the
questions are the distinct ones. A few sessions per ruleset here; many more under
``-m slow``. A planted leak shows the scan catches one.
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

from popejoan_solver.model.cards import Mask, card_name, iter_mask
from popejoan_solver.model.deal import MAX_PLAYERS, MIN_PLAYERS
from popejoan_solver.model.rules import RULESETS
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.tables import views
from tests.table_helpers import (
    RANKS,
    SUITS,
    LeakError,
    auth,
    create,
    may_know,
    scan,
    scan_known,
    send_play,
)

RULES = [*RULESETS, "peel+pope_in_lieu=run-continues", "hoyle-modernized+pope_in_lieu=pope-leads"]
BOTS = ("lowest", "random", "hoyle")


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with TestClient(app) as test_client:
        yield test_client
    app.state.hub.close()
    app.state.scheduler.close()


class Scanner:
    """:func:`tests.table_helpers.scan`, once per answer: an answer's text already scanned
    for the same seat at the same point of the same session is the same verdict, and what a
    seat may know there is worked out once (both pure functions of the session's events,
    which only grow, and of the text)."""

    def __init__(self) -> None:
        self.done: set[tuple[int, int, int | None, str]] = set()
        self.known: dict[tuple[int, int, int | None], Mask] = {}
        self.sessions: list[Any] = []  # held, so that no id is reused while the keys stand
        self.asked: set[tuple[int, int, int | None, bool]] = set()
        """(session, version, seat, with knowledge) already asked and scanned."""

    def __call__(self, text: str, session: Any, player: int | None, where: str) -> None:
        at = (id(session), len(session.events), player)
        if (*at, text) in self.done:
            return
        if at not in self.known:
            self.known[at] = may_know(session, player)
            self.sessions.append(session)
        scan_known(text, self.known[at], player, where)
        self.done.add((*at, text))


def _checked(client: TestClient, table: str, player: int | None, token: str | None,
             text: str, where: str, scanner: Scanner) -> None:
    """Scan ``text`` against the seat's knowledge at the version the answer was made at
    (bots move meanwhile: the answer is fetched again until the versions agree)."""
    live = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    for _ in range(50):
        data = json.loads(text)
        session = live.session
        if "version" not in data or data["version"] == session.version_of(player):
            if data.get("state", "playing") == "playing" and session.phase == "playing":
                scanner(text, session, player, where)
            return
        text = client.get(f"/api/tables/{table}", headers=auth(token)).text
    raise AssertionError("the table never stood still long enough to check")


def play_session(client: TestClient, rules: str, players: int, rng: random.Random) -> int:
    """One random session played through; the number of answers scanned. Whose decision the
    table waits for is read from the table itself (a run waiting for a choice is shown to its
    chooser alone); plays are sent from threads (a lead's answer waits for its run's end)."""
    kinds = ["person" if rng.random() < 0.6 else rng.choice(BOTS) for _ in range(players)]
    kinds[rng.randrange(players)] = "person"
    table, tokens = create(client, rules=rules, players=players, seats=kinds,
                           deals=rng.randint(1, 2), seed=rng.randrange(1 << 30))
    live = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    scanned = 0
    scanner = Scanner()
    sent: list[tuple[Any, int, str, str]] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for player, token in [(None, None), *((p - 1, t) for p, t in tokens.items())]:
            form = rng.random() < 0.3
            asked = (id(live.session), live.version, player, form)
            if asked in scanner.asked:
                continue  # the same answer as the one scanned: the table has not moved
            answer = client.get(f"/api/tables/{table}", headers=auth(token),
                                params={"knowledge": "1"} if form else {})
            _checked(client, table, player, token, answer.text, f"{rules}, {players} players",
                     scanner)
            scanner.asked.add(asked)
            scanner.sessions.append(live.session)
            scanned += 1
        for future, player, token, where in [s for s in sent if s[0].done()]:
            reply = future.result()
            assert reply.status_code in (200, 400, 409), reply.text
            _checked(client, table, player, token, reply.text, where, scanner)
        sent = [s for s in sent if not s[0].done()]
        session = live.session
        if session.phase == "over":
            return scanned
        if session.phase == "between-deals":
            for token in tokens.values():
                client.post(f"/api/tables/{table}/ready", headers=auth(token))
            continue
        turn = session.turn()
        if turn is None or turn.player + 1 not in tokens:
            time.sleep(0.005)
            continue
        player, token = turn.player + 1, tokens[turn.player + 1]
        mine = client.get(f"/api/tables/{table}", headers=auth(token)).json()
        if rng.random() < 0.15:  # out of turn, or illegal: refused, and says nothing secret
            other = rng.choice(list(tokens))
            wrong = send_play(client, table, tokens[other],
                              {"card": card_name(rng.randrange(52))}, wait=False)
            sent.append((wrong, other - 1, tokens[other], "an error"))
            continue
        if mine["waiting"] == "choice":
            card = rng.choice(mine["options"])["card"]
        elif mine["legal"] and mine["to_play"] == player:
            card = rng.choice(mine["legal"])
        else:
            continue
        played = send_play(client, table, token, {"card": card, "version": mine["version"]})
        sent.append((played, player - 1, token, "a play's answer"))
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


def test_the_scan_catches_a_choice_shown_to_all(client: TestClient,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Were a run waiting for a choice shown to everyone (its cards so far, whose choice, of
    which card), the scan fails."""
    original = views.public_state

    def shown(session: Any, result: Any, deadline: Any, at_choice: bool = False
              ) -> views.PublicState:
        return original(session, result, deadline, at_choice or session.chooser() is not None)

    def sessions() -> None:
        for seed in range(20):
            play_session(client, "spinado", 3, random.Random(seed))

    monkeypatch.setattr(views, "public_state", shown)
    with pytest.raises(LeakError, match="names"):
        sessions()
