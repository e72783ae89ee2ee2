"""A table's session as a state machine: deals, leads, choices inside runs, readiness.

The session is its :class:`TableSpec` and the list of :class:`Event` accepted so far (a lead,
a choice inside a run, a person ready for the next deal); :meth:`Session.apply` checks each
against the rules model and moves on, and replaying the same events rebuilds the same session
(this is what the store keeps). The deals are dealt from the spec's seed, one at a time, on the
board the last deal left re-dressed, the deal passing to the left, as ``popejoan match`` plays
a session (``bots.driver``). Players are numbered from 0 here, round the table; in deal ``k``
player ``p`` sits at seat ``(p - k) mod n`` (seat 0 eldest, the last the dealer).

The state moves ``playing`` → ``between-deals`` (every person says ready, or runs out of time)
→ ``playing`` ... → ``over``. Inside ``playing``, the table waits for one decision: the lead of
the seat to lead, or, once a lead's run reaches a choice (Spin, the Pope in lieu of a stop),
the choice of the seat that holds its card.

A choice is its chooser's alone until the run is over: face to face, the A♦'s holder "may turn
any card he plays into a stop by promptly covering it" (Parlett, *The Penguin Book of Card
Games*, "Spinado") and "Pope Joan is sometimes allowed to be played at any time in lieu of a
stop" (Peel, *Round Games with Cards*, "Pope Joan"): the card is seen once played, and a holder
who lets the moment pass shows nothing. So while a run waits for a choice, everyone else's
view of the table (:meth:`Session.public_turn`, :meth:`Session.public_plays`,
:meth:`Session.version_of`) stands where it stood before the lead, and the versions the others
see count leads and readiness, never choices.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property
from typing import Final, Literal

from ...model.board import Board
from ...model.cards import Card, Mask, card_name, iter_mask
from ...model.deal import Deal, deal_random
from ...model.play import Choice, Position, Run, RunTree, outcomes
from ...model.record import Play, Record, RecordedDeal, plays_of_run
from ...model.rules import LeadRule, ruleset_sources
from ...model.settlement import (
    DealSettlement,
    Transfer,
    apply_to_board,
    compartments_taken,
    dressing,
    settle,
    turnup_award,
)
from ...model.table import ChoiceKind, compile_rules
from ...seat.inference import common_prefix
from .spec import PERSON, TableError, TableSpec

Phase = Literal["playing", "between-deals", "over"]

TIMED_OUT_TAG: Final = "TimedOut"
"""The deal tag that marks the decisions a bot made for a person whose time ran out."""


class EventKind(StrEnum):
    LEAD = "lead"
    CHOOSE = "choose"
    READY = "ready"


class By(StrEnum):
    """Who made a decision: the seat's person, its bot, or a bot for a person out of time."""

    PERSON = "person"
    BOT = "bot"
    TIMEOUT = "timeout"


@dataclass(frozen=True)
class Event:
    """One decision accepted: a lead (``value`` the card), a choice (``value`` the option: 0
    declines, 1 takes), or readiness for the next deal; ``player`` from 0."""

    kind: EventKind
    player: int
    value: int
    by: By

    def to_json(self) -> list[object]:
        return [self.kind.value, self.player, self.value, self.by.value]

    @classmethod
    def from_json(cls, data: list[object]) -> Event:
        kind, player, value, by = data
        assert isinstance(player, int)
        assert isinstance(value, int)
        return cls(EventKind(str(kind)), player, value, By(str(by)))


@dataclass(frozen=True)
class Turn:
    """The decision the table waits for: whose (a player from 0) and of what kind."""

    player: int
    kind: Literal["lead", "choice"]


@dataclass(frozen=True)
class PendingChoice:
    """A choice inside a run, asked of its chooser: the lead, the cards played so far in the
    run (with their seats), and the choice's kind and card. Its seats are the table's 0-based
    seat indices, as :meth:`Session.player_at` takes them."""

    chooser: int
    kind: ChoiceKind
    card: Card
    cards: tuple[Card, ...]
    seats: tuple[int, ...]


