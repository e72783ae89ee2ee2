"""Opponent models: how likely another player's lead was, had it held the cards a deal gives it.

A model turns the public record of the play into evidence about the hidden cards: a deal under
which the other players' leads were likely weighs more (:mod:`.posterior`). Each lead another
seat made is one :class:`LeadEvidence`, read from the line alone; a model gives the
probability of that lead from the leader's hand at the time (the cards the deal leaves it plus
those it played from then on), the cards gone by then and the lead rule's legal leads.

- ``uniform``: every legal lead equally likely, so every consistent deal is: the uniform draw
  ``pimc`` and ``popejoan advise`` make.
- ``hoyle[:P]``: the player follows Hoyle's maxims (``bots.maxims.maxim_lead``, from what the
  play has made public by then) with probability ``P`` and otherwise leads any other legal card
  uniformly. Under this model ``P`` is the rate at which the player's leads that had a choice
  agree with the maxims, so its maximum-likelihood fit from a match is that agreement rate
  (``popejoan standings FILE --maxims BOT``); the default 0.55 is ``pimc``'s (0.46 to 0.67 in
  the matches of docs/studies/bots.md).

Only leads are evidence: a choice inside a run (the Pope in lieu, Spin) is not weighed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from ..model.cards import Card, Mask
from ..model.errors import PopeJoanError, clip
from ..model.leads import legal_leads
from ..model.play import Run, StopReason
from ..model.rules import Ruleset
from .maxims import maxim_lead

MODELS: Final = ("uniform", "hoyle")
"""The opponent models by name (``hoyle`` takes ``:P``)."""

DEFAULT_FOLLOW: Final = 0.55
"""``hoyle``'s probability of following the maxims when none is given."""


class ModelError(PopeJoanError):
    """An opponent model that is not one of :data:`MODELS` or has a bad parameter."""


@dataclass(frozen=True)
class LeadEvidence:
    """One lead another seat made, as every seat saw it."""

    leader: int
    """The seat that led (from 1)."""
    lead: Card
    gone: Mask
    """The cards the table knew could not follow a lead then: the turn-up (where shown), the
    cards played before and the dead cards the stops before had shown."""
    later: Mask
    """The cards the leader played from this lead on (it held them when it led)."""


def evidence(line: Sequence[Run], seat: int, turnup: Card | None,
             rules: Ruleset) -> tuple[LeadEvidence, ...]:
    """The leads of ``line`` made by seats other than ``seat`` (from 1)."""
    found = []
    gone = 0 if turnup is None else 1 << turnup
    for index, run in enumerate(line):
        if run.leader != seat:
            later = 0
            for after in line[index:]:
                for card, who in zip(after.cards, after.seats, strict=True):
                    if who == run.leader:
                        later |= 1 << card
            found.append(LeadEvidence(run.leader, run.lead, gone, later))
        gone |= run.mask
        above = rules.table.successor[run.stop_card]
        if run.reason is StopReason.DEAD and above >= 0:
            gone |= 1 << above
    return tuple(found)


class OpponentModel(Protocol):
    """The probability of a lead from the leader's hand at the time."""

    @property
    def name(self) -> str:
        ...

    def probability(self, rules: Ruleset, hand: Mask, step: LeadEvidence) -> float:
        """P(the lead ``step.lead`` | the leader held ``hand``, the public play so far)."""
        ...


@dataclass(frozen=True)
class Uniform:
    """Every legal lead equally likely: every consistent deal equally likely."""

    name: str = "uniform"

    def probability(self, rules: Ruleset, hand: Mask, step: LeadEvidence) -> float:
        return 1.0


@dataclass(frozen=True)
class Hoyle:
    """The maxims' lead with probability ``follow``, any other legal lead otherwise."""

    follow: float = DEFAULT_FOLLOW
    name: str = "hoyle"

    def probability(self, rules: Ruleset, hand: Mask, step: LeadEvidence) -> float:
        legal = legal_leads(rules, hand)
        if step.lead not in legal:
            return 0.0
        if len(legal) == 1:
            return 1.0
        advised = maxim_lead(rules, hand, step.gone, legal)[0]
        if step.lead == advised:
            return self.follow
        return (1.0 - self.follow) / (len(legal) - 1)


def make_model(spec: str) -> OpponentModel:
    """``uniform``, ``hoyle`` or ``hoyle:P`` (0 < P < 1) to its model; a :class:`ModelError`
    (one line) otherwise."""
    name, _, parameter = spec.strip().lower().partition(":")
    if name == "uniform" and not parameter:
        return Uniform()
    if name == "hoyle":
        if not parameter:
            return Hoyle()
        try:
            follow = float(parameter)
        except ValueError:
            follow = math.nan
        if not 0 < follow < 1:
            raise ModelError(f"opponent model {clip(spec)!r}: hoyle:P takes a probability "
                             f"between 0 and 1, not {clip(parameter)!r}")
        return Hoyle(follow, f"hoyle:{parameter}")
    raise ModelError(f"unknown opponent model {clip(spec)!r} (models: uniform, hoyle, "
                     "hoyle:P)")
