"""The referee: replay a game record against the rules, deal by deal, and confirm it or name
its first illegal or inconsistent step with the rule it breaks.

Each lead must be made by the seat to lead and be a legal lead; the cards after it must follow
the lead's run tree (:meth:`~popejoan_solver.model.play.Game.run_tree`): the next card by its
holder, at a choice one of its options (the chooser playing the choice card, marked as a
choice), and at a stop the next lead by the stop card's player. A session carries the board
from deal to deal, the dealer rotating left and re-dressing it (``docs/records.md``).

:func:`replay` returns every lead with the position before it and the run it made, and each
deal's settlement: what the grader and ``popejoan check`` read.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final

from .board import Board, Compartment
from .cards import Card, card_name
from .deal import Deal
from .errors import PopeJoanError
from .play import Position, Run, outcomes
from .record import Play, Record, RecordedDeal
from .rules import GameKind, Ruleset, ruleset_sources
from .settlement import (
    DealSettlement,
    Transfer,
    apply_to_board,
    dressing,
    final_round,
    net,
    settle,
    turnup_award,
)
from .sources import HOFFMANN, Source

FIRST_LEAD: Final = Source(HOFFMANN, "The player to the left of the dealer leads any card he "
                                     "pleases")
RUN: Final = Source(HOFFMANN, "The player who chances to hold the four thereupon plays and "
                              "names it")
STOP: Final = Source(HOFFMANN, "the run of that particular lead can be continued no further, "
                               "and the player of the seven is entitled to lead again")
OUT: Final = Source(HOFFMANN, "The game proceeds as above described until some one of the "
                              "players is \"out,\" i.e. has got rid of all his cards")
AWARDS: Final = Source(HOFFMANN, "the holder is entitled to the counters in the corresponding "
                                 "compartment of the board")
CARRY: Final = Source(HOFFMANN, "The unclaimed counters in each compartment are left to "
                                "accumulate")
ROTATION: Final = Source(HOFFMANN, "each dealer in rotation should himself dress the board",
                         section="Pope Joan, note 40")
FINAL: Final = Source(HOFFMANN, "deal a final round face upwards (without the surplus hand)")


class Breach(StrEnum):
    """The kinds of illegal or inconsistent step, each with the rule it breaks."""

    LEAD_RULE = "lead rule"
    LEAD_OUT_OF_TURN = "lead out of turn"
    OUT_OF_TURN = "out of turn in a run"
    STOPPED_EARLY = "run stopped too early"
    PAST_STOP = "run continued past a stop"
    CHOICE = "choice inside a run"
    AFTER_OUT = "played after a player went out"
    UNFINISHED = "deal not played to its end"
    TURNUP = "deal ended by the turn-up"
    CLAIM = "claimed result"
    DEALER = "dealer out of rotation"
    BOARD = "board not carried forward"


@dataclass(frozen=True)
class Violation:
    """The first illegal or inconsistent step: 0-based deal and play (None: the deal as a
    whole), the kind, the rule's source and what happened."""

    deal: int
    play: int | None
    breach: Breach
    source: Source
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal + 1, "play": None if self.play is None else self.play + 1,
                "rule": self.breach.value, "source": self.source.to_json(),
                "message": self.message}

    def describe(self) -> str:
        where = f"deal {self.deal + 1}" + ("" if self.play is None else f", play {self.play + 1}")
        return f"{where}: {self.breach.value}: {self.message} ({self.source.cite()})"


class _StopError(Exception):
    """Raised inside a replay at the first violation."""

    def __init__(self, violation: Violation) -> None:
        super().__init__(violation.message)
        self.violation = violation


@dataclass(frozen=True)
class ReplayStep:
    """One lead: the position before it and the run it made (``run.chosen`` marks a choice)."""

    position: Position
    run: Run
    first_play: int
    """0-based index in the deal's plays of the lead."""


