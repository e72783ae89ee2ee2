"""The pages on phones and in games, in real headless Chromium (Debian's ``chromium`` through
Playwright: nothing is downloaded): the study page folds its side panel under the table on a
phone, offers no "◀" in a game against bots, shows every hand once the deal is over and drops
advice once a move is made; the host's form offers the bots a table seats, its default
chosen. Any script error or CSP violation fails. Screenshots go to test-artifacts/pages/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.web.chromium import (  # first: it skips the module without the web extra
    Page,
    ready,
    shot,
)

# isort: split

from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.notation import deal_to_line
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.web.app import create_app
from popejoan_solver.web.limits import Limits
from popejoan_solver.web.tables.spec import DEFAULT_BOT, table_bots
from tests.web_helpers import serving

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "pages"
LINE = deal_to_line(deal_random(4, 8, get_ruleset("hoyle-modernized")))
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2,
         "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = create_app(Limits(study_workers=1, play_workers=1))
    with serving(app) as base:
        yield base
    app.state.hub.close()
    app.state.scheduler.close()


@pytest.fixture
def opened(browser: Any) -> Iterator[Any]:
    """A page maker: each page in a context of its own; no script error, no CSP refusal."""
    errors: list[str] = []
    contexts: list[Any] = []

    def make(**options: Any) -> Page:
        context = browser.new_context(**options)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda message: errors.append(message.text)
                if "Content Security Policy" in message.text else None)
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == []


def wait_after(page: Page, before: int) -> None:
    page.wait_for_selector(f'body[data-ready]:not([data-ready="{before}"])', state="attached",
                           timeout=90_000)


def open_deal(page: Page, server: str, query: str = "") -> None:
    page.goto(f"{server}/?deal={quote(LINE)}{query}")
    wait_after(page, 0)


def box(page: Page, selector: str) -> dict[str, float]:
    found: dict[str, float] = page.locator(selector).bounding_box()
    return found


def test_the_study_page_folds_on_a_phone(opened: Any, server: str) -> None:
    page = opened(**PHONE)
    open_deal(page, server)
    table, aside = box(page, "#table"), box(page, "aside")
    assert table["width"] >= 340  # not squeezed by a side panel
    assert aside["y"] >= table["y"] + table["height"] - 1  # the panel under the table
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    card = box(page, '[data-seat="1"] .hand .card >> nth=0')
    assert card["width"] >= 40  # cards readable
    assert box(page, "#new-deal")["height"] >= 44  # touch targets
    shot(page, ARTIFACTS, "study-phone")


def test_no_step_back_in_a_game_but_in_study(opened: Any, server: str) -> None:
    page = opened(viewport={"width": 1300, "height": 900})
    open_deal(page, server)
    assert page.is_visible("#back")
    assert page.is_visible("#to-start")
    open_deal(page, server, "&seat=1&bot=lowest&view=player")
    for control in ("#back", "#to-start", "#forward", "#to-end"):
        assert not page.is_visible(control), control


def test_a_game_drops_stale_advice_and_shows_every_hand_at_its_end(opened: Any,
                                                                   server: str) -> None:
    page = opened(**PHONE)
    open_deal(page, server, "&seat=1&bot=lowest&view=player")
    page.click("#advice")
    page.wait_for_selector("#advice-out li.best", timeout=90_000)
    for move in range(60):
        if page.is_visible("#settlement h3"):
            break
        mine = page.locator('[data-seat="1"] button.card')
        assert mine.count() > 0
        before = ready(page)
        mine.first.click()
        choice = page.locator(".choices button")
        if choice.count():
            choice.first.click()
        wait_after(page, before)
        if move == 0:  # the advice was for the position before the move
            assert page.locator("#advice-out li").count() == 0
    assert page.is_visible("#settlement h3")
    for seat in range(1, 5):  # every hand shown face up (no card drawn face down)
        assert page.locator(f'[data-seat="{seat}"] .card[data-card=""]').count() == 0
    assert page.locator('.dead .card[data-card=""]').count() == 0
    assert page.locator(".dead .card").count() > 0
    shot(page, ARTIFACTS, "game-over-phone")


def test_the_host_form_offers_the_tables_bots(opened: Any, server: str) -> None:
    page = opened(viewport={"width": 1000, "height": 900})
    page.goto(f"{server}/host")
    page.wait_for_selector("#h-seat-4")
    page.select_option("#h-players", "4")
    offered = page.eval_on_selector_all("#h-seat-3 option", "ns => ns.map(n => n.value)")
    assert offered == ["person", *table_bots()]
    assert offered[1] == DEFAULT_BOT
    assert page.input_value("#h-seat-1") == "person"
    assert page.input_value("#h-seat-3") == DEFAULT_BOT
    assert page.input_value("#h-seat-4") == DEFAULT_BOT
