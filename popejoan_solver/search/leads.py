"""Per-lead values of the seat on lead: what single-dummy advice solves on each sampled deal.

One engine (and its transposition table, and its history of good leads) serves every lead of
the deal, so the positions the leads share are searched once. Each lead's paranoid value comes
first; its forced win is searched only where that value reaches the Game stake (a leader who can
force going out is worth at least that much) and does not exceed the most the leader can end
with without going out (above it, it must go out). The compiled core makes these searches for
all the leads in one call; the lead-at-a-time path below is the same, for the other engines.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache, partial

from ..model.arguments import check_time_limit
from ..model.board import Board
from ..model.cards import Card
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.play import Game, Position
from ..model.settlement import best_without_going_out
from .api import check_tt_entries, interruptible, make_engine, play_board
from .driver import Driver
from .fast import DEFAULT_TT_ENTRIES, FastEngine
from .objective import Goal, Objective
from .result import Value


@dataclass(frozen=True)
class LeadEval:
    """A legal lead of the seat on lead: the paranoid value its leader keeps after it (net
    counters, as :func:`solve`), and whether the leader can still force going out (1/0)."""

    card: Card
    guaranteed: Value
    forced_win: Value
    """1 or 0 when exact; bounds 0..1 when not searched (``forced_win=False``) or timed out."""


@dataclass(frozen=True)
class LeadValues:
    """What :func:`evaluate_leads` found: the leads' values and the nodes it searched."""

    leads: tuple[LeadEval, ...]
    nodes: int
    exact: bool


def lead_values(deal: Deal, *, forced_win: bool = True, time_limit: float | None = None,
                engine: str = "fast", tt_entries: int | None = None,
                guesses: Mapping[Card, int] | None = None) -> tuple[LeadEval, ...]:
    """Every legal lead of the seat on lead at ``deal`` (a fresh deal or a position), in card
    order, with its values; choices inside runs are taken by their choosers (as in solve).

    Empty when the deal is over or not played (the Pope turned up under a ruleset that ends
    it). Past ``time_limit`` values come back as proven bounds. ``guesses`` (a lead's
    guessed paranoid value) only speed the search: see :func:`evaluate_leads`.
    """
    return evaluate_leads(deal, forced_win=forced_win, time_limit=time_limit, engine=engine,
                          tt_entries=tt_entries, guesses=guesses).leads


def evaluate_leads(deal: Deal, *, forced_win: bool = True, time_limit: float | None = None,
                   engine: str = "fast", tt_entries: int | None = None,
                   guesses: Mapping[Card, int] | None = None) -> LeadValues:
    """:func:`lead_values` with the search's statistics (for benchmarks).

    ``guesses`` maps a lead (card) to a guess of its paranoid value, say the mean of that
    lead's values over the samples valued so far: MTD(f) starts there, and the nearer the
    guess the fewer nodes. **A guess changes no value**, only the work; a lead without a guess
    (or a card that is not a legal lead) starts from the engine's last value.
    """
    check_time_limit(time_limit)
    if tt_entries is not None:
        check_tt_entries(tt_entries)
    starts = _checked_guesses(guesses)
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    game = Game.from_deal(deal)
    board, award = play_board(deal)
    position = Position(game, deal.played_mask, deal.leader)
    if (award is not None and not award.deal_is_played) or position.is_over:
        return LeadValues((), 0, True)
    entries = DEFAULT_TT_ENTRIES if tt_entries is None else tt_entries
    driver = Driver(make_engine(engine, game, board, deadline, entries), game, board, deadline)

    staying = cache(partial(best_without_going_out, game, board, position.leader))

    def work() -> tuple[LeadEval, ...]:
        if not starts and isinstance(driver.engine, FastEngine):
            batch = driver.engine.lead_values(position.played, position.leader, forced_win,
                                              staying())
            if batch is not None:
                return _batch_evals(driver, position, *batch)
        return tuple(_lead_eval(driver, board, position, lead, forced_win, staying,
                                starts.get(lead))
                     for lead in position.legal_leads())

    leads = interruptible(work, [driver.engine])
    return LeadValues(leads, driver.engine.nodes, driver.exact)


def _batch_evals(driver: Driver, position: Position,
                 found: dict[Card, tuple[tuple[int, int], tuple[int, int]]],
                 done: bool) -> tuple[LeadEval, ...]:
    """The compiled core's values of every lead (FastEngine.lead_values), as LeadEvals in card
    order; the driver is inexact where they are."""
    if not done:
        driver.exact = False
    legal = position.legal_leads()
    if sorted(found) != sorted(legal):
        raise RuntimeError("the compiled core's leads are not the position's legal leads")
    return tuple(LeadEval(lead, Value(*found[lead][0]), Value(*found[lead][1]))
                 for lead in legal)


def _checked_guesses(guesses: Mapping[Card, int] | None) -> dict[Card, int]:
    """The guesses as a plain dict, refused unless cards map to whole numbers."""
    if guesses is None:
        return {}
    if not isinstance(guesses, Mapping):
        raise PopeJoanError(f"guesses must map cards to whole numbers, not {guesses!r}")
    for card, guess in guesses.items():
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise PopeJoanError(f"a guess must be for a card (0 to 51), not {card!r}")
        if isinstance(guess, bool) or not isinstance(guess, int) or abs(guess) > 1 << 20:
            raise PopeJoanError(f"a lead's guess must be a whole number of counters, "
                                f"not {guess!r}")
    return dict(guesses)


def _lead_eval(driver: Driver, board: Board, position: Position, lead: Card,
               forced_win: bool, staying: Callable[[], int],
               guess: int | None = None) -> LeadEval:
    """One lead's values: its paranoid value first, then its forced win, known without a
    search where that value decides it: 0 below the Game stake (a seat that goes out takes
    the Game and pays nothing; only where no award is paid between players, Spinado's), 1
    above ``staying()``, the most the leader can end with when another seat goes out."""
    leader = position.leader
    tree = position.game.run_tree(position.played, leader, lead)
    guaranteed = driver.tree_value(Objective(Goal.GUARANTEED, leader), position, tree, guess)
    if not forced_win:
        return LeadEval(lead, guaranteed, Value(0, 1))
    if guaranteed.upper < board.game and not _paid_between_players(position.game):
        return LeadEval(lead, guaranteed, Value.exact(0))
    if guaranteed.lower > staying():
        return LeadEval(lead, guaranteed, Value.exact(1))
    win = driver.tree_value(Objective(Goal.FORCED_WIN, leader), position, tree)
    return LeadEval(lead, guaranteed, win)


def _paid_between_players(game: Game) -> bool:
    """Whether some award is paid by one player to another (then going out is not worth the
    Game stake at least)."""
    return any(award.from_each for award in game.table.awards(game.trumps))