@dataclass(frozen=True)
class DealReplay:
    """One deal replayed: the deal with the board it was played on, its leads, what was paid."""

    deal: Deal
    dealer: int
    """The player (from 1) who dealt."""
    players: tuple[int, ...]
    """The player (from 1) at each seat: seat ``s``'s at index ``s - 1``."""
    steps: tuple[ReplayStep, ...]
    dressing: tuple[Transfer, ...]
    settlement: DealSettlement
    board_before: Board
    """The board before this deal's dressing (the last deal's board after play)."""

    @property
    def transfers(self) -> tuple[Transfer, ...]:
        return self.dressing + self.settlement.turnup + self.settlement.play

    @property
    def values(self) -> tuple[int, ...]:
        """Each seat's counters won (negative: lost) in the deal, its dressing included (seat
        ``i + 1``'s at index ``i``)."""
        return tuple(net(self.transfers, s) for s in range(1, self.deal.players + 1))

    @property
    def board_after(self) -> Board:
        return self.settlement.board_after

    def to_json(self) -> dict[str, Any]:
        return {"dealer": self.dealer, "players": list(self.players),
                "values": list(self.values), "board_before": self.board_before.to_json(),
                "board_dressed": self.settlement.board_before.to_json(),
                "board_after": self.board_after.to_json(),
                "leads": [s.run.to_json() for s in self.steps],
                "transfers": [t.to_json() for t in self.transfers]}


@dataclass(frozen=True)
class RecordReplay:
    """A record replayed: the deals confirmed (all of them unless ``error``), the final round
    and each player's running total."""

    record: Record
    deals: tuple[DealReplay, ...]
    final: tuple[Transfer, ...]
    error: Violation | None

    @property
    def legal(self) -> bool:
        return self.error is None

    @property
    def totals(self) -> tuple[int, ...]:
        """Each player's counters over the deals confirmed (and the final round): player
        ``p``'s at index ``p - 1``."""
        totals = [0] * self.record.seats
        for replayed in self.deals:
            for player, value in zip(replayed.players, replayed.values, strict=True):
                totals[player - 1] += value
        if self.deals and self.error is None:
            for seat, player in enumerate(self._final_players(), 1):
                totals[player - 1] += net(self.final, seat)
        return tuple(totals)

    def _final_players(self) -> tuple[int, ...]:
        index = len(self.record.deals)
        return tuple(self.record.player_at(index, s) for s in range(1, self.record.seats + 1))

    @property
    def board(self) -> Board | None:
        """The board left at the end (after the final round, if any)."""
        if not self.deals:
            return None
        return apply_to_board(self.deals[-1].board_after, self.final)

    def to_json(self) -> dict[str, Any]:
        """The replay as ``popejoan check --json`` prints it and the web's ``POST /api/check``
        answers."""
        return {"legal": self.legal, "rules": self.record.rules.name,
                "players": [self.record.player_name(p)
                            for p in range(1, self.record.seats + 1)],
                "deals": [d.to_json() for d in self.deals],
                "final_round": [t.to_json() for t in self.final] if self.final else None,
                "totals": list(self.totals),
                "board": self.board.to_json() if self.board is not None else None,
                "error": None if self.error is None else self.error.to_json()}


def replay(record: Record) -> RecordReplay:
    """Replay every deal of ``record``; stops at the first violation."""
    done: list[DealReplay] = []
    board: Board | None = None
    try:
        for index, recorded in enumerate(record.deals):
            try:
                replayed = _replay_deal(record, index, recorded, board)
            except PopeJoanError as exc:  # a board carried past the limit: which deal's
                carried = " (the board carried from the deal before)" if index else ""
                raise type(exc)(f"deal {index + 1}{carried}: {exc}") from None
            done.append(replayed)
            board = replayed.board_after
    except _StopError as stop:
        return RecordReplay(record, tuple(done), (), stop.violation)
    final: tuple[Transfer, ...] = ()
    if record.final_round is not None and board is not None:
        final = tuple(final_round(record.final_round, board))
    return RecordReplay(record, tuple(done), final, None)


