"""What the page tests in headless Chromium share: importing this module skips the importing
test module when the web extra, Playwright or Chromium is missing; the browser, screenshots
and the page's count of finished updates."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra: pip install 'popejoan-solver[web]'")
playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="Playwright: pip install playwright")

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p), None)
if CHROMIUM is None:
    pytest.skip("headless Chromium is not installed: apt-get install chromium",
                allow_module_level=True)

Page = Any


def launched() -> Iterator[Any]:
    """Headless Chromium (Debian's: nothing is downloaded), closed when done."""
    with playwright_api.sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def shot(page: Page, folder: Path, name: str) -> None:
    """A full-page screenshot ``folder/name.png`` (the test artifacts CI keeps)."""
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def ready(page: Page) -> int:
    """How many updates the page has finished (``body[data-ready]``)."""
    return int(page.evaluate("Number(document.body.dataset.ready || 0)"))
