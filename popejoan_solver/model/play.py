"""The play of a deal: legal leads, the forced run, stops and going out.

A :class:`Game` holds the fixed facts of a deal (who was dealt which card, the successor table
of the ruleset); a position within it is just ``(played, leader)``: the mask of cards played and
the seat to lead. Everything here is a pure function of those, which is what makes the state
graph and the solvers possible.

Seats count from 1 in every field, argument and result here; the play's inner loops walk
0-based indices (``seat - 1``) behind that boundary.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cached_property

from .cards import Card, Mask, card_name, check_card, iter_mask
from .errors import DealError, IllegalPlayError
from .leads import legal_leads
from .rules import Ruleset
from .structure import DealStructure, check_deal_type
from .table import ChoiceKind, ChoicePoint, RuleTable


class StopReason(StrEnum):
    """Why a run ended."""

    TOP = "top of the suit"
    ABSENT = "next card is out of the pack"
    DEAD = "next card is in the dead hand"
    PLAYED = "next card has been played"
    OUT = "a player went out"
    SPIN = "Spin played on top"
    IN_LIEU = "Pope played in lieu of a stop"


@dataclass(frozen=True)
class Run:
    """One lead and the cards it forced, in order, with who played each. Its seats count from
    1; exactly one of ``next_leader`` and ``winner`` is None."""

    leader: int
    """Seat that led."""
    cards: tuple[Card, ...]
    seats: tuple[int, ...]
    """Seat that played each card of ``cards``."""
    reason: StopReason
    next_leader: int | None
    """Seat that leads next (the player of the stop card); None when the deal ended (a
    player went out)."""
    winner: int | None
    """Seat that went out during this run; None if no one did."""
    chosen: int | None = None
    """Index in ``cards`` of a card played by a choice inside the run (Spin, or the Pope in
    lieu of a stop); None if no choice played one."""

    def __post_init__(self) -> None:
        if (type(self.leader) is not int or self.leader < 1
                or (self.next_leader is not None and self.next_leader < 1)
                or (self.winner is not None and self.winner < 1)):
            raise IllegalPlayError(
                f"a run's seats count from 1 (None for none): leader {self.leader!r}, "
                f"next_leader {self.next_leader!r}, winner {self.winner!r}")

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
            "seat": self.leader,
            "lead": card_name(self.lead),
            "run": [card_name(c) for c in self.cards],
            "played_by": list(self.seats),
            "stop": card_name(self.stop_card),
            "reason": self.reason.value,
            "next_leader": self.next_leader,
            "out": self.winner,
            "step": self.step,
        }

    @property
    def step(self) -> str:
        """The run as a line of play writes it: its lead, and a card a choice played out of
        turn with the card it followed (``8S+9D@9S``: the Pope played after the 9S)."""
        lead = card_name(self.lead)
        if self.chosen is None:
            return lead
        return (f"{lead}+{card_name(self.cards[self.chosen])}"
                f"@{card_name(self.cards[self.chosen - 1])}")

    @property
    def leader_after(self) -> int:
        """Seat on lead after the run: the player of the stop card, or the run's own
        leader when a player went out (a finished deal keeps its leader)."""
        return self.leader if self.next_leader is None else self.next_leader

    def describe(self) -> str:
        """The run on one line: each card with its player (``+`` marks a card a
        choice played), then who went out, or the stop and who leads next."""
        played = " ".join(f"{'+' if i == self.chosen else ''}{card_name(c)}({s})"
                          for i, (c, s) in enumerate(zip(self.cards, self.seats, strict=True)))
        if self.winner is not None:
            return f"{played}; seat {self.winner} is out"
        return f"{played}; stop: {self.reason.value}; seat {self.leader_after} leads"


@dataclass(frozen=True)
class Choice:
    """A decision inside a run (a rule table's choice point): ``chooser`` takes one of
    ``options``; the first declines (plays on as if the rule were not there). ``chooser``
    counts from 1."""

    chooser: int
    kind: ChoiceKind
    options: tuple[RunTree, ...]


RunTree = Run | Choice
"""A lead's run as it branches at each choice: a :class:`Run` where no choice is left."""


def outcomes(tree: RunTree) -> list[Run]:
    """Every run a lead can end in, each choice's first option first."""
    if isinstance(tree, Run):
        return [tree]
    return [run for option in tree.options for run in outcomes(option)]


def _run(leader: int, cards: tuple[Card, ...], seats: tuple[int, ...], reason: StopReason,
         next_leader: int | None, winner: int | None, chosen: int | None = None) -> Run:
    """A :class:`Run` from the run tree's 0-based indices, its seats counted from 1."""
    return Run(leader + 1, cards, tuple(s + 1 for s in seats), reason,
               None if next_leader is None else next_leader + 1,
               None if winner is None else winner + 1, chosen)


def _marked(tree: RunTree, chosen: int) -> RunTree:
    """``tree`` with every run in it marking ``cards[chosen]`` as played by a choice."""
    if isinstance(tree, Run):
        return replace(tree, chosen=chosen)
    return replace(tree, options=tuple(_marked(option, chosen) for option in tree.options))


@dataclass(frozen=True)
class Game:
    """The fixed facts of a deal that play depends on."""

    rules: Ruleset
    players: int
    dealt: tuple[Mask, ...]
    """Every card dealt to each seat (held or played): ``dealt[i]`` is seat ``i + 1``'s."""
    in_play: Mask
    holder_index: tuple[int, ...]
    """``holder_index[c]``: the 0-based index of the seat dealt card ``c``, or -1 when ``c``
    is dead or absent. A table internal to play and the engines (an ``int`` per card, read in
    their inner loops), not a seat: outside them ask :meth:`holder` or
    ``DealStructure.holder``, which count from 1 and say None."""
    trumps: int
    turnup: Card

    @classmethod
    def from_deal(cls, deal: DealStructure) -> Game:
        """The game of ``deal`` (a :class:`DealError` for anything but a deal): its cards as
        dealt, all the play reads (a :class:`~.deal.Deal`, or a structure being checked)."""
        check_deal_type(deal, DealStructure, "a Deal is needed here", DealError)
        dealt = tuple(deal.dealt_hand(s) for s in range(deal.players))
        holder = [-1] * 52
        for seat, mask in enumerate(dealt):
            for card in iter_mask(mask):
                holder[card] = seat
        return cls(deal.rules, deal.players, dealt, deal.in_play, tuple(holder), deal.trumps,
                   deal.turnup)

    @cached_property
    def table(self) -> RuleTable:
        """The ruleset's compiled table (``rules.table``): all that play, settlement and the
        engines read of the rules (a test may change a rule here alone)."""
        return self.rules.table

    @cached_property
    def _spin_point(self) -> ChoicePoint | None:
        """The table's Spin, looked up once a game (every card of a run asks)."""
        return self.table.choice(ChoiceKind.SPIN)

    @cached_property
    def _lieu_point(self) -> ChoicePoint | None:
        """The table's card in lieu of a stop, looked up once a game."""
        return self.table.choice(ChoiceKind.IN_LIEU)

    def seat_index(self, seat: int, what: str = "seat") -> int:
        """The 0-based index of ``seat`` (from 1) into :attr:`dealt`; an
        :class:`IllegalPlayError` for anything but a seat of this game."""
        if type(seat) is not int or not 0 < seat <= self.players:
            raise IllegalPlayError(f"{what} must be from 1 to {self.players} (seats count from "
                                   f"1), not {seat!r}")
        return seat - 1

    def holder(self, card: Card) -> int | None:
        """The seat dealt ``card``; None for a dead or absent card."""
        index = self.holder_index[check_card(card, "holder's card", IllegalPlayError)]
        return None if index < 0 else index + 1

    def held(self, played: Mask, seat: int) -> Mask:
        """The cards ``seat`` still holds with ``played`` played."""
        return self.dealt[self.seat_index(seat)] & ~played

    def winner(self, played: Mask) -> int | None:
        """The seat with no cards left, or None while the deal goes on."""
        for index in range(self.players):
            if not self.dealt[index] & ~played:
                return index + 1
        return None

    def legal_leads(self, played: Mask, leader: int) -> list[Card]:
        """The cards ``leader`` may lead by the lead rule alone, in ascending suit order (clubs
        first, bottom first); :meth:`Position.legal_leads` also knows when the deal is over."""
        held = self.dealt[self.seat_index(leader, "leader")] & ~played
        return legal_leads(self.rules, held)

    def stop_reason(self, card: Card, played: Mask) -> StopReason | None:
        """Why a run stops after ``card`` with ``played`` already played; None if it goes on."""
        above = self.table.successor[card]
        if above < 0:
            return StopReason.TOP
        if not self.table.pack >> above & 1:
            return StopReason.ABSENT
        if not self.in_play >> above & 1:
            return StopReason.DEAD
        if played >> above & 1:
            return StopReason.PLAYED
        return None

    def run(self, played: Mask, leader: int, lead: Card) -> Run:
        """Play ``lead`` and its forced run. Raises :class:`IllegalPlayError` for a bad lead."""
        if self.winner(played) is not None:
            raise IllegalPlayError("the deal is over: a player has gone out")
        if lead not in self.legal_leads(played, leader):
            raise IllegalPlayError(
                f"seat {leader} may not lead {card_name(lead)} here "
                f"(legal: {' '.join(card_name(c) for c in self.legal_leads(played, leader))})"
            )
        return self.forced_run(played, leader, lead)

    def run_tree(self, played: Mask, leader: int, lead: Card) -> RunTree:
        """Every way the run after ``lead`` can go, branching at the table's choice points
        (just the forced run without them); the lead is not checked."""
        if not self.table.choice_points:
            return self.forced_run(played, leader, lead)
        index = self.seat_index(leader, "leader")
        return self._tree(played, index, (), (), lead, index)

    def runs(self, played: Mask, leader: int, lead: Card) -> list[Run]:
        """Every run ``lead`` can end in (one without choice points); the lead is checked."""
        self.run(played, leader, lead)
        return outcomes(self.run_tree(played, leader, lead))

    def _tree(self, played: Mask, leader: int, cards: tuple[Card, ...],
              seats: tuple[int, ...], card: Card, seat: int) -> RunTree:
        """The run from ``card``, played now by ``seat``, on: Spin's choice after it (here and
        in :meth:`_after` and :meth:`_in_lieu` ``leader``, ``seat`` and ``seats`` are 0-based
        indices; :func:`_run` counts the run's seats from 1)."""
        played |= 1 << card
        cards, seats = (*cards, card), (*seats, seat)
        if not self.dealt[seat] & ~played:
            return _run(leader, cards, seats, StopReason.OUT, None, seat)
        going_on = self._after(played, leader, cards, seats, card)
        spin = self._spin_point
        if (spin is None or card == spin.card or self.holder_index[spin.card] != seat
                or played >> spin.card & 1):
            return going_on
        cards_spun, seats_spun = (*cards, spin.card), (*seats, seat)
        if not self.dealt[seat] & ~(played | 1 << spin.card):
            spun = _run(leader, cards_spun, seats_spun, StopReason.OUT, None, seat, len(cards))
        else:
            spun = _run(leader, cards_spun, seats_spun, StopReason.SPIN, seat, None, len(cards))
        return Choice(seat + 1, ChoiceKind.SPIN, (going_on, spun))

    def _after(self, played: Mask, leader: int, cards: tuple[Card, ...],
               seats: tuple[int, ...], card: Card) -> RunTree:
        """After ``card`` (played, no one out): the next card, or the stop and the choice of
        playing the Pope in lieu of the missing card."""
        reason = self.stop_reason(card, played)
        if reason is None:
            above = self.table.successor[card]
            return self._tree(played, leader, cards, seats, above, self.holder_index[above])
        stop = _run(leader, cards, seats, reason, seats[-1], None)
        lieu = self._lieu_point
        if (lieu is None or played >> lieu.card & 1 or self.holder_index[lieu.card] < 0
                or (reason is StopReason.TOP and not lieu.after_top)):
            return stop
        chooser = self.holder_index[lieu.card]
        return Choice(chooser + 1, ChoiceKind.IN_LIEU,
                      (stop, self._in_lieu(played, leader, cards, seats, card, lieu)))

    def _in_lieu(self, played: Mask, leader: int, cards: tuple[Card, ...],
                 seats: tuple[int, ...], stop: Card, lieu: ChoicePoint) -> RunTree:
        """The Pope played in place of the card missing above ``stop``; then the card above
        the missing one if the reading goes on and it can be played, else the Pope's player
        leads. (The 7♦'s missing card is the 8♦: the card above it is the Pope itself, so the
        run goes on from the 10♦.)"""
        chooser = self.holder_index[lieu.card]
        played |= 1 << lieu.card
        chosen = len(cards)
        cards, seats = (*cards, lieu.card), (*seats, chooser)
        if not self.dealt[chooser] & ~played:
            return _run(leader, cards, seats, StopReason.OUT, None, chooser, chosen)
        missing = self.table.successor[stop]
        above = self.table.successor[missing] if missing >= 0 else -1
        if above == lieu.card:
            above = self.table.successor[above]
        if lieu.continues and above >= 0 and self.in_play >> above & 1 and not played >> above & 1:
            seat = self.holder_index[above]
            return _marked(self._tree(played, leader, cards, seats, above, seat), chosen)
        return _run(leader, cards, seats, StopReason.IN_LIEU, chooser, None, chosen)

    def forced_run(self, played: Mask, leader: int, lead: Card) -> Run:
        """The run after ``lead``, without checking that the lead is legal (every choice
        declined: the whole run when the table has no choice points)."""
        cards: list[Card] = []
        seats: list[int] = []
        seat = self.seat_index(leader, "leader")  # 0-based in the loop
        card = lead
        while True:
            played |= 1 << card
            cards.append(card)
            seats.append(seat + 1)
            if not self.dealt[seat] & ~played:
                return Run(leader, tuple(cards), tuple(seats), StopReason.OUT, None, seat + 1)
            reason = self.stop_reason(card, played)
            if reason is not None:
                return Run(leader, tuple(cards), tuple(seats), reason, seat + 1, None)
            card = self.table.successor[card]
            seat = self.holder_index[card]


@dataclass(frozen=True)
class Position:
    """A point in the play of a deal: the game, the cards played and the seat to lead (from
    1: an :class:`IllegalPlayError` for anything but a seat of the game)."""

    game: Game
    played: Mask
    leader: int

    def __post_init__(self) -> None:
        if not isinstance(self.game, Game):
            raise IllegalPlayError(f"a position's game is a Game (Game.from_deal gives one), "
                                   f"not {type(self.game).__name__}")
        if type(self.leader) is not int or not 0 < self.leader <= self.game.players:
            self.game.seat_index(self.leader, "a position's leader")

    @classmethod
    def from_deal(cls, deal: DealStructure) -> Position:
        """The position ``deal`` stands at (a :class:`DealError` for anything but a deal)."""
        return cls(Game.from_deal(deal), deal.played_mask, deal.leader)

    @property
    def winner(self) -> int | None:
        """The seat that went out, or None while the deal goes on."""
        return self.game.winner(self.played)

    @property
    def is_over(self) -> bool:
        """Whether a player has gone out."""
        return self.winner is not None

    def legal_leads(self) -> list[Card]:
        """The cards the leader may lead: none once someone is out, and none in a deal its
        turn-up ended unplayed (the Pope turned up under ``pope_turnup=ends-deal``)."""
        if self.is_over or self.game.turnup == self.game.table.ends_deal_turnup:
            return []
        return self.game.legal_leads(self.played, self.leader)

    def play(self, lead: Card) -> tuple[Run, Position]:
        """The run that ``lead`` forces (every choice in it declined) and the position after."""
        run = self.game.run(self.played, self.leader, lead)
        return run, self.after(run)

    def outcomes(self, lead: Card) -> list[Run]:
        """Every run ``lead`` can end in, by the choices inside it (checked legal)."""
        return self.game.runs(self.played, self.leader, lead)

    def after(self, run: Run) -> Position:
        """The position after ``run``, one of the outcomes of a lead from here (a run is
        not checked to be one: :meth:`outcomes` gives them)."""
        if type(run) is not Run:
            raise IllegalPlayError(f"a position moves on by a Run, not {type(run).__name__}")
        next_leader = self.leader if run.next_leader is None else run.next_leader
        return Position(self.game, self.played | run.mask, next_leader)

    def reachable(self) -> Iterator[Position]:
        """Every position play reaches from this one (this one first), each once: every
        legal lead and every outcome of its run (a choice's options too)."""
        seen = {(self.played, self.leader)}
        todo = [self]
        while todo:
            position = todo.pop()
            yield position
            for lead in position.legal_leads():
                for run in position.outcomes(lead):
                    after = position.after(run)
                    if (after.played, after.leader) not in seen:
                        seen.add((after.played, after.leader))
                        todo.append(after)
