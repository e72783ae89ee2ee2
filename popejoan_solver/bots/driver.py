"""Play a deal, or a session of deals, with a bot in every seat.

Each decision sees only the deciding seat's :func:`~popejoan_solver.seat.knowledge` (the true
position goes to a ``sees_all`` bot alone); runs, stops and choices are the model's
(``Game.run_tree``), never restated. The result is the line of runs, the settlement and a game
record (``docs/records.md``) that ``popejoan check`` referees. A session carries the board from
deal to deal and passes the deal to the left, as the referee reads a record of several deals:
the dealer re-dresses the last board ("each dealer in rotation should himself dress the board").
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..model.board import Board
from ..model.cards import Card
from ..model.deal import Deal, deal_random, position_deal
from ..model.play import Choice, Position, Run, RunTree
from ..model.record import Record, RecordedDeal, plays_of_run
from ..model.rules import Ruleset, SpareHand
from ..model.settlement import (
    DealSettlement,
    Transfer,
    apply_to_board,
    dressing,
    net,
    settle,
    turnup_award,
)
from ..seat import Knowledge, knowledge, knowledge_at_choice
from ..seat.inference import common_prefix
from .base import Bot, BotError, ChoiceRequest, LeadRequest
from .sight import revealed_cards, sight_of


@dataclass(frozen=True)
class PlayedDeal:
    """One deal as the bots played it."""

    deal: Deal
    """The deal as dealt, with the board it was dressed to (``None``: a fresh board)."""
    runs: tuple[Run, ...]
    dressing: tuple[Transfer, ...]
    settlement: DealSettlement
    decisions: tuple[tuple[int, float, float], ...] = field(default=())
    """Every decision a bot made: its seat (from 1), the wall-clock seconds it took and the
    process's CPU seconds (the second is what a loaded machine does not inflate)."""

    @property
    def values(self) -> tuple[int, ...]:
        """Each seat's counters won (negative: lost), dressing included, as ``check`` says."""
        transfers = self.dressing + self.settlement.turnup + self.settlement.play
        return tuple(net(transfers, seat) for seat in range(1, self.deal.players + 1))

    @property
    def board_after(self) -> Board:
        return self.settlement.board_after

    def recorded(self) -> RecordedDeal:
        plays = tuple(play for run in self.runs for play in plays_of_run(run))
        return RecordedDeal(self.deal, plays)


def decision_rng(seed: int, label: str, seat: int, index: int) -> random.Random:
    """The generator of one decision, from the match seed, the deal's public label (its
    index in a match), the seat (from 1) and the seat's decision count: the same whoever plays
    it, wherever and whenever, and nothing in it from the hidden cards. (The seed string
    holds the seat's 0-based index, as it always has: the streams stay the same.)"""
    if type(seat) is not int or seat < 1:
        raise BotError(f"a decision's seat counts from 1, not {seat!r}")
    return random.Random(f"popejoan-bot:{seed}:{label}:{seat - 1}:{index}")


def peek_rules(rules: Ruleset) -> Ruleset:
    """The ruleset with the dealer looking at the spare hand (Peel's "the dealer shall look at
    the spare hand"): what a peeking bot knows as dealer; play is unchanged."""
    return rules.with_options({"spare_hand": SpareHand.DEALER_SEES.value})