@dataclass(frozen=True)
class DealDone:
    """A finished deal: as dealt, its runs, the settlement, and the marks of time-outs."""

    deal: Deal
    runs: tuple[Run, ...]
    settlement: DealSettlement
    timed_out: tuple[str, ...]

    @cached_property
    def plays(self) -> tuple[Play, ...]:
        return tuple(play for run in self.runs for play in plays_of_run(run))

    def recorded(self) -> RecordedDeal:
        tags = ((TIMED_OUT_TAG, " ".join(self.timed_out)),) if self.timed_out else ()
        return RecordedDeal(self.deal, self.plays, tags=tags)


def illegal_reason(position: Position, card: Card) -> str:
    """Why ``card`` is not a legal lead of the seat on lead, with the rule's words (the card
    is not named: an answer names no card its seat cannot know, even one it sent)."""
    held = position.game.held(position.played, position.leader)
    legal = " ".join(card_name(c) for c in position.legal_leads())
    if not held >> card & 1:
        why = "the seat does not hold it"
    else:
        rules = position.game.rules
        source = ruleset_sources(rules)["lead"]
        rule = {LeadRule.LOWEST_OF_SUIT: "the lowest card held of a suit must be led",
                LeadRule.LOWEST_IN_HAND: "the lowest card in hand must be led"}.get(
                    rules.lead, "it may not be led")
        why = (f"{rule} (lead={rules.lead.value}; {source.work.citation()}: "
               f"\"{source.phrase}\")")
    return f"that card may not be led: {why} (legal: {legal})"


