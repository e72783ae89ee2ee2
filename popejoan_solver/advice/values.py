"""Double-dummy values a bot decides by, and advice values its samples by: each legal lead's
on one deal with every hand known (the true one for the ``cheat``, a sampled one for ``pimc``
and ``popejoan advise``), and each option's at a choice inside a run.

The one per-sample evaluation (:func:`evaluate`) serves the bots and the advice
(``advice/leads.py`` imports it: bots sit below analysis), so that both value a deal the
same way under the same opponent model.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..model.cards import Card
from ..model.deal import Deal
from ..model.play import Choice, Game, Position, RunTree, outcomes
from ..search.api import make_engine, play_board
from ..search.driver import Driver
from ..search.fast import DEFAULT_TT_ENTRIES
from ..search.leads import evaluate_leads
from ..search.objective import Goal, Objective
from ..seat.inference import common_prefix

MODELS = ("paranoid", "maxn")
"""``paranoid``: every other seat plays against the valued seat (its guaranteed value);
``maxn``: every seat raises its own net counters (``search/maxn.py``, ties against the
valued seat)."""

TT_ENTRIES = DEFAULT_TT_ENTRIES
"""The most transposition-table entries per deal valued (a deal's leads share one table): the
search's default. The table starts small and grows on demand, so a standard deal's searches
never reach it; a teacher's composed position may (one with a hand of 44 cards took 24 times
the nodes under a bound of 2**18)."""


@dataclass(frozen=True)
class SampleEval:
    """The leads of the seat on lead on one deal: its value after each and its forced win."""

    cards: tuple[Card, ...]
    values: tuple[int, ...]
    wins: tuple[int, ...] | None
    """1 where the seat can still force going out after the lead (whatever the others do);
    None when not asked for (``evaluate(..., forced_win=False)``)."""
    nodes: int = 0
    """Positions the paranoid searches visited (for benchmarks; max^n's not counted)."""

    @functools.cached_property
    def best(self) -> frozenset[int]:
        """Indices of the leads of the highest value (worked out once: the advice's summary
        asks it for every lead)."""
        top = max(self.values)
        return frozenset(i for i, v in enumerate(self.values) if v == top)


def evaluate(deal: Deal, model: str = "paranoid", *, deadline: float | None = None,
             node_limit: int | None = None, forced_win: bool = True,
             guesses: Mapping[Card, int] | None = None) -> SampleEval | None:
    """The leads of ``deal``'s seat on lead valued under ``model`` (a ``time.monotonic()``
    ``deadline``; a max^n ``node_limit``); None past either, where no value is exact.
    ``guesses`` (each lead's guessed paranoid value) change no value, only the work."""
    remaining = None if deadline is None else deadline - time.monotonic()
    if remaining is not None and remaining <= 0:
        return None
    if model == "maxn" and not forced_win:
        return _maxn(deal, (), None, deadline, node_limit)
    searched = evaluate_leads(deal, forced_win=forced_win, time_limit=remaining,
                              tt_entries=TT_ENTRIES, guesses=guesses)
    evals = searched.leads
    if not all(e.guaranteed.is_exact and (e.forced_win.is_exact or not forced_win)
               for e in evals):
        return None
    cards = tuple(e.card for e in evals)
    wins = tuple(e.forced_win.lower for e in evals) if forced_win else None
    if model == "paranoid":
        return SampleEval(cards, tuple(e.guaranteed.lower for e in evals), wins,
                          searched.nodes)
    return _maxn(deal, cards, wins, deadline, node_limit)


def _maxn(deal: Deal, cards: tuple[Card, ...], wins: tuple[int, ...] | None,
          deadline: float | None, node_limit: int | None) -> SampleEval | None:
    """The leads' max^n values for the seat on lead (None past the limits)."""
    from ..search.maxn import MaxnLimitError, maxn_leads

    try:
        leads = maxn_leads(deal, deal.leader, deadline=deadline, node_limit=node_limit)
    except MaxnLimitError:
        return None
    return SampleEval(cards or tuple(card for card, _ in leads),
                      tuple(v[deal.leader - 1] for _, v in leads), wins)


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


def option_scores(deal: Deal, lead: Card, prefix: Sequence[Card], chooser: int,
                  model: str = "paranoid") -> list[int] | None:
    """The chooser's value after each option of its choice in the run of ``lead`` from the
    position ``deal`` (its leader on lead) under ``model``, or None when that choice is not
    reached in this deal (or max^n passed its limit)."""
    game = Game.from_deal(deal)
    position = Position(game, deal.played_mask, deal.leader)
    choice = find_choice(game.run_tree(position.played, position.leader, lead), prefix, chooser)
    if choice is None:
        return None
    found = evaluate_options(deal, position, choice, model, forced_win=False)
    return None if found is None else list(found.values)


def evaluate_options(deal: Deal, position: Position, choice: Choice, model: str = "paranoid",
                     *, deadline: float | None = None, forced_win: bool = True,
                     ) -> SampleEval | None:
    """Each option of ``choice`` (in a lead's run from ``position`` of ``deal``) valued for
    its chooser under ``model``, as :func:`evaluate` values leads (the later choices of the run
    taken by their choosers); the "cards" are the option indices. None past the deadline or
    max^n's limit."""
    game = position.game
    board, _ = play_board(deal)
    seat = choice.chooser
    driver = Driver(make_engine("fast", game, board, deadline, TT_ENTRIES), game, board,
                     deadline)
    wins = None
    if forced_win:
        found = [driver.tree_value(Objective(Goal.FORCED_WIN, seat), position, option)
                 for option in choice.options]
        if not all(w.is_exact for w in found):
            return None
        wins = tuple(w.lower for w in found)
    indices = tuple(range(len(choice.options)))
    if model == "maxn":
        from ..search.maxn import MaxnLimitError, MaxnSearch

        search = MaxnSearch(deal, seat, deadline=deadline)
        try:
            return SampleEval(indices, tuple(
                search.tree(o, position.played, position.leader)[seat - 1]
                for o in choice.options), wins)
        except MaxnLimitError:
            return None
    goal = Objective(Goal.GUARANTEED, seat)
    values = [driver.tree_value(goal, position, option) for option in choice.options]
    if not all(v.is_exact for v in values):
        return None
    return SampleEval(indices, tuple(v.lower for v in values), wins, driver.engine.nodes)
