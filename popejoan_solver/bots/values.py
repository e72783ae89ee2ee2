"""Double-dummy values a bot decides by: each legal lead's, and each option's at a choice.

Both are the seat's paranoid value (its guaranteed net counters, every other seat playing
against it, as ``solve``), on one deal with every hand known: the true one for the ``cheat``,
a sampled one for ``pimc``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.cards import Card
from ..model.deal import Deal
from ..model.play import Choice, Game, Position, RunTree, outcomes
from ..search.api import _Driver, make_engine, play_board
from ..search.leads import lead_values
from ..search.objective import Goal, Objective
from ..seat.inference import common_prefix

TT_ENTRIES = 1 << 18
"""Transposition-table entries for one deal's leads (as the advice's evaluation)."""

MAXN_NODES = 2_000_000
"""Positions a max^n search of one sampled deal may visit; past it the sample is skipped."""


def lead_scores(deal: Deal, model: str = "paranoid") -> dict[Card, float]:
    """Each legal lead of the seat on lead at ``deal`` with its value: its guaranteed value
    (``paranoid``; the lower bound where a search was cut short) or its max^n value
    (``maxn``; nothing when the search passes ``MAXN_NODES``)."""
    if model == "maxn":
        from ..search.maxn import MaxnLimitError, maxn_leads

        try:
            leads = maxn_leads(deal, deal.leader + 1, node_limit=MAXN_NODES)
        except MaxnLimitError:
            return {}
        return {card: float(values[deal.leader]) for card, values in leads}
    return {e.card: float(e.guaranteed.lower)
            for e in lead_values(deal, forced_win=False, tt_entries=TT_ENTRIES)}


def find_choice(tree: RunTree, prefix: Sequence[Card], chooser: int) -> Choice | None:
    """The choice of ``chooser`` reached after the run's cards ``prefix``, or None when this
    deal's run of the lead does not go that way."""
    while isinstance(tree, Choice):
        if tree.chooser == chooser and common_prefix(tree) == tuple(prefix):
            return tree
        nxt = [o for o in tree.options
               if any(r.cards[:len(prefix)] == tuple(prefix) for r in outcomes(o))]
        if not nxt:
            return None
        tree = nxt[0]
    return None


def option_scores(deal: Deal, lead: Card, prefix: Sequence[Card],
                  chooser: int) -> list[float] | None:
    """The chooser's guaranteed value after each option of its choice in the run of ``lead``
    from the position ``deal`` (its leader on lead), or None when that choice is not reached
    in this deal."""
    game = Game.from_deal(deal)
    position = Position(game, deal.played_mask, deal.leader)
    choice = find_choice(game.run_tree(position.played, position.leader, lead), prefix, chooser)
    if choice is None:
        return None
    board, _ = play_board(deal)
    driver = _Driver(make_engine("fast", game, board, None), game, board, None)
    goal = Objective(Goal.GUARANTEED, chooser)
    return [float(driver.tree_value(goal, position, option).lower) for option in choice.options]
