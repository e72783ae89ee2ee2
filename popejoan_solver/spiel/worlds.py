"""Worlds: a deal drawn from what a seat knows, made an OpenSpiel state by dealing it card by
card and replaying the public line; the game's ``resample_from_infostate`` and the ismcts bot
both start from such states, so the true deal is never read by a search."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pyspiel

from ..model.cards import Card
from ..model.deal import Deal
from ..model.play import Run, outcomes
from ..seat import knowledge, knowledge_at_choice, sample_deals
from .state import CHOICE_BASE, PopeJoanState


def deal_actions(deal: Deal, order: Sequence[int]) -> list[Card]:
    """The chance actions that deal ``deal`` (as dealt) in the dealing ``order``: each
    recipient's cards in turn, the turn-up last."""
    n = deal.players
    start = deal.at_outset()
    places = [sorted(_cards(start.hands[s])) for s in range(n)]
    places.append(sorted(_cards(start.dead & ~(1 << start.turnup))))
    actions = [places[whom].pop() for whom in order[:-1]]
    return [*actions, start.turnup]


def _cards(mask: int) -> list[Card]:
    return [c for c in range(52) if mask >> c & 1]


def state_from(game: Any, deal: Deal, line: Sequence[Run], lead: Card | None = None,
               cards: tuple[Card, ...] = ()) -> PopeJoanState:
    """The state of ``game`` where ``deal`` was dealt and ``line`` played (each choice taken as
    the run shows); with ``lead``, also that lead up to the choice met after ``cards``."""
    state: PopeJoanState = game.new_initial_state()
    for card in deal_actions(deal, game.order):
        state.apply_action(card)
    for run in line:
        state.apply_action(run.lead)
        while state.pending is not None:
            state.apply_action(CHOICE_BASE + _option_to(state, run))
    if lead is not None:
        state.apply_action(lead)
        while state.pending is not None and state.partial != cards:
            state.apply_action(CHOICE_BASE + _option_towards(state, cards))
    return state


def _option_to(state: PopeJoanState, run: Run) -> int:
    """The option of the pending choice that can end in ``run``."""
    assert state.pending is not None
    for index, option in enumerate(state.pending.options):
        if any(r.cards == run.cards and r.seats == run.seats for r in outcomes(option)):
            return index
    raise ValueError("the run cannot be replayed on this deal")


def _option_towards(state: PopeJoanState, cards: tuple[Card, ...]) -> int:
    """The option of the pending choice whose runs go on through ``cards``."""
    assert state.pending is not None
    for index, option in enumerate(state.pending.options):
        if any(r.cards[:len(cards)] == cards for r in outcomes(option)):
            return index
    raise ValueError("the run so far cannot be reached on this deal")


def resample(state: PopeJoanState, player: int, sampler: Callable[[], float]) -> PopeJoanState:
    """A state drawn uniformly from those ``player`` cannot tell from ``state``: a deal drawn
    from its knowledge (``seat.sample_deals``, seeded by ``sampler``), dealt and replayed."""
    deal = state.deal
    if deal is None:
        raise pyspiel.SpielError("a state can be resampled once the deal is dealt")
    lead, pending = state.now.lead, state.pending
    if pending is not None and lead is not None:
        k = knowledge_at_choice(deal, player + 1, state.runs, lead, pending)
    else:
        k = knowledge(deal, player + 1, state.runs)
    seed = int(sampler() * 2**32) % 2**32
    drawn = sample_deals(k, 1, seed)[0]
    return state_from(state.get_game(), drawn, state.runs,
                      lead if pending is not None else None, state.partial)
