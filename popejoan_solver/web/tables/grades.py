"""The grade of a table's finished deals (study's lane): each lead's double-dummy cost to its
leader, as ``popejoan grade`` gives it. Asked only of deals that are over: every hand is public
by then."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...model.deal import Deal
from ...model.play import Run
from ...search.grade import grade_line
from ..worker import Reply


def grade_deals(deals: Sequence[tuple[Deal, tuple[Run, ...]]], time_limit: float) -> Reply:
    """Every lead of every deal graded (``extra``: per deal, per lead, its ``position``, the
    leader's seat in that deal from 1; ``kept``, ``best``, ``cost`` as low and high bounds)."""
    graded: list[list[dict[str, Any]]] = []
    for deal, runs in deals:
        grades = grade_line(deal, runs, time_limit=time_limit)
        graded.append([{"lead": g.number, "position": g.seat, "card": _name(g.card),
                        "kept": _bounds(g.kept.lower, g.kept.upper),
                        "best": _bounds(g.best.lower, g.best.upper),
                        "cost": _bounds(g.cost.lower, g.cost.upper), "optimal": g.optimal}
                       for g in grades])
    return Reply(None, graded)


def _bounds(lower: int, upper: int) -> dict[str, int]:
    return {"lower": lower, "upper": upper}


def _name(card: int) -> str:
    from ...model.cards import card_name

    return card_name(card)