def _replay_deal(record: Record, index: int, recorded: RecordedDeal,
                 carried: Board | None) -> DealReplay:
    deal = recorded.deal
    dealer = record.dealer_of(index)
    if recorded.dealer is not None and recorded.dealer != dealer:
        raise _StopError(Violation(index, None, Breach.DEALER, ROTATION,
                              f"the record names player {recorded.dealer} as dealer, but the "
                              f"deal passes to the left: player {dealer} deals"))
    dressed = tuple(dressing(deal.rules, deal.players))
    if carried is None:
        before = deal.board if deal.board is not None else Board(*[0] * len(Compartment))
        dressed = dressed if deal.board is None else ()
    else:
        before = carried
    board = apply_to_board(before, dressed)
    if carried is not None and deal.board is not None and deal.board != board:
        raise _StopError(Violation(index, None, Breach.BOARD, CARRY,
                              f"the deal gives the board {_board_text(deal.board)}, but the last "
                              f"deal's board re-dressed is {_board_text(board)}"))
    deal = deal.with_board(board)
    unfinished = index == len(record.deals) - 1 and is_unfinished(recorded)
    steps, position = _replay_plays(index, deal, recorded.plays, board, unfinished)
    settlement = settle(deal, position.played, position.winner)
    replayed = DealReplay(deal, dealer,
                          tuple(record.player_at(index, s) for s in range(1, deal.players + 1)),
                          tuple(steps), dressed, settlement, before)
    _check_claim(index, recorded, replayed)
    return replayed


def _board_text(board: Board) -> str:
    return " ".join(f"{c.value} {n}" for c, n in board.items() if n) or "empty"


def is_unfinished(recorded: RecordedDeal) -> bool:
    """Whether the deal is tagged ``Termination "unfinished"``: its plays may end before
    anyone went out (the last deal of a record only; nothing is paid for its play)."""
    return any(k.lower() == "termination" and v == "unfinished" for k, v in recorded.tags)


def _replay_plays(index: int, deal: Deal, plays: tuple[Play, ...], board: Board,
                  unfinished: bool) -> tuple[list[ReplayStep], Position]:
    """Every lead of the deal, checked; the position at the end."""
    position = Position.from_deal(deal)
    if not turnup_award(deal, board).deal_is_played:
        if plays:
            raise _StopError(Violation(index, 0, Breach.TURNUP,
                                  ruleset_sources(deal.rules)["pope_turnup"],
                                  f"the turn-up {card_name(deal.turnup)} ends the deal: no card "
                                  "is played"))
        return [], position
    steps: list[ReplayStep] = []
    at = 0
    last: Run | None = None
    while not position.is_over:
        if at == len(plays) and unfinished:
            break
        if at == len(plays):
            raise _StopError(Violation(index, at, Breach.UNFINISHED, OUT,
                                  f"the plays end before anyone went out: seat "
                                  f"{position.leader} is to lead"))
        _check_lead(index, at, position, plays[at], last)
        last, used = _match_run(index, at, position, plays)
        steps.append(ReplayStep(position, last, at))
        position = position.after(last)
        at += used
    winner = position.winner  # the loop above ends with plays left only once a seat is out
    if at < len(plays) and winner is not None:
        raise _StopError(Violation(index, at, Breach.AFTER_OUT, OUT,
                              f"seat {winner} went out with the "
                              f"{card_name(plays[at - 1].card)} (play {at}): the deal is over, "
                              f"yet seat {plays[at].seat} plays the "
                              f"{card_name(plays[at].card)}"))
    return steps, position


def _above(rules: Ruleset, card: Card) -> set[Card]:
    """The cards above ``card`` in its suit's order."""
    found: set[Card] = set()
    successor = rules.table.successor
    card = successor[card]
    while card >= 0:
        found.add(card)
        card = successor[card]
    return found


