"""Per-lead values of the seat on lead: what single-dummy advice solves on each sampled deal.

One engine (and its transposition table) serves every lead of the deal, so the positions the
leads share are searched once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..model.cards import Card
from ..model.deal import Deal
from ..model.play import Game, Position
from .api import _Driver, check_time_limit, interruptible, make_engine, play_board
from .fast import DEFAULT_TT_ENTRIES
from .objective import Goal, Objective
from .result import Value


@dataclass(frozen=True)
class LeadEval:
    """A legal lead of the seat on lead: the paranoid value its leader keeps after it (net
    counters, as :func:`solve`), and whether the leader can still force going out (1/0)."""

    card: Card
    guaranteed: Value
    forced_win: Value
    """1 or 0 when exact; bounds 0..1 when not searched (``forced_win=False``) or timed out."""


def lead_values(deal: Deal, *, forced_win: bool = True, time_limit: float | None = None,
                engine: str = "fast", tt_entries: int | None = None) -> tuple[LeadEval, ...]:
    """Every legal lead of the seat on lead at ``deal`` (a fresh deal or a position), in card
    order, with its values; choices inside runs are taken by their choosers (as in solve).

    Empty when the deal is over or not played (the Pope turned up under a ruleset that ends
    it). Past ``time_limit`` values come back as proven bounds.
    """
    check_time_limit(time_limit)
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    game = Game.from_deal(deal)
    board, award = play_board(deal)
    if award is not None and not award.deal_is_played:
        return ()
    position = Position(game, deal.played_mask, deal.leader)
    if position.is_over:
        return ()
    entries = DEFAULT_TT_ENTRIES if tt_entries is None else tt_entries
    driver = _Driver(make_engine(engine, game, board, deadline, entries), game, board, deadline)
    leader = position.leader
    value_goal = Objective(Goal.GUARANTEED, leader)
    win_goal = Objective(Goal.FORCED_WIN, leader)

    def work() -> tuple[LeadEval, ...]:
        evals = []
        for lead in position.legal_leads():
            tree = game.run_tree(position.played, leader, lead)
            guaranteed = driver.tree_value(value_goal, position, tree)
            win = driver.tree_value(win_goal, position, tree) if forced_win else Value(0, 1)
            evals.append(LeadEval(lead, guaranteed, win))
        return tuple(evals)

    return interruptible(work, [driver.engine])
