"""A choice inside a run (Spin; the Pope in lieu of a stop) tells no one but its chooser that
it is pending, and a declined one is never told at all.

Face to face, the holder of the A♦ in Spinado "may turn any card he plays into a stop by
promptly covering it" (Parlett, *The Penguin Book of Card Games*, "Spinado"), and under Peel's
variation "Pope Joan is sometimes allowed to be played at any time in lieu of a stop" (Peel,
*Round Games with Cards*, "Pope Joan"): the others see the card when it is played, and nothing
when its holder lets the moment pass. So at a table served over HTTP, while a choice waits, the
watcher and every seat but the chooser (the leader too) get exactly the answer they had before
the lead, on ``GET``, with ``?knowledge=1`` and on the stream; a play sent meanwhile is
answered only once the run is over; and the versions they see count runs, never choices
declined. Real uvicorn on loopback, real HTTP (``httpx``), the server's own tables inspected
only to know when a choice is pending; and, without a server, every choice of random sessions
of each ruleset with choices (every reading of the Pope in lieu), and a server started again
in the middle of one.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
httpx = pytest.importorskip("httpx", reason="the tests' HTTP client")

from popejoan_solver.model.record import parse_record_text  # noqa: E402
from popejoan_solver.model.referee import replay  # noqa: E402
from popejoan_solver.web.app import create_app  # noqa: E402
from popejoan_solver.web.limits import Limits  # noqa: E402
from tests.table_helpers import auth  # noqa: E402
from tests.web_helpers import serving  # noqa: E402

IGNORED = ("deadline",)
"""The seconds left change on their own; every other field must be the same."""


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with serving(app) as url:
        yield url, app
    app.state.hub.close()


def _same(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    """The fields (deadline aside) where two answers differ."""
    keys = (set(a) | set(b)) - set(IGNORED)
    return {k: (a.get(k), b.get(k)) for k in sorted(keys) if a.get(k) != b.get(k)}


@dataclass
class Scene:
    """A table stopped at a choice whose chooser is not the leader, with every asker's answers
    from just before the lead."""

    url: str
    table: str
    tokens: dict[int, str]
    live: Any
    leader: int
    chooser: int
    before: dict[int | None, dict[str, Any]]
    known: dict[int | None, dict[str, Any]]
    lead: threading.Thread
    lead_answer: list[httpx.Response]


def _get(url: str, table: str, token: str | None, **params: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/tables/{table}", headers=auth(token), params=params,
                       timeout=30)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def _post(url: str, table: str, token: str, card: str, out: list[httpx.Response],
          **extra: Any) -> threading.Thread:
    def send() -> None:
        out.append(httpx.post(f"{url}/api/tables/{table}/play", headers=auth(token),
                              json={"card": card, **extra}, timeout=120))
    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _until(test: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < deadline, "the table did not get there"
        time.sleep(0.01)


def at_a_choice(server: tuple[str, Any], rules: str, players: int, pause: float = 0.0,
                **spec: Any) -> Scene:
    """Play people's first legal leads (declining their own choices) until a choice waits for
    a seat that did not lead. Seeds are tried asking only the leader; the seed found is played
    again, every seat and the watcher asked before the lead that brings the choice, ``pause``
    seconds before it. The seed and lead found are kept for the same table (:data:`_FOUND`):
    these plays are fixed by the seed, so a second test of the same table needs no search."""
    key = (rules, players, tuple(sorted(spec.items())))
    if key in _FOUND:
        seed, leads = _FOUND[key]
        again = _to_a_choice(server, rules, players, seed, (leads, pause), spec)
        assert again is not None, "the same seed played otherwise"
        assert again[1] == leads, "the same seed played otherwise"
        return again[0]
    for seed in range(40):
        found = _to_a_choice(server, rules, players, seed, None, spec)
        if found is not None:
            probe = found[0]  # declined, so that no request is left held
            _post(probe.url, probe.table, probe.tokens[probe.chooser], "pass", []).join(60)
            probe.lead.join(60)
            again = _to_a_choice(server, rules, players, seed, (found[1], pause), spec)
            assert again is not None, "the same seed played otherwise"
            assert again[1] == found[1], "the same seed played otherwise"
            _FOUND[key] = (seed, found[1])
            return again[0]
    raise AssertionError(f"no seed of 40 gave {rules} a choice for a seat that did not lead")


_FOUND: dict[tuple[Any, ...], tuple[int, int]] = {}
"""The seed and the number of leads before the choice that :func:`at_a_choice` found, by
table (rules, players, the rest of its spec)."""


def _to_a_choice(server: tuple[str, Any], rules: str, players: int, seed: int,
                 ask: tuple[int, float] | None, spec: dict[str, Any],
                 ) -> tuple[Scene, int] | None:
    """:func:`at_a_choice` on one seed: the scene and how many leads came before the one
    that brought the choice. ``ask`` is (that lead's number, seconds to wait before it):
    everyone is asked before that lead only (before the others, only the leader)."""
    url, app = server
    made = httpx.post(f"{url}/api/tables", json={
        "rules": rules, "players": players, "seats": ["person"] * players, "deals": 1,
        "seed": seed, "pace": 0, **spec}, timeout=30).json()
    table = made["table"]
    tokens = {s["seat"]: s["token"] for s in made["seats"]}
    live = app.state.hub.tables[table]
    leads = 0
    while live.session.phase == "playing":
        turn = live.session.turn()
        if turn.kind == "choice":  # the leader's own choice: declined
            done: list[httpx.Response] = []
            _post(url, table, tokens[turn.player + 1], "pass", done).join()
            assert done[0].status_code == 200, done[0].text
            continue
        leader = turn.player + 1
        asked = ask is not None and ask[0] == leads
        askers: list[int | None] = [None, *tokens] if asked else [leader]
        before = {p: _get(url, table, tokens.get(p or 0)) for p in askers}
        known = {p: _get(url, table, tokens[p], knowledge="1") for p in tokens} if asked else {}
        version = live.version
        if asked and ask is not None:
            time.sleep(ask[1])
        out: list[httpx.Response] = []
        thread = _post(url, table, tokens[leader], before[leader]["legal"][0], out,
                       version=before[leader]["version"])
        _until(lambda live=live, version=version: live.version > version)
        pending = live.session.pending
        if pending is not None and live.session.player_at(pending.chooser) + 1 != leader:
            chooser = live.session.player_at(pending.chooser) + 1
            return Scene(url, table, tokens, live, leader, chooser, before, known, thread,
                         out), leads
        thread.join()
        assert out[0].status_code == 200, out[0].text
        leads += 1
    return None


def _first_event(url: str, table: str, token: str | None) -> dict[str, Any]:
    with httpx.stream("GET", f"{url}/api/tables/{table}/events", headers=auth(token),
                      timeout=30) as answer:
        for line in answer.iter_lines():
            if line.startswith("data: "):
                data: dict[str, Any] = json.loads(line[6:])
                return data
    raise AssertionError("the stream ended")


CASES = [("spinado", 3), ("peel+pope_in_lieu=run-continues", 4),
         ("hoyle-modernized+pope_in_lieu=pope-leads", 5)]


@pytest.mark.parametrize(("rules", "players"), CASES)
def test_while_a_choice_waits_the_others_see_the_table_as_before_the_lead(
        server: tuple[str, Any], rules: str, players: int) -> None:
    scene = at_a_choice(server, rules, players)
    url, table, tokens = scene.url, scene.table, scene.tokens
    others = [p for p in [None, *tokens] if p != scene.chooser]
    for p in others:
        now = _get(url, table, tokens.get(p or 0))
        who = "the watcher" if p is None else f"seat {p}"
        assert not _same(now, scene.before[p]), f"{who} sees: {_same(now, scene.before[p])}"
        assert now["choice"] is None
        assert now["waiting"] != "choice"
        streamed = _first_event(url, table, tokens.get(p or 0))
        assert not _same(streamed, scene.before[p]), f"{who}'s stream shows the choice"
        if p is not None:
            known = _get(url, table, tokens[p], knowledge="1")
            assert not _same(known, scene.known[p]), f"{who}'s knowledge moved"
    assert not scene.lead_answer, "the lead's answer waits until the run is over"
    record = httpx.get(f"{url}/api/tables/{table}/record", timeout=30)
    assert record.status_code == 409, "the deal under way never appears in the record"
    assert "choice" not in record.text
    mine = _get(url, table, tokens[scene.chooser])
    assert mine["waiting"] == "choice"
    assert mine["to_play"] == scene.chooser
    assert mine["options"][0]["card"] == "pass"
    assert mine["version"] > scene.before[scene.chooser]["version"]
    declined: list[httpx.Response] = []
    _post(url, table, tokens[scene.chooser], "pass", declined,
          version=mine["version"]).join()
    assert declined[0].status_code == 200, declined[0].text
    scene.lead.join(60)
    assert scene.lead_answer, "the lead is answered once the run is over"
    assert scene.lead_answer[0].status_code == 200
    for p in others:
        if scene.live.session.pending is not None:
            break  # a second chance for the same holder (Spin): still theirs alone
        after = _get(url, table, tokens.get(p or 0))
        assert after["version"] == scene.before[p]["version"] + 1, \
            "a declined choice moves no one's version but its chooser's"


def test_the_others_time_runs_on_from_before_the_lead(server: tuple[str, Any]) -> None:
    """With a time limit, the seconds left that the others see while a choice waits go on
    counting down the leader's time (not restarted by the lead, as the chooser's are)."""
    scene = at_a_choice(server, "spinado", 3, pause=1.0, turn_seconds=60)
    url, table, tokens = scene.url, scene.table, scene.tokens
    for p in [None, *tokens]:
        if p != scene.chooser:
            now = _get(url, table, tokens.get(p or 0))
            assert now["deadline"] <= scene.before[p]["deadline"] - 0.9
    assert _get(url, table, tokens[scene.chooser])["deadline"] > 59
    _post(url, table, tokens[scene.chooser], "pass", []).join()
    scene.lead.join(60)


@pytest.mark.parametrize(("rules", "players"), CASES[:2])
def test_a_play_sent_while_a_choice_waits_is_answered_after_the_run(
        server: tuple[str, Any], rules: str, players: int) -> None:
    """Out of turn, a seat's play is a 409 naming whose lead the table waits for, as before the
    lead; sent while another seat's choice waits, it is held until the run is over (an answer
    at once would say that a choice waits), and then answered as the table stands."""
    scene = at_a_choice(server, rules, players)
    url, table, tokens = scene.url, scene.table, scene.tokens
    other = next(p for p in tokens if p not in (scene.chooser, scene.leader))
    held: list[httpx.Response] = []
    sent = _post(url, table, tokens[other], scene.before[other]["hand"][0], held,
                 version=scene.before[other]["version"])
    sent.join(0.5)
    assert not held, "answered while the choice waits"
    again = httpx.post(f"{url}/api/tables/{table}/play", headers=auth(tokens[other]),
                       json={"card": "pass"}, timeout=30)
    assert again.status_code == 409, "one play of a seat at a time"
    assert "still being answered" in again.json()["error"]
    _post(url, table, tokens[scene.chooser], "+" + _get(url, table, tokens[scene.chooser])[
        "choice"]["card"], []).join()
    sent.join(60)
    assert held, "the play is answered once the run is over"
    assert held[0].status_code == 409, held[0].text
    assert "choice" not in held[0].text
    scene.lead.join(60)


def test_the_versions_count_runs_and_timed_out_choices_stay_unseen(
        server: tuple[str, Any]) -> None:
    """Seat 1's person never plays (a bot plays each of its turns once its time is out,
    choices too); two random bots take or decline their Spins. The watcher's stream never shows
    a choice waiting, and its versions count the runs and the readiness (by time-out between
    deals), never the choices declined."""
    url, app = server
    made = httpx.post(f"{url}/api/tables", json={
        "rules": "spinado", "players": 3, "seats": ["person", "random", "random"],
        "deals": 2, "seed": SEED, "pace": 0, "turn_seconds": 0.3}, timeout=30).json()
    table = made["table"]
    seen: list[dict[str, Any]] = []
    with httpx.stream("GET", f"{url}/api/tables/{table}/events", timeout=120) as answer:
        for line in answer.iter_lines():
            if line.startswith("data: "):
                seen.append(json.loads(line[6:]))
                if seen[-1]["state"] == "over":
                    break
    assert all(s["waiting"] != "choice" and s["choice"] is None for s in seen)
    versions = [s["version"] for s in seen]
    assert versions == sorted(set(versions))
    record = httpx.get(f"{url}/api/tables/{table}/record", timeout=30).text
    assert replay(parse_record_text(record)).legal
    assert "TimedOut" in record
    session = app.state.hub.tables[table].session
    kinds = [e.kind.value for e in session.events]
    declined = sum(1 for e in session.events if e.kind.value == "choose" and not e.value)
    assert declined, f"seed {SEED} gives a Spin to decline"
    assert versions[-1] == sum(len(d.runs) for d in session.done) + kinds.count("ready")


SEED = 12


@pytest.mark.parametrize("rules", ["spinado", "peel+pope_in_lieu=run-continues",
                                   "peel+pope_in_lieu=pope-leads",
                                   "hoyle-modernized+pope_in_lieu=pope-leads-after-king"])
def test_every_choice_of_random_sessions_is_held_from_the_others(
        rules: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """At every choice of random sessions (choices taken or declined at random), every asker
    but the chooser gets, with and without ``knowledge``, the answer it had before the lead;
    once the run is over each of them has seen exactly one change. A seat's knowledge (a pure
    function of the deal, the runs played, the lead and choice under way and the seat) is
    built once for the same arguments, whichever session object asks: the answers still
    differ wherever the arguments the sessions give differ."""
    import random

    from popejoan_solver.web.tables import views
    from popejoan_solver.web.tables.hub import Live
    from popejoan_solver.web.tables.session import By, Event, EventKind, Session
    from popejoan_solver.web.tables.session import replay as replay_session
    from popejoan_solver.web.tables.spec import read_spec

    built: dict[tuple[Any, ...], Any] = {}
    nodes: list[Any] = []  # held, so that no id is reused while the keys stand
    position_knowledge = views.position_knowledge

    def once(deal: Any, runs: Any, lead: Any, node: Any, seat: int) -> Any:
        key = (deal, runs, lead, None if node is None else id(node), seat)
        if key not in built:
            built[key] = position_knowledge(deal, runs, lead, node, seat)
            nodes.append(node)
        return built[key]

    monkeypatch.setattr(views, "position_knowledge", once)

    rng = random.Random(rules)
    choices = 0
    for seed in range(6):
        players = rng.randint(3, 6)
        spec = read_spec({"rules": rules, "players": players, "seats": ["person"] * players,
                          "deals": 2, "seed": seed, "pace": 0})
        live = Live("0" * 24, Session(spec), (None,) * players, time.time())
        session = live.session
        askers: list[int | None] = [None, *range(players)]
        before: dict[tuple[int | None, bool], dict[str, Any]] = {}
        asked: set[int] = set()
        while session.phase != "over":
            turn = session.turn()
            if turn is None:
                for player in session.waiting_for():
                    session.apply(Event(EventKind.READY, player, 0, By.PERSON))
                continue
            if turn.kind == "lead":
                before = {(p, k): live.answer(p, k) for p in askers for k in (False, True)}
                asked = set()
                card = rng.choice(session.position.legal_leads())
                session.apply(Event(EventKind.LEAD, turn.player, card, By.PERSON))
            else:
                choices += 1
                asked.add(turn.player)
                for (p, k), answer in before.items():
                    if p != turn.player:
                        assert live.answer(p, k) == answer, (rules, seed, p, k)
                assert live.answer(turn.player)["choice"] is not None
                restarted = Live("0" * 24, replay_session(spec, list(session.events)),
                                 (None,) * players, time.time())
                for p in askers:  # a server started again holds the run from the same askers
                    assert restarted.answer(p) == live.answer(p)
                session.apply(Event(EventKind.CHOOSE, turn.player, rng.randrange(2),
                                    By.PERSON))
            if session.chooser() is None and session.phase == "playing" and before:
                for p in askers:
                    if p not in asked:
                        assert live.answer(p)["version"] == before[p, False]["version"] + 1
    assert choices > 5, "the sessions reach choices"