class Session:
    """A session in play: the spec, the events accepted, and the state they lead to."""

    def __init__(self, spec: TableSpec) -> None:
        self.spec = spec
        self.events: list[Event] = []
        self.done: list[DealDone] = []
        self.ready: set[int] = set()
        self.final_hands: tuple[Mask, ...] | None = None
        self.deal: Deal
        self.position: Position
        self.runs: list[Run] = []
        self.lead: Card | None = None
        self.node: RunTree | None = None
        self._path: list[int] = []
        self._decisions: list[int] = []
        self._timed_out: list[str] = []
        self._playing = False
        self._public_events = 0
        self._choices_by = [0] * spec.players
        self._start(None)

    # ------------------------------------------------------------------ the state

    @property
    def n(self) -> int:
        return self.spec.players

    @property
    def index(self) -> int:
        """The deal under way or last finished, from 0."""
        return len(self.done) - (0 if self._playing else 1)

    @property
    def phase(self) -> Phase:
        if self._playing:
            return "playing"
        return "over" if len(self.done) == self.spec.deals else "between-deals"

    def seat_of(self, player: int, index: int | None = None) -> int:
        """The 0-based seat ``player`` holds in deal ``index`` (default: the current)."""
        return (player - (self.index if index is None else index)) % self.n

    def player_at(self, seat: int, index: int | None = None) -> int:
        return ((self.index if index is None else index) + seat) % self.n

    def turn(self) -> Turn | None:
        """The decision the table waits for while a deal is played."""
        if not self._playing:
            return None
        if isinstance(self.node, Choice):
            return Turn(self.player_at(self.node.chooser - 1), "choice")
        return Turn(self.player_at(self.position.leader - 1), "lead")

    def public_turn(self) -> Turn | None:
        """The decision the others see awaited: while a run waits for a choice, still the lead
        of its leader (the run is not theirs to see before it is over)."""
        if isinstance(self.node, Choice):
            return Turn(self.player_at(self.position.leader - 1), "lead")
        return self.turn()

    def chooser(self) -> int | None:
        """The player (from 0) whose choice a run waits for, if any."""
        node = self.node
        return self.player_at(node.chooser - 1) if isinstance(node, Choice) else None

    def held_from(self, player: int | None) -> bool:
        """Whether a run under way is held from ``player`` (None: a watcher): it waits for a
        choice that is not this player's."""
        chooser = self.chooser()
        return chooser is not None and chooser != player

    def version_of(self, player: int | None) -> int:
        """The version ``player`` (None: a watcher) sees: the leads and readiness it may know
        of (a run held from it not yet), and its own choices; never another's choice."""
        if player is None:
            return self._public_events - (1 if self.chooser() is not None else 0)
        held = 1 if self.held_from(player) else 0
        return self._public_events - held + self._choices_by[player]

    def waiting_for(self) -> tuple[int, ...]:
        """The people the table waits for between deals (not yet ready)."""
        if self.phase != "between-deals":
            return ()
        return tuple(p for p in self.spec.people if p not in self.ready)

    @property
    def pending(self) -> PendingChoice | None:
        """The choice the table waits for, if any."""
        node = self.node
        if not isinstance(node, Choice):
            return None
        prefix = common_prefix(node)
        first = outcomes(node)[0]
        point = compile_rules(self.deal.rules).choice(node.kind)
        assert point is not None
        return PendingChoice(node.chooser - 1, node.kind, point.card, prefix,
                             tuple(s - 1 for s in first.seats[:len(prefix)]))

    def decisions(self, seat: int) -> int:
        """How many decisions ``seat`` made in this deal (for a bot's generator)."""
        return self._decisions[seat]

    @property
    def path(self) -> tuple[int, ...]:
        """The options taken so far inside the run under way."""
        return tuple(self._path)

    # ------------------------------------------------------------------ moving on

    def apply(self, event: Event) -> None:
        """Accept ``event`` or raise :class:`TableError` (409 out of turn, 400 illegal)."""
        if event.kind is EventKind.READY:
            self._ready(event)
        elif event.kind is EventKind.LEAD:
            self._lead(event)
        else:
            self._choose(event)
        self.events.append(event)
        if event.kind is EventKind.CHOOSE:
            self._choices_by[event.player] += 1
        else:
            self._public_events += 1

    def _check_turn(self, event: Event, kind: str) -> Turn:
        turn = self.turn()
        if turn is None:
            raise TableError(f"no deal is being played ({self.phase})", 409)
        if turn.player != event.player or turn.kind != kind:
            wanted = "a choice inside the run" if turn.kind == "choice" else "the lead"
            raise TableError(f"it is not seat {event.player + 1}'s turn: the table waits for "
                             f"{wanted} of seat {turn.player + 1}", 409)
        return turn

    def _lead(self, event: Event) -> None:
        self._check_turn(event, "lead")
        card, position = event.value, self.position
        if card not in position.legal_leads():
            raise TableError(illegal_reason(position, card), 400)
        self._note(event, len(self._plays_before()) + 1, taken=True)
        self.lead = card
        self.node = position.game.run_tree(position.played, position.leader, card)
        self._path = []
        self._advance()

    def _choose(self, event: Event) -> None:
        self._check_turn(event, "choice")
        node = self.node
        assert isinstance(node, Choice)
        if event.value not in range(len(node.options)):
            raise TableError(f"a choice is 0 (decline) or 1 (take), not {event.value}", 400)
        pending = self.pending
        assert pending is not None
        self._note(event, len(self._plays_before()) + len(pending.cards) + 1,
                   taken=event.value == 1)
        self._path.append(event.value)
        self.node = node.options[event.value]
        self._advance()

    def _note(self, event: Event, play: int, taken: bool) -> None:
        seat = self.seat_of(event.player)
        self._decisions[seat] += 1
        if event.by is By.TIMEOUT:
            self._timed_out.append(str(play) if taken else f"{play - 1}-")

    def _ready(self, event: Event) -> None:
        if self.phase != "between-deals":
            raise TableError(f"no deal to start: the table is {self.phase}", 409)
        if self.spec.seats[event.player] != PERSON:
            raise TableError("a bot needs no readiness", 409)
        self.ready.add(event.player)
        if not self.waiting_for():
            self._start(self.done[-1].settlement.board_after)

    def _advance(self) -> None:
        """After a decision: wait at a choice, or finish the run (and perhaps the deal)."""
        if isinstance(self.node, Choice):
            return
        run = self.node
        assert isinstance(run, Run)
        self.runs.append(run)
        self.position = self.position.after(run)
        self.lead, self.node, self._path = None, None, []
        if self.position.is_over:
            self._finish()

    def _start(self, carried: Board | None) -> None:
        """Deal the next deal (on the carried board re-dressed), or end the session."""
        rules, n = self.spec.rules, self.n
        index = len(self.done)
        if index == self.spec.deals:
            self._playing = False
            return
        board = None if carried is None else apply_to_board(carried, dressing(rules, n))
        self.deal = deal_random(n, self.spec.seed, rules, index, board)
        self.position = Position.from_deal(self.deal)
        self.runs = []
        self.lead = None
        self.node = None
        self._path = []
        self._decisions = [0] * n
        self._timed_out = []
        self.ready = set()
        self._playing = True
        if not turnup_award(self.deal, self.deal.board_or_dressed).deal_is_played:
            self._finish()

    def _finish(self) -> None:
        position = self.position
        settlement = settle(self.deal, position.played, position.winner)
        self.done.append(DealDone(self.deal, tuple(self.runs), settlement,
                                  tuple(self._timed_out)))
        self._playing = False
        if len(self.done) == self.spec.deals:
            if self.spec.final_round:
                self.final_hands = final_round_hands(self.spec)
        elif not self.spec.people:
            self._start(settlement.board_after)

    # ------------------------------------------------------------------ what is public

    def _plays_before(self) -> list[tuple[int, Card, bool]]:
        return [(seat - 1, card, k == run.chosen) for run in self.runs
                for k, (card, seat) in enumerate(zip(run.cards, run.seats, strict=True))]

    def public_plays(self, chooser: bool = False) -> list[tuple[int, Card, bool]]:
        """The cards played in the deal under way, in order, each with its 0-based seat and
        whether a choice played it; the cards of a run waiting for a choice only for its
        ``chooser``."""
        plays = self._plays_before() if self._playing or not self.done else [
            (p.seat - 1, p.card, p.choice) for p in self.done[-1].plays]
        pending = self.pending if self._playing and chooser else None
        if pending is not None:
            plays += list(zip(pending.seats, pending.cards, [False] * len(pending.cards),
                              strict=True))
        return plays

    def played_mask(self) -> Mask:
        mask = 0
        for _, card, _ in self.public_plays():
            mask |= 1 << card
        return mask

    def board_now(self) -> Board:
        """The board as it stands in the deal under way: dressed, after the turn-up's award
        and what play has taken (a run under way counted once it ends)."""
        deal = self.deal
        board = deal.board_or_dressed
        board = apply_to_board(board, turnup_award(deal, board).transfers)
        return apply_to_board(board, compartments_taken(self.position.game, board,
                                                        self.position.played))

    def payments(self) -> list[Transfer]:
        """The payments made so far in the deal under way: the turn-up's award, then what
        each run took from the board."""
        deal = self.deal
        board = deal.board_or_dressed
        award = turnup_award(deal, board)
        board = apply_to_board(board, award.transfers)
        return [*award.transfers, *compartments_taken(self.position.game, board,
                                                      self.position.played)]

    def record(self) -> Record:
        """The record of the deals finished so far (the final round once the session is over).
        The deal under way never appears."""
        names = tuple(f"Seat {p + 1} ({'person' if kind == PERSON else kind})"
                      for p, kind in enumerate(self.spec.seats))
        return Record(self.spec.rules, tuple(d.recorded() for d in self.done),
                      (("Event", "popejoan web table"),), names, self.n,
                      self.final_hands if self.phase == "over" else None)


def final_round_hands(spec: TableSpec) -> tuple[Mask, ...]:
    """Hoyle's final round: the whole pack dealt face up, no dead hand, from the seed."""
    cards = list(iter_mask(spec.rules.table.pack))
    random.Random(f"popejoan-table-final:{spec.seed}").shuffle(cards)
    hands = [0] * spec.players
    for k, card in enumerate(cards):
        hands[k % spec.players] |= 1 << card
    return tuple(hands)


def replay(spec: TableSpec, events: list[Event]) -> Session:
    """The session ``events`` lead to from ``spec``."""
    session = Session(spec)
    for event in events:
        session.apply(event)
    return session
