"""The web tests' shared fixture: one headless Chromium for every page test of a module
(starting one costs seconds; each test still gets contexts and pages of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium (:func:`tests.web.chromium.launched`) for a module that imports
    :mod:`tests.web.chromium` (which skips it first when it is missing). Not shared beyond the
    module: Playwright's synchronous API keeps an event loop running in the thread until it
    stops, and the tests after it that call ``asyncio.run`` (the web limits, the table's
    priorities) would find it there."""
    from tests.web.chromium import launched

    yield from launched()
