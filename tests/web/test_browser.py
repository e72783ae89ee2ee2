"""The web table in real headless Chromium (Debian's ``chromium``, driven by Playwright with the
system browser: nothing is downloaded): a deal's page with its cards and value marks, the
whole optimal line stepped through, a deal played out against bots, a bad deal pasted.
Screenshots of each view go to test-artifacts/web/."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.web.chromium import Page, ready, shot  # the skip comes first

# isort: split

import httpx  # starlette's test client's too: there with the web extra

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.web.app import create_app

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"
LINE = deal_to_line(deal_random(5, 8, get_ruleset("hoyle-modernized")))


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The app served by uvicorn on 127.0.0.1, on a free port, stopped at the end."""
    import uvicorn  # the web extra: present, or tests.web.chromium skipped the module

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    port = listener.getsockname()[1]
    app = create_app()
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    serving = uvicorn.Server(config)
    thread = threading.Thread(target=serving.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not serving.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    serving.should_exit = True
    thread.join(timeout=30)
    listener.close()
    app.state.scheduler.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    new_page = context.new_page()
    errors: list[str] = []
    new_page.on("pageerror", lambda exc: errors.append(str(exc)))
    new_page.on("console", lambda message: errors.append(message.text)
                if "Content Security Policy" in message.text else None)
    yield new_page
    context.close()
    assert errors == []  # no script error on the page, nothing the server's CSP refused


@pytest.fixture(scope="module")
def api(server: str) -> Iterator[httpx.Client]:
    """The API of the server the page talks to, asked directly (what the page must show):
    the same server, so that a deal the page had solved is not solved a second time."""
    with httpx.Client(base_url=server, timeout=120) as client:
        yield client


def wait_after(page: Page, before: int) -> None:
    # A selector, not wait_for_function: the page's CSP refuses the eval that one uses (and
    # the count only grows, so another count than before is a larger one).
    page.wait_for_selector(f'body[data-ready]:not([data-ready="{before}"])', state="attached",
                           timeout=60_000)


def open_deal(page: Page, server: str, query: str = "") -> None:
    page.goto(f"{server}/?deal={quote(LINE)}{query}")
    wait_after(page, 0)


def cards(page: Page, selector: str) -> list[str]:
    return [str(x) for x in page.eval_on_selector_all(
        selector, "nodes => nodes.map(n => n.dataset.card)")]


def test_deal_page_shows_cards_stops_and_values(page: Page, server: str,
                                                api: httpx.Client) -> None:
    open_deal(page, server)
    table = api.post("/api/table", json={"deal": LINE}).json()
    solved = api.post("/api/analyse", json={"deal": LINE}).json()
    for seat in table["seats"]:
        assert cards(page, f'[data-seat="{seat["seat"]}"] .hand .card') == seat["hand"]
    leads = [lead["card"] for lead in table["leads"]]
    assert cards(page, f'[data-seat="{table["leader"]}"] button.card') == leads
    marks = page.eval_on_selector_all("button.card", "ns => ns.map(n => "
                                      "[n.dataset.card, n.querySelector('.value').textContent,"
                                      " n.classList.contains('best')])")
    values = {lead["card"]: lead["guaranteed"] for lead in solved["leads"]}
    best = max(values.values())
    assert marks == [[c, str(values[c]), values[c] == best] for c in leads]
    shown_stops = page.eval_on_selector_all(".hand .card:has(.stop-mark)",
                                            "ns => ns.map(n => n.dataset.card)")
    assert set(shown_stops) == set(table["stops"]) - set(table["dead"])
    assert cards(page, ".dead .card") == table["dead"]
    turnup = page.text_content(".compartment[data-compartment=queen] .count")
    assert turnup == "0"  # the turned-up QD took Queen before play
    shot(page, ARTIFACTS, "deal")
    before = ready(page)
    page.uncheck("#referee")
    wait_after(page, before)
    assert cards(page, ".dead .card") == [""] * len(table["dead"])  # face down
    shot(page, ARTIFACTS, "player-view")


def test_step_through_the_whole_optimal_line(page: Page, server: str,
                                             api: httpx.Client) -> None:
    open_deal(page, server)
    solved = api.post("/api/analyse", json={"deal": LINE}).json()
    steps = [step["step"] for step in solved["line"]]
    for k in range(len(steps)):
        assert page.is_enabled("#forward")
        before = ready(page)
        page.click("#forward")
        wait_after(page, before)
        assert page.locator("#history li").count() == k + 1
        if k == len(steps) // 2:
            shot(page, ARTIFACTS, "optimal-line-middle")
    assert page.is_disabled("#forward")
    winner = solved["line"][-1]["out"]
    assert f"seat {winner} went out" in page.text_content("#status")
    assert page.is_visible("#settlement h3")
    assert f"line={quote(','.join(steps), safe=',')}" in page.url.replace("%2C", ",")
    shot(page, ARTIFACTS, "optimal-line-end")
    before = ready(page)
    page.click("#back")
    wait_after(page, before)
    assert page.locator("#history li").count() == len(steps) - 1


def test_play_a_deal_to_its_end_against_bots(page: Page, server: str,
                                             api: httpx.Client) -> None:
    open_deal(page, server, "&seat=1&bot=lowest&view=player")
    assert "deals it cannot tell apart" in page.text_content("#view-out")
    page.click("#advice")
    page.wait_for_selector("#advice-out li.best", timeout=60_000)
    advised = page.get_attribute("#advice-out li.best", "data-card")
    assert advised in cards(page, '[data-seat="1"] button.card')
    shot(page, ARTIFACTS, "advice")
    for _ in range(60):
        if page.is_visible("#settlement h3"):
            break
        mine = page.locator('[data-seat="1"] button.card')
        assert mine.count() > 0  # the bots lead until it is seat 1's turn
        assert cards(page, '[data-seat="2"] .hand .card') == [""] * int(
            page.eval_on_selector_all('[data-seat="2"] .hand .card', "ns => ns.length"))
        before = ready(page)
        mine.first.click()
        wait_after(page, before)
    assert page.is_visible("#settlement h3")
    shot(page, ARTIFACTS, "played-against-bots")
    with page.expect_download() as download:
        page.click("#record")
    record = Path(download.value.path()).read_text(encoding="utf-8")
    assert api.post("/api/check", content=record).json()["legal"] is True
    assert json.loads(record)["deals"][0]["deal"]
    before = ready(page)
    page.click("#next-deal")  # the session goes on: seat 1 deals the next deal, as seat 5
    wait_after(page, before)
    assert page.input_value("#seat") == "5"
    assert "session: deal 2" in page.text_content("#settlement")
    assert page.locator('[data-seat="5"] .hand .card[data-card=""]').count() == 0
    shot(page, ARTIFACTS, "session-next-deal")


def test_a_bad_deal_pasted_shows_the_error(page: Page, server: str, api: httpx.Client) -> None:
    open_deal(page, server)
    page.fill("#paste", "nonsense ^")
    before = ready(page)
    page.click("#load")
    wait_after(page, before)
    expected = api.post("/api/load", content="nonsense ^").json()["error"]
    assert page.is_visible("#error")
    assert page.text_content("#error") == f"error: {expected}"
    shot(page, ARTIFACTS, "bad-deal")
    leads = api.post("/api/table", json={"deal": LINE}).json()["leads"]
    record = api.post("/api/record", json={"deal": LINE, "line": [leads[0]["card"]]}
                      ).json()["record"]
    record["deals"][0]["plays"][0]["seat"] = 2  # seat 2 leads out of turn
    text = json.dumps(record)
    verdict = api.post("/api/check", content=text).json()
    assert verdict["legal"] is False
    page.fill("#paste", text)
    page.click("#check")
    page.wait_for_selector("#check-out p.illegal")
    shown = page.eval_on_selector_all("#check-out p", "ns => ns.map(n => n.textContent)")
    assert shown[0] == "ILLEGAL"
    assert verdict["error"]["message"] in shown[1]
    shot(page, ARTIFACTS, "illegal-record")