def _check_lead(index: int, at: int, position: Position, play: Play, last: Run | None) -> None:
    """The lead ``play`` is made by the seat to lead, from its hand, by the lead rule."""
    game = position.game
    rules = game.rules
    name = card_name(play.card)
    if play.choice:
        raise _StopError(Violation(index, at, Breach.CHOICE, _choice_source(rules),
                              f"the {name} is marked as a choice, but no choice plays it here: "
                              f"seat {position.leader} is to lead"))
    if play.seat != position.leader:
        if last is not None and any(c.card == play.card for c in game.table.choice_points):
            raise _StopError(Violation(
                index, at, Breach.CHOICE, _choice_source(rules),
                f"seat {position.leader} is to lead: the {name} by seat {play.seat} "
                "can only be a choice inside the last run, and is not marked as one"))
        if last is not None and play.card in _above(rules, last.stop_card):
            raise _StopError(Violation(
                index, at, Breach.PAST_STOP, STOP,
                f"the {card_name(last.stop_card)} is a stop ({last.reason.value}): seat "
                f"{position.leader} leads next, but seat {play.seat} goes on with the "
                f"{name}"))
        raise _StopError(Violation(
            index, at, Breach.LEAD_OUT_OF_TURN, STOP if last is not None else FIRST_LEAD,
            f"seat {play.seat} leads the {name}, but seat {position.leader} is to lead"
            + (f" (it played the stop {card_name(last.stop_card)})" if last is not None
               else " (eldest)")))
    if not game.held(position.played, play.seat) >> play.card & 1:
        raise _StopError(Violation(index, at, Breach.LEAD_RULE, ruleset_sources(rules)["lead"],
                              f"seat {play.seat} leads the {name}, which it does not hold "
                              f"({_whereabouts(position, play.card)})"))
    legal = position.legal_leads()
    if play.card not in legal:
        raise _StopError(Violation(index, at, Breach.LEAD_RULE, ruleset_sources(rules)["lead"],
                              f"seat {play.seat} may not lead the {name} under "
                              f"lead={rules.lead.value} (legal: "
                              f"{' '.join(card_name(c) for c in legal)})"))


def _choice_source(rules: Ruleset) -> Source:
    """The source of the ruleset's choices inside a run (Spin is Spinado's own)."""
    return ruleset_sources(rules)["pope_in_lieu" if rules.game is GameKind.POPE_JOAN
                                  else "game"]


def _whereabouts(position: Position, card: Card) -> str:
    holder = position.game.holder(card)
    if holder is None:
        return "it is in the dead hand" if position.game.table.pack >> card & 1 else \
            "it is not in the pack"
    if position.played >> card & 1:
        return "it has been played"
    return f"seat {holder} holds it"


def _entries(run: Run) -> list[tuple[int, Card, bool]]:
    return [(s, c, k == run.chosen) for k, (c, s) in enumerate(zip(run.cards, run.seats,
                                                                   strict=True))]


def _matched(run: Run, plays: tuple[Play, ...], at: int) -> int:
    """How many of the run's cards the plays from ``at`` give, in order."""
    count = 0
    for (seat, card, choice), play in zip(_entries(run), plays[at:], strict=False):
        if (play.seat, play.card, play.choice) != (seat, card, choice):
            break
        count += 1
    return count


def _match_run(index: int, at: int, position: Position,
               plays: tuple[Play, ...]) -> tuple[Run, int]:
    """The run of the lead at ``at`` that the plays make, and how many plays it takes."""
    game = position.game
    runs = outcomes(game.run_tree(position.played, position.leader, plays[at].card))
    matched = [(_matched(run, plays, at), run) for run in runs]
    reach = max(m for m, _ in matched)
    full = [run for m, run in matched if m == len(run.cards) == reach]
    if full:
        return full[0], reach
    expected = [_entries(run)[reach] for m, run in matched if m == reach]
    raise _StopError(_deviation(index, at + reach, position, plays, expected))


