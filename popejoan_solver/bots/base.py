"""The one interface every bot meets: choose a lead, or an option at a choice inside a run.

A bot is asked with a :class:`LeadRequest` or a :class:`ChoiceRequest`: what its seat knows
(:class:`~popejoan_solver.seat.Knowledge`, nothing of the hidden cards), the legal options, and
a :class:`random.Random` seeded from ``(match seed, deal, seat, decision index)`` so that a
decision never depends on which worker made it or what came before it. Only a bot whose
``sees_all`` is true (the ``cheat``, labelled the ceiling) is handed the true position.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from ..model.cards import Card
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.table import ChoiceKind
from ..seat import Knowledge


class BotError(PopeJoanError):
    """A bot spec that is malformed or names no bot, or a bot that cannot run here."""


@dataclass(frozen=True)
class LeadRequest:
    """The seat on lead is asked for a lead: one of ``legal`` (ascending card order)."""

    knowledge: Knowledge
    legal: tuple[Card, ...]
    rng: random.Random
    truth: Deal | None = None
    """The true position (a position ``Deal``): given only to a bot that ``sees_all``."""


@dataclass(frozen=True)
class ChoiceRequest:
    """A seat is asked to take or decline a choice inside a run (the Pope in lieu of a stop,
    Spinado's Spin): option 0 declines, option 1 takes it.

    ``knowledge`` is the seat's knowledge at the choice (``seat.knowledge_at_choice``: its
    position is the one before the lead, and it includes what the run has shown); ``lead`` and
    ``cards`` are the run's cards up to the choice, all of them public.
    """

    knowledge: Knowledge
    kind: ChoiceKind
    lead: Card
    cards: tuple[Card, ...]
    options: int
    rng: random.Random
    truth: Deal | None = None
    """The true position before the lead: only for a bot that ``sees_all``."""


class Bot(Protocol):
    """A player: chooses from what its seat knows (a ``sees_all`` bot from the true deal)."""

    @property
    def name(self) -> str:
        """The spec that made it (``pimc:samples=32``): the bot's name in standings."""
        ...

    @property
    def sees_all(self) -> bool:
        """True only for the ceiling (``cheat``): the driver then hands it the true position."""
        ...

    @property
    def peeks(self) -> bool:
        """True when the bot, as dealer, looks at the dead hand (Peel's peek)."""
        ...

    def lead(self, request: LeadRequest) -> Card:
        """One of ``request.legal``."""
        ...

    def choose(self, request: ChoiceRequest) -> int:
        """An option index, ``0 <= i < request.options`` (0 declines)."""
        ...


@dataclass(frozen=True)
class BotInfo:
    """The fields every bot carries (a base for the simple bots)."""

    name: str
    peeks: bool = False

    @property
    def sees_all(self) -> bool:
        return False
