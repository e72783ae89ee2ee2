"""Helpers for the tables' tests: a client per seat, and the secrecy scan of an answer.

The scan finds every card named in an answer's text (``3C``, ``TD`` as the API writes them,
and in words, "seven of diamonds", as the page says them) and compares them with what the
seat can know, read from the true deal through ``popejoan_solver.seat`` (its own hand, the
cards played, the turn-up where shown, and the cards whose place its knowledge fixes); a
watcher may know only the cards played and the turn-up.

A play is sent from a thread (:func:`send_play`): a lead whose run waits for another seat's
choice is answered only once the run is over, so one thread playing several seats would wait
for itself.
"""

from __future__ import annotations

import re
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from starlette.testclient import TestClient

from popejoan_solver.model.cards import Mask, card_name, iter_mask, parse_card
from popejoan_solver.model.play import Choice
from popejoan_solver.model.table import compile_rules
from popejoan_solver.seat import knowledge, knowledge_at_choice

RANKS = ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "jack", "queen", "king")
SUITS = ("clubs", "diamonds", "hearts", "spades")
_CODE = re.compile(r"(?<![0-9A-Za-z])([A2-9TJQK][CDHS])(?![0-9A-Za-z])")
_WORDS = re.compile(rf"\b({'|'.join(RANKS)}) of ({'|'.join(SUITS)})\b", re.IGNORECASE)


def cards_named(text: str) -> set[int]:
    """Every card an answer's text names, by code or in words."""
    found = {parse_card(code) for code in _CODE.findall(text)}
    for rank, suit in _WORDS.findall(text):
        found.add(SUITS.index(suit.lower()) * 13 + RANKS.index(rank.lower()))
    return found


def may_know(session: Any, player: int | None) -> Mask:
    """The cards ``player`` (from 0; None: a watcher) may see named in the deal under way: a
    run waiting for a choice is its chooser's alone (the others know the table as before its
    lead, and nothing of who holds the choice's card)."""
    deal = session.deal
    mine = player is not None and session.chooser() == player
    played = 0
    for _, card, _ in session.public_plays(chooser=mine):
        played |= 1 << card
    if compile_rules(deal.rules).turns_up:
        played |= 1 << deal.turnup
    if player is None:
        return played
    seat = session.seat_of(player)
    node = session.node
    k = (knowledge_at_choice(deal, seat + 1, tuple(session.runs), session.lead, node)
         if mine and isinstance(node, Choice) else knowledge(deal, seat + 1, tuple(session.runs)))
    known = k.own | k.known_dead | played
    for mask in k.known_held:
        known |= mask
    return known


class LeakError(AssertionError):
    """An answer named a card its asker cannot know."""


def scan(text: str, session: Any, player: int | None, where: str) -> None:
    """Raise :class:`LeakError` if ``text`` names a card outside what ``player`` may know."""
    scan_known(text, may_know(session, player), player, where)


def scan_known(text: str, known: Mask, player: int | None, where: str) -> None:
    """:func:`scan` with what ``player`` may know already worked out (:func:`may_know`):
    :class:`LeakError` if ``text`` names a card outside ``known``."""
    leaked = cards_named(text) - set(iter_mask(known))
    if leaked:
        who = "the watcher" if player is None else f"seat {player + 1}"
        raise LeakError(f"{where}: the answer to {who} names "
                        f"{' '.join(sorted(card_name(c) for c in leaked))}")


def auth(token: str | None) -> dict[str, str]:
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def create(client: TestClient, **spec: Any) -> tuple[str, dict[int, str]]:
    """A table: its id and the people's tokens by player (from 1)."""
    answer = client.post("/api/tables", json={"pace": 0, **spec})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    return data["table"], {seat["seat"]: seat["token"] for seat in data["seats"]}


def wait_for(client: TestClient, table: str, test: Any, seconds: float = 60) -> dict[str, Any]:
    """The watcher's state once ``test(state)`` holds (bots play meanwhile)."""
    deadline = time.monotonic() + seconds
    while True:
        state = client.get(f"/api/tables/{table}").json()
        if test(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"the table did not get there in {seconds} s: {state}")
        time.sleep(0.02)


_SENDERS = ThreadPoolExecutor(8, thread_name_prefix="table-play")


def send_play(client: TestClient, table: str, token: str, body: dict[str, Any],
              seconds: float = 60, wait: bool = True) -> Future[Any]:
    """POST a play from a thread; returns once it is answered or the table has moved on (a
    lead whose run waits for a choice of another seat is answered when the run is over), or
    at once (``wait`` false)."""
    live = client.app.state.hub.tables[table]  # type: ignore[attr-defined]
    version = live.version
    answer = _SENDERS.submit(client.post, f"/api/tables/{table}/play", headers=auth(token),
                             json=body)
    if not wait:
        return answer
    deadline = time.monotonic() + seconds
    while not answer.done() and live.version == version:
        if time.monotonic() > deadline:
            raise AssertionError(f"the play {body} was neither answered nor played")
        time.sleep(0.002)
    return answer