def _deviation(index: int, at: int, position: Position, plays: tuple[Play, ...],
               expected: list[tuple[int, Card, bool]]) -> Violation:
    """What is wrong with the play at ``at`` where the run goes on with one of ``expected``."""
    rules = position.game.rules
    seat, card, _ = next((e for e in expected if not e[2]), expected[0])
    going_on = f"the run goes on with the {card_name(card)} (seat {seat})"
    if at == len(plays):
        return Violation(index, at, Breach.UNFINISHED, RUN,
                         f"the plays end in the middle of a run: {going_on}")
    play = plays[at]
    name = card_name(play.card)
    choice_source = _choice_source(rules)
    if any(c == play.card and ch == play.choice for _, c, ch in expected):
        holder = next(s for s, c, ch in expected if c == play.card)
        return Violation(index, at, Breach.OUT_OF_TURN, RUN,
                         f"the {name} is played by its holder, seat {holder}, "
                         f"not seat {play.seat}")
    if any(c == play.card for _, c, _ in expected):
        return Violation(index, at, Breach.CHOICE, choice_source,
                         f"the {name} here is {'not ' if play.choice else ''}a choice inside "
                         f"the run: {'unmark' if play.choice else 'mark'} it")
    if play.choice:
        return Violation(index, at, Breach.CHOICE, choice_source,
                         f"no choice plays the {name} here: {going_on}")
    if play.seat == plays[at - 1].seat:
        return Violation(index, at, Breach.STOPPED_EARLY, RUN,
                         f"the {card_name(plays[at - 1].card)} is no stop, yet seat "
                         f"{play.seat} plays the {name}: {going_on}")
    return Violation(index, at, Breach.OUT_OF_TURN, RUN,
                     f"seat {play.seat} plays the {name} out of turn: {going_on}")


def _check_claim(index: int, recorded: RecordedDeal, replayed: DealReplay) -> None:
    """The results the record claims are the ones the rules give."""
    rules = recorded.deal.rules
    source = AWARDS if rules.game is GameKind.POPE_JOAN else ruleset_sources(rules)["game"]
    claimed = recorded.claim.values
    if claimed is not None and claimed != replayed.values:
        at = next(i for i, (a, b) in enumerate(zip(claimed, replayed.values, strict=True))
                  if a != b)
        paid = "; ".join(_transfer_text(t) for t in replayed.transfers
                         if at + 1 in (t.payer, t.payee)) or "nothing"
        raise _StopError(Violation(index, None, Breach.CLAIM, source,
                              f"seat {at + 1} claims {claimed[at]:+d}, but the rules give "
                              f"{replayed.values[at]:+d} ({paid})"))
    board = recorded.claim.board_after
    if board is not None and board != replayed.board_after:
        raise _StopError(Violation(index, None, Breach.CLAIM, CARRY,
                              f"the claimed board after the deal is {_board_text(board)}, but "
                              f"the rules leave {_board_text(replayed.board_after)}"))


def _transfer_text(t: Transfer) -> str:
    def party(p: object) -> str:
        return f"seat {p}" if isinstance(p, int) else str(p)
    return f"{party(t.payer)} -> {party(t.payee)} {t.amount} ({t.reason})"


def describe(result: RecordReplay) -> list[str]:
    """The replay as lines of text: each deal's values and board, the totals, the error."""
    record = result.record
    lines = []
    for i, replayed in enumerate(result.deals):
        names = ", ".join(f"seat {s + 1} {record.player_name(p)} {v:+d}"
                          for s, (p, v) in enumerate(zip(replayed.players, replayed.values,
                                                         strict=True)))
        lines.append(f"deal {i + 1} (dealer {record.player_name(replayed.dealer)}, "
                     f"{len(replayed.steps)} leads): {names}")
        lines.append(f"  board after: {_board_text(replayed.board_after)}")
    if result.final:
        dealer = record.player_name(record.dealer_of(len(record.deals)))
        lines.append(f"final round (dealer {dealer}): "
                     + "; ".join(_transfer_text(t) for t in result.final))
    lines.append("totals: " + ", ".join(f"{record.player_name(p)} {v:+d}"
                                        for p, v in enumerate(result.totals, 1)))
    if result.error is None:
        lines.append(f"legal: every play of the {len(result.deals)} "
                     f"deal{'s' if len(result.deals) > 1 else ''} follows the rules")
    else:
        lines.append(f"ILLEGAL at {result.error.describe()}")
    return lines