class _Table:
    """One deal in play: the bots, what each seat has decided, and the line so far (its
    methods take seats from 1; its lists are indexed from 0)."""

    def __init__(self, deal: Deal, bots: Sequence[Bot], seed: int, label: str) -> None:
        self.deal = deal
        self.bots = bots
        self.seed = seed
        self.label = label
        self.line: list[Run] = []
        self.counts = [0] * deal.players
        self.decisions: list[tuple[int, float, float]] = []
        dealer = deal.players - 1
        self.views = [deal.with_rules(peek_rules(deal.rules))
                      if seat == dealer and bots[seat].peeks else deal
                      for seat in range(deal.players)]
        self.revealed = [revealed_cards(deal, seat + 1, sight_of(bots[seat]))
                         for seat in range(deal.players)]

    def knows(self, seat: int) -> Knowledge:
        return knowledge(self.views[seat - 1], seat, tuple(self.line),
                         revealed=self.revealed[seat - 1])

    def rng(self, seat: int) -> random.Random:
        self.counts[seat - 1] += 1
        return decision_rng(self.seed, self.label, seat, self.counts[seat - 1] - 1)

    def lead(self, position: Position, board: Board) -> Card:
        seat = position.leader
        bot = self.bots[seat - 1]
        legal = tuple(position.legal_leads())
        truth = position_deal(self.deal, position, board) if bot.sees_all else None
        started, cpu = time.perf_counter(), time.process_time()
        card = bot.lead(LeadRequest(self.knows(seat), legal, self.rng(seat), truth))
        self.decisions.append((seat, time.perf_counter() - started, time.process_time() - cpu))
        if card not in legal:
            raise BotError(f"bot {bot.name!r} chose {card} at seat {seat}: not a legal lead")
        return card

    def resolve(self, position: Position, board: Board, lead: Card, tree: RunTree) -> Run:
        """Walk the lead's run down its choices, each asked of its chooser."""
        while isinstance(tree, Choice):
            chooser = tree.chooser
            bot = self.bots[chooser - 1]
            truth = position_deal(self.deal, position, board) if bot.sees_all else None
            view = knowledge_at_choice(self.views[chooser - 1], chooser,
                                       tuple(self.line), lead, tree,
                                       revealed=self.revealed[chooser - 1])
            request = ChoiceRequest(view, tree.kind, lead,
                                    common_prefix(tree), len(tree.options),
                                    self.rng(tree.chooser), truth)
            started, cpu = time.perf_counter(), time.process_time()
            index = bot.choose(request)
            self.decisions.append((tree.chooser, time.perf_counter() - started,
                                   time.process_time() - cpu))
            if not 0 <= index < len(tree.options):
                raise BotError(f"bot {bot.name!r} chose option {index} of "
                               f"{len(tree.options)}")
            tree = tree.options[index]
        return tree


def play_deal(deal: Deal, bots: Sequence[Bot], seed: int, label: str = "") -> PlayedDeal:
    """Play ``deal`` (as dealt) with ``bots[i]`` at seat ``i + 1``; ``label`` names the
    deal publicly (its index) for the decisions' generators."""
    if len(bots) != deal.players:
        raise BotError(f"{len(bots)} bots for {deal.players} seats")
    board = deal.board_or_dressed
    award = turnup_award(deal, board)
    table = _Table(deal, bots, seed, label)
    position = Position.from_deal(deal)
    if award.deal_is_played:
        board = apply_to_board(board, award.transfers)
        while not position.is_over:
            lead = table.lead(position, board)
            tree = position.game.run_tree(position.played, position.leader, lead)
            run = table.resolve(position, board, lead, tree)
            table.line.append(run)
            position = position.after(run)
    settlement = settle(deal, position.played, position.winner)
    dressed = tuple(dressing(deal.rules, deal.players)) if deal.board is None else ()
    return PlayedDeal(deal, tuple(table.line), dressed, settlement, tuple(table.decisions))


def play_session(rules: Ruleset, players: int, seed: int, first_index: int, deals: int,
                 bots_by_player: Sequence[Bot], bot_seed: int) -> list[PlayedDeal]:
    """A session of ``deals`` seeded deals (indices from ``first_index``): player ``p`` is
    ``bots_by_player[p]``; deal ``k`` is dealt by player ``(n - 1 + k) mod n`` (so seat ``s``
    is player ``(k + s) mod n``), on the last deal's board re-dressed."""
    played: list[PlayedDeal] = []
    carried: Board | None = None
    for k in range(deals):
        board = (None if carried is None
                 else apply_to_board(carried, dressing(rules, players)))
        deal = deal_random(players, seed, rules, first_index + k, board)
        seats = [bots_by_player[(k + s) % players] for s in range(players)]
        result = play_deal(deal, seats, bot_seed, str(first_index + k))
        if carried is not None:
            result = PlayedDeal(result.deal, result.runs, tuple(dressing(rules, players)),
                                result.settlement, result.decisions)
        played.append(result)
        carried = result.board_after
    return played


def session_record(played: Sequence[PlayedDeal], names: Sequence[str],
                   tags: Sequence[tuple[str, str]] = ()) -> Record:
    """The record of a session (or of one deal): the players named round the table."""
    return Record(played[0].deal.rules, tuple(p.recorded() for p in played), tuple(tags),
                  tuple(names))


def seat_of(deal_in_session: int, player: int, players: int) -> int:
    """The seat (from 1) the 0-based player ``player`` holds in deal ``deal_in_session`` of a
    session."""
    return (player - deal_in_session) % players + 1
