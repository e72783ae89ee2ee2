"""The deals drawn for one decision, valued: each distinct deal searched once, each lead's
search started from the mean of its values so far.

``pimc`` and ``popejoan advise`` value many deals drawn from one seat's view. Two things
change no value and save work: a deal drawn twice (late in a deal few cards are hidden and
draws repeat) is the same deal, valued once; and MTD(f), which closes in on a lead's value by
null-window searches, needs fewer of them the nearer it starts. The engine starts each lead
from the value of the lead before it on the same deal (the leads of one deal are worth much
the same), but the first lead from 0: that one starts from the rounded mean of its values on
the deals valued before (``search.lead_values(guesses=...)``: "a guess changes no value, only
the work"). Guessing every lead from its mean instead costs more nodes than it saves
(docs/performance.md, "Matches").
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ..model.cards import Card, Mask
from ..model.deal import Deal
from .values import SampleEval, evaluate

DealKey = tuple[tuple[Mask, ...], Mask, Card, tuple[Mask, ...], int]


def deal_key(deal: Deal) -> DealKey:
    """What tells two drawn deals apart (rules and board are those of the decision)."""
    return deal.hands, deal.dead, deal.turnup, deal.played, deal.leader


class SampleValuer:
    """Values one decision's deals under ``model`` (safe to call from several threads)."""

    def __init__(self, model: str = "paranoid", *, forced_win: bool = True,
                 node_limit: int | None = None, guesses: bool = True) -> None:
        self.model = model
        self.forced_win = forced_win
        self.node_limit = node_limit
        self.use_guesses = guesses and model == "paranoid"
        self.searched = 0
        """Distinct deals searched (the others came from the cache)."""
        self._done: dict[DealKey, SampleEval] = {}
        self._first: Card | None = None
        self._sum = 0
        self._count = 0
        self._lock = threading.Lock()

    def guesses(self) -> dict[Card, int] | None:
        """The first lead's mean value over the deals valued so far, rounded (None before
        any): where its search starts."""
        with self._lock:
            if self._first is None or not self._count:
                return None
            return {self._first: round(self._sum / self._count)}

    def __call__(self, deal: Deal, deadline: float | None = None) -> SampleEval | None:
        """The deal's leads valued (None past the deadline or the max^n node limit)."""
        key = deal_key(deal)
        found = self._done.get(key)
        if found is not None:
            return found
        found = evaluate(deal, self.model, deadline=deadline, node_limit=self.node_limit,
                         forced_win=self.forced_win, guesses=self.guesses())
        if found is not None:
            self._keep(key, found)
        return found

    def _keep(self, key: DealKey, found: SampleEval) -> None:
        with self._lock:
            if key in self._done:
                return
            self._done[key] = found
            self.searched += 1
            if self.use_guesses and found.cards and found.cards[0] == self._first_of(found):
                self._count += 1
                self._sum += found.values[0]

    def _first_of(self, found: SampleEval) -> Card:
        """The decision's first lead (the same on every deal drawn: the seat's own hand)."""
        if self._first is None:
            self._first = found.cards[0]
        return self._first


def cached(score: Callable[[Deal], list[int] | None]) -> Callable[[Deal], list[int] | None]:
    """``score`` (a deal's values at a choice) computed once per distinct deal."""
    done: dict[DealKey, list[int] | None] = {}

    def once(deal: Deal) -> list[int] | None:
        key = deal_key(deal)
        if key not in done:
            done[key] = score(deal)
        return done[key]

    return once
