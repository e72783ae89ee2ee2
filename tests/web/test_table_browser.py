"""People at a table in real headless Chromium (Debian's ``chromium`` through Playwright):
a host opens a Spinado table from the form; two people (two browser contexts) and a bot play
the whole session while a third context watches, one person reloads in the middle, one lets
a turn run out; a phone-sized context plays a deal. Any script error or CSP violation fails.
Screenshots go to test-artifacts/tables/."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.chromium import (  # first: it skips the module without the web extra
    Page,
    shot,
)

# isort: split

from popejoan_solver.model.record import parse_record_text
from popejoan_solver.model.referee import replay
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from tests.web_helpers import serving

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "tables"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = create_app(Limits(study_workers=1, play_workers=1),
                     data=tmp_path_factory.mktemp("tables"))
    with serving(app) as base:
        yield base
    app.state.hub.close()


def open_page(browser: Any, errors: list[str], **options: Any) -> Page:
    context = browser.new_context(**options)
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    return page


def act(page: Page) -> str | None:
    """Do what the page asks of its seat, if anything: a lead, a choice, readiness."""
    status = page.locator("#status").inner_text()
    if "Your lead" in status:
        page.locator("#hand button.legal").first.click()
        return "lead"
    if "Your choice" in status:
        page.locator("#options button").last.click()
        return "choice"
    ready = page.locator("#ready")
    if "Between deals" in status and ready.is_visible() and ready.is_enabled():
        ready.click()
        return "ready"
    return None


def state(base: str, table: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{base}/api/tables/{table}") as answer:
        data: dict[str, Any] = json.load(answer)
        return data


def test_two_people_a_bot_and_a_watcher_play_a_session(server: str, browser: Any) -> None:
    errors: list[str] = []
    hostess = open_page(browser, errors, viewport={"width": 1280, "height": 900})
    hostess.goto(f"{server}/host")
    hostess.select_option("#h-rules", "spinado")
    hostess.select_option("#h-players", "3")
    hostess.select_option("#h-seat-3", "lowest")
    hostess.fill("#h-deals", "2")
    hostess.fill("#h-turn", "3")
    hostess.fill("#h-seed", "1")
    hostess.click("#h-create")
    links = hostess.locator("a.seat-link")
    links.first.wait_for()
    urls = [links.nth(i).get_attribute("href") for i in range(links.count())]
    watch = hostess.locator("a.watch-link").get_attribute("href")
    shot(hostess, ARTIFACTS, "host")
    assert len(urls) == 2
    assert all(u and "#" in u for u in urls)
    assert watch
    assert "#" not in watch
    table = watch.rsplit("/", 1)[1]
    people = [open_page(browser, errors, viewport={"width": 1280, "height": 900})
              for _ in urls]
    for page, url in zip(people, urls, strict=True):
        page.goto(url)
    watcher = open_page(browser, errors, viewport={"width": 1280, "height": 900})
    watcher.goto(watch)
    for page in (*people, watcher):
        page.locator("#status").filter(has_text="Deal 1").wait_for()
    assert watcher.locator("#hand button").count() == 0
    reloaded = timed_out = False
    choices = 0
    deadline = time.monotonic() + 150
    while state(server, table)["state"] != "over":
        assert time.monotonic() < deadline, "the session did not end"
        now = state(server, table)
        if not reloaded and len(now["plays"]) >= 4:
            people[1].reload()
            people[1].locator("#status").filter(has_text="Deal").wait_for()
            reloaded = True
            shot(people[0], ARTIFACTS, "wide-seat-1")
        if not timed_out and now["to_play"] == 2 and now["waiting"] == "lead":
            before = now["version"]  # seat 2 leaves it: a bot plays that turn
            while state(server, table)["version"] == before:
                assert time.monotonic() < deadline
                time.sleep(0.2)
            timed_out = True
            continue
        for page in people:
            done = act(page)
            choices += done == "choice"
        time.sleep(0.15)
    assert reloaded
    assert timed_out
    for page in (*people, watcher):
        page.locator("#status").filter(has_text="The session is over").wait_for()
    shot(people[0], ARTIFACTS, "over-seat-1")
    shot(watcher, ARTIFACTS, "over-watcher")
    people[0].click("#grade-btn")
    people[0].locator("#grade li").first.wait_for()
    with urllib.request.urlopen(f"{server}/api/tables/{table}/record") as answer:
        record = json.load(answer)
    assert replay(parse_record_text(json.dumps(record))).legal
    assert any("TimedOut" in deal.get("tags", {}) for deal in record["deals"])
    live = watcher.locator("#announce").inner_text()
    assert " of " in live, "each play is said in words"
    assert "plays the" in live
    assert errors == []


def test_a_phone_plays_a_deal(server: str, browser: Any) -> None:
    errors: list[str] = []
    body = json.dumps({"players": 3, "seats": ["person", "lowest", "lowest"], "seed": 4,
                       "pace": 0.2}).encode()
    request = urllib.request.Request(f"{server}/api/tables", body,
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request) as answer:
        made = json.load(answer)
    phone = open_page(browser, errors, viewport={"width": 390, "height": 844},
                      is_mobile=True, has_touch=True, device_scale_factor=2)
    phone.goto(made["seats"][0]["url"])
    phone.locator("#status").filter(has_text="Deal 1").wait_for()
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, "nothing wider than the phone"
    box = phone.locator("#hand button").first.bounding_box()
    assert box is not None
    assert box["width"] >= 44
    assert box["height"] >= 44
    label = phone.locator("#hand button").first.get_attribute("aria-label")
    assert label is not None
    assert " of " in label
    shot(phone, ARTIFACTS, "phone")
    deadline = time.monotonic() + 60
    while "over" not in phone.locator("#status").inner_text():
        assert time.monotonic() < deadline
        act(phone)
        time.sleep(0.1)
    phone.locator("#reveal .hand-shown").first.wait_for()
    shot(phone, ARTIFACTS, "phone-over")
    assert errors == []
