"""The web tests' shared fixture: one headless Chromium for every page test of a test process
(starting one costs seconds; each test still gets contexts and pages of its own)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium (:func:`tests.web.chromium.launched`), shared by the modules that
    import :mod:`tests.web.chromium` (which skips them first when it is missing)."""
    from tests.web.chromium import launched

    yield from launched()
