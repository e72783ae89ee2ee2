"""The play of a deal: legal leads, the forced run, stops and going out.

A :class:`Game` holds the fixed facts of a deal (who was dealt which card, the successor table
of the ruleset); a position within it is just ``(played, leader)``: the mask of cards played and
the 0-based seat to lead. Everything here is a pure function of those, which is what makes the
state graph and the solvers possible.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from .cards import EIGHT_OF_DIAMONDS, Card, Mask, card_name, iter_mask
from .errors import IllegalPlayError
from .leads import legal_leads
from .rules import Ruleset
from .table import RuleTable, compile_rules

if TYPE_CHECKING:
    from .deal import Deal


class StopReason(StrEnum):
    """Why a run ended."""

    TOP = "top of the suit"
    ABSENT = "next card is out of the pack"
    DEAD = "next card is in the dead hand"
    PLAYED = "next card has been played"
    OUT = "a player went out"


@dataclass(frozen=True)
class Run:
    """One lead and the cards it forced, in order, with who played each."""

    leader: int
    cards: tuple[Card, ...]
    seats: tuple[int, ...]
    reason: StopReason
    next_leader: int
    """Seat that leads next (the player of the stop card); -1 when the deal ended."""
    winner: int
    """Seat that went out during this run, or -1."""

    @property
    def lead(self) -> Card:
        return self.cards[0]

    @property
    def stop_card(self) -> Card:
        return self.cards[-1]

    @property
    def mask(self) -> Mask:
        mask = 0
        for card in self.cards:
            mask |= 1 << card
        return mask

    def to_json(self) -> dict[str, object]:
        """The run as JSON: seats from 1, cards by name."""
        return {
            "seat": self.leader + 1,
            "lead": card_name(self.lead),
            "run": [card_name(c) for c in self.cards],
            "played_by": [s + 1 for s in self.seats],
            "stop": card_name(self.stop_card),
            "reason": self.reason.value,
            "next_leader": self.next_leader + 1 if self.next_leader >= 0 else None,
            "out": self.winner + 1 if self.winner >= 0 else None,
        }

    def describe(self) -> str:
        played = " ".join(f"{card_name(c)}({s + 1})" for c, s in zip(self.cards, self.seats,
                                                                     strict=True))
        if self.winner >= 0:
            return f"{played}; seat {self.winner + 1} is out"
        return f"{played}; stop: {self.reason.value}; seat {self.next_leader + 1} leads"


@dataclass(frozen=True)
class Game:
    """The fixed facts of a deal that play depends on."""

    rules: Ruleset
    players: int
    dealt: tuple[Mask, ...]
    """Every card dealt to each seat (held or played)."""
    in_play: Mask
    holder: tuple[int, ...]
    """``holder[c]``: 0-based seat dealt card ``c``, or -1 when ``c`` is dead or absent."""
    trumps: int
    turnup: Card

    @classmethod
    def from_deal(cls, deal: Deal) -> Game:
        dealt = tuple(deal.dealt_hand(s) for s in range(deal.players))
        holder = [-1] * 52
        for seat, mask in enumerate(dealt):
            for card in iter_mask(mask):
                holder[card] = seat
        return cls(deal.rules, deal.players, dealt, deal.in_play, tuple(holder), deal.trumps,
                   deal.turnup)

    @property
    def table(self) -> RuleTable:
        """The ruleset's compiled tables (compiled once per ruleset)."""
        return compile_rules(self.rules)

    def held(self, played: Mask, seat: int) -> Mask:
        return self.dealt[seat] & ~played

    def winner(self, played: Mask) -> int:
        """The seat with no cards left, or -1 while the deal goes on."""
        for seat in range(self.players):
            if not self.dealt[seat] & ~played:
                return seat
        return -1

    def legal_leads(self, played: Mask, leader: int) -> list[Card]:
        """The cards ``leader`` may lead, in ascending suit order (clubs first, bottom first)."""
        return legal_leads(self.rules, self.dealt[leader] & ~played)

    def stop_reason(self, card: Card, played: Mask) -> StopReason | None:
        """Why a run stops after ``card`` with ``played`` already played; None if it goes on."""
        above = self.rules.successor[card]
        if above < 0:
            return StopReason.TOP
        if above == EIGHT_OF_DIAMONDS:
            return StopReason.ABSENT
        if not self.in_play >> above & 1:
            return StopReason.DEAD
        if played >> above & 1:
            return StopReason.PLAYED
        return None

    def run(self, played: Mask, leader: int, lead: Card) -> Run:
        """Play ``lead`` and its forced run. Raises :class:`IllegalPlayError` for a bad lead."""
        if self.winner(played) >= 0:
            raise IllegalPlayError("the deal is over: a player has gone out")
        if lead not in self.legal_leads(played, leader):
            raise IllegalPlayError(
                f"seat {leader + 1} may not lead {card_name(lead)} here "
                f"(legal: {' '.join(card_name(c) for c in self.legal_leads(played, leader))})"
            )
        return self.forced_run(played, leader, lead)

    def forced_run(self, played: Mask, leader: int, lead: Card) -> Run:
        """The run after ``lead``, without checking that the lead is legal."""
        cards: list[Card] = []
        seats: list[int] = []
        card, seat = lead, leader
        while True:
            played |= 1 << card
            cards.append(card)
            seats.append(seat)
            if not self.dealt[seat] & ~played:
                return Run(leader, tuple(cards), tuple(seats), StopReason.OUT, -1, seat)
            reason = self.stop_reason(card, played)
            if reason is not None:
                return Run(leader, tuple(cards), tuple(seats), reason, seat, -1)
            card = self.rules.successor[card]
            seat = self.holder[card]


@dataclass(frozen=True)
class Position:
    """A point in the play of a deal: the game, the cards played and the seat to lead."""

    game: Game
    played: Mask
    leader: int

    @classmethod
    def from_deal(cls, deal: Deal) -> Position:
        return cls(Game.from_deal(deal), deal.played_mask, deal.leader)

    @property
    def winner(self) -> int:
        return self.game.winner(self.played)

    @property
    def is_over(self) -> bool:
        return self.winner >= 0

    def legal_leads(self) -> list[Card]:
        return [] if self.is_over else self.game.legal_leads(self.played, self.leader)

    def play(self, lead: Card) -> tuple[Run, Position]:
        """The run that ``lead`` forces and the position after it."""
        run = self.game.run(self.played, self.leader, lead)
        after = self.played | run.mask
        next_leader = run.next_leader if run.winner < 0 else self.leader
        return run, Position(self.game, after, next_leader)
