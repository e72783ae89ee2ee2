"""What a seat of the OpenSpiel game sees, as a string and as a tensor.

With perfect recall (the information state) a seat sees: its own cards as dealt, how many cards
have been dealt, the turn-up where the ruleset shows it, the dead hand if it is a dealer allowed
to look, every completed run card by card with who played each card (a card a choice played out
of turn marked ``+``), its own choices taken or declined, and, while it is choosing inside a run,
that run's cards so far. Another seat's declined choice is not seen: in play nobody can tell it
from a run going on. Without perfect recall (the observation) it sees its hand now, the turn-up,
the dead hand if allowed, the cards each seat has played, the seat on lead and its own pending
choice. Nothing else: a test checks that states differing in hidden cards look the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from ..model.cards import NUM_CARDS, Mask, card_name, format_cards, iter_mask
from ..model.rules import MAX_PLAYERS
from ..model.table import ChoiceKind
from .state import PopeJoanState

CHOICE_KINDS = tuple(ChoiceKind)


def _pieces(perfect_recall: bool, private: bool) -> list[tuple[str, tuple[int, ...]]]:
    """The named pieces of the tensor, in order, with their shapes (docs/openspiel.md)."""
    pieces: list[tuple[str, tuple[int, ...]]] = [("player", (MAX_PLAYERS,))]
    if private:
        pieces += [("hand", (NUM_CARDS,)), ("dealt", (NUM_CARDS,)), ("dead", (NUM_CARDS,))]
    pieces += [("turnup", (NUM_CARDS,)), ("played", (MAX_PLAYERS, NUM_CARDS)),
               ("chosen", (NUM_CARDS,)), ("leader", (MAX_PLAYERS,))]
    if perfect_recall:
        pieces.append(("run_index", (NUM_CARDS,)))
    if private:
        pieces += [("pending", (len(CHOICE_KINDS),)), ("in_run", (NUM_CARDS,))]
        if perfect_recall:
            pieces.append(("declined", (len(CHOICE_KINDS),)))
    return pieces


class PopeJoanObserver:
    """OpenSpiel's Python observer protocol (``tensor``, ``dict``, ``set_from``,
    ``string_from``) for one observation type."""

    def __init__(self, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        private = iig_obs_type.private_info
        if not iig_obs_type.public_info or private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("Pope Joan observes the public information with a seat's own "
                             "private information or none, not other observation types")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        pieces = _pieces(self.perfect_recall, self.private)
        size = sum(int(np.prod(shape)) for _, shape in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {}
        index = 0
        for name, shape in pieces:
            length = int(np.prod(shape))
            self.dict[name] = self.tensor[index:index + length].reshape(shape)
            index += length

    def set_from(self, state: PopeJoanState, player: int) -> None:
        """Fill the tensor with what ``player`` sees of ``state``."""
        self.tensor.fill(0)
        view = self.dict
        view["player"][player] = 1
        if self.private:
            _bits(view["hand"], _hand_now(state, player))
            _bits(view["dealt"], state.dealt_to(player))
            if state.sees_dead_hand(player):
                _bits(view["dead"], state.dealt_to(state.pj.players))
            if state.pending is not None and state.pending.chooser == player + 1:
                view["pending"][CHOICE_KINDS.index(state.pending.kind)] = 1
                _bits(view["in_run"], sum(1 << c for c in state.partial))
            if self.perfect_recall:
                for made in state.choices:
                    if made.seat == player and made.option == 0:
                        view["declined"][ChoiceKind[made.kind] - 1] += 1
        if state.turnup is not None:
            view["turnup"][state.turnup] = 1
        for index, run in enumerate(state.runs):
            for position, (card, seat) in enumerate(zip(run.cards, run.seats, strict=True)):
                view["played"][seat - 1, card] = 1
                if position == run.chosen:
                    view["chosen"][card] = 1
                if self.perfect_recall:
                    view["run_index"][card] = (index + 1) / NUM_CARDS
        if state.position is not None and not state.over and state.pending is None:
            view["leader"][state.position.leader - 1] = 1

    def string_from(self, state: PopeJoanState, player: int) -> str:
        """What ``player`` sees of ``state``, on one line."""
        parts = [f"seat {player + 1}/{state.pj.players} {state.pj.rules.name}",
                 f"dealt {len(state.dealt)}"]
        if self.private:
            hand = state.dealt_to(player) if self.perfect_recall else _hand_now(state, player)
            parts.append(f"hand {format_cards(hand) or '-'}")
            if state.sees_dead_hand(player):
                parts.append(f"dead {format_cards(state.dealt_to(state.pj.players))}")
        if state.turnup is not None:
            parts.append(f"turnup {card_name(state.turnup)}")
        parts += _runs_text(state, player) if self.perfect_recall else _played_text(state)
        if state.position is not None and not state.over and state.pending is None:
            parts.append(f"to lead {state.position.leader}")
        if self.private and state.pending is not None and state.pending.chooser == player + 1:
            cards = " ".join(card_name(c) for c in state.partial)
            parts.append(f"choose {state.pending.kind.name} after {cards}")
        return " | ".join(parts)


def _bits(row: Any, mask: Mask) -> None:
    for card in iter_mask(mask):
        row[card] = 1


def _hand_now(state: PopeJoanState, player: int) -> Mask:
    """The cards ``player`` holds now: dealt, less those played (a run in progress too)."""
    played = state.position.played if state.position is not None else 0
    return state.dealt_to(player) & ~played & ~sum(1 << c for c in state.partial)


def _runs_text(state: PopeJoanState, player: int) -> list[str]:
    """Every completed run, and this seat's own choices where it made them."""
    parts = []
    for index, run in enumerate(state.runs):
        cards = " ".join(f"{'+' if i == run.chosen else ''}{card_name(c)}({s})"
                         for i, (c, s) in enumerate(zip(run.cards, run.seats, strict=True)))
        own = [f"{m.kind} {'declined' if m.option == 0 else 'taken'}"
               for m in state.choices if m.seat == player and m.run == index]
        parts.append(f"run {index + 1}: {cards}" + (f" ({', '.join(own)})" if own else ""))
    pending = [f"{m.kind} {'declined' if m.option == 0 else 'taken'}"
               for m in state.choices if m.seat == player and m.run == len(state.runs)]
    if pending:
        parts.append(f"this run: {', '.join(pending)}")
    return parts


def _played_text(state: PopeJoanState) -> list[str]:
    """The cards each seat has played, with no order."""
    parts = []
    for seat in range(state.pj.players):
        mask = sum(1 << c for run in state.runs
                   for c, s in zip(run.cards, run.seats, strict=True) if s == seat + 1)
        parts.append(f"played {seat + 1}: {format_cards(mask) or '-'}")
    return parts
