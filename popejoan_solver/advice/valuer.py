"""The deals drawn for one decision, valued: each distinct deal searched once.

``pimc`` and ``popejoan advise`` value many deals drawn from one seat's view. A deal drawn
twice (late in a deal few cards are hidden and draws repeat) is the same deal: it is valued
once, which changes no value. MTD(f), which closes in on a lead's value by null-window
searches, needs fewer of them the nearer it starts; ``guesses`` can start a lead's search
from its mean over the deals valued before (``search.lead_values(guesses=...)``: "a guess
changes no value, only the work"), but measured it saves nothing reliably, so by default the
engine starts each lead from the value of the lead before it on the same deal.
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


GUESSES = ("none", "first", "every")
"""Where each lead's search starts: the engine's own start (``none``: 0 for the first lead,
then the value of the lead before it on the same deal); the first lead from its mean over the
deals valued before (``first``); every lead from its mean (``every``)."""

DEFAULT_GUESSES = "none"
"""Measured on seeded pimc matches (docs/performance.md, "Matches"): neither mean saves
nodes reliably, so the engine's own start is kept."""


class SampleValuer:
    """Values one decision's deals under ``model`` (safe to call from several threads)."""

    def __init__(self, model: str = "paranoid", *, forced_win: bool = True,
                 node_limit: int | None = None, guesses: str = DEFAULT_GUESSES) -> None:
        if guesses not in GUESSES:
            raise ValueError(f"guesses is one of {', '.join(GUESSES)}, not {guesses!r}")
        self.model = model
        self.forced_win = forced_win
        self.node_limit = node_limit
        self.guessing = guesses if model == "paranoid" else "none"
        self.searched = 0
        """Distinct deals searched (the others came from the cache)."""
        self.nodes = 0
        """Positions the searches visited (for benchmarks)."""
        self._done: dict[DealKey, SampleEval] = {}
        self._sums: dict[Card, int] = {}
        self._count = 0
        self._lock = threading.Lock()

    def guesses(self) -> dict[Card, int] | None:
        """The leads' rounded means over the deals valued so far, as ``guessing`` says which
        (None for none)."""
        with self._lock:
            if self.guessing == "none" or not self._count:
                return None
            means = {card: round(total / self._count) for card, total in self._sums.items()}
        if self.guessing == "first":
            first = next(iter(means))
            return {first: means[first]}
        return means

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
            self.nodes += found.nodes
            self._count += 1
            for card, value in zip(found.cards, found.values, strict=True):
                self._sums[card] = self._sums.get(card, 0) + value


def cached(score: Callable[[Deal], list[int] | None]) -> Callable[[Deal], list[int] | None]:
    """``score`` (a deal's values at a choice) computed once per distinct deal."""
    done: dict[DealKey, list[int] | None] = {}

    def once(deal: Deal) -> list[int] | None:
        key = deal_key(deal)
        if key not in done:
            done[key] = score(deal)
        return done[key]

    return once
