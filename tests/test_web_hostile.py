"""The web API's time limits against hostile values: each a 400 with one line, never a silently
wrong answer (JSON ``true`` was once read as one second)."""

from __future__ import annotations

import pytest

from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.web.requests import time_limit_field


@pytest.mark.parametrize("value", [True, False])
def test_a_boolean_time_limit_is_refused(value: bool) -> None:
    # finding 10: JSON true was read as 1 second (bool is an int in Python)
    with pytest.raises(PopeJoanError, match="time_limit must be a number of seconds"):
        time_limit_field(value)


@pytest.mark.parametrize(("value", "seconds"), [(None, 10.0), ("", 10.0), (1, 1.0), ("2.5", 2.5),
                                                (99, 10.0)])
def test_time_limits_still_read(value: object, seconds: float) -> None:
    assert time_limit_field(value) == seconds
