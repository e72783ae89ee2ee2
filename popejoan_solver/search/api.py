"""Solve a deal double dummy: every seat's values, the leader's leads and an optimal line; the
engines by name, the board a deal is played on, and the threads that search seats side by side."""

from __future__ import annotations

import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import TypeVar

from ..model.arguments import (
    check_flag,
    check_seat,
    check_time_limit,
    is_whole,
    shown,
)
from ..model.board import Board
from ..model.deal import Deal, check_deal
from ..model.errors import PopeJoanError, clip
from ..model.play import Game, Position
from ..model.settlement import TurnupAward, apply_to_board, dressing, turnup_award
from .driver import Driver, Engine
from .fast import COMPILED, DEFAULT_TT_ENTRIES, FastEngine
from .line import optimal_line
from .objective import Goal, Objective
from .reference import ReferenceEngine
from .result import LeadResult, SeatResult, Solution, SolveStats, Value

ENGINES = ("fast", "reference")

_T = TypeVar("_T")


_LIVE: weakref.WeakSet[Engine] = weakref.WeakSet()
"""Every engine not yet collected, so that Ctrl-C on a pool of searches can stop them all."""
_LIVE_LOCK = threading.Lock()


def check_engine(name: object) -> None:
    """An engine is one of :data:`ENGINES`, by name."""
    if not isinstance(name, str) or name not in ENGINES:
        raise PopeJoanError(f"unknown engine {shown(name)} (known: {', '.join(ENGINES)})")


def make_engine(name: str, game: Game, board: Board, deadline: float | None,
                tt_entries: int = DEFAULT_TT_ENTRIES) -> Engine:
    check_engine(name)
    engine: Engine
    if name == "fast":
        engine = FastEngine(game, board, deadline, tt_entries)
    else:
        engine = ReferenceEngine(game, board, deadline)
    with _LIVE_LOCK:
        _LIVE.add(engine)
    return engine


def cancel_searches() -> None:
    """Cancel every search under way in this process: for Ctrl-C while worker threads search
    (each ends within a few thousand nodes, raising its timeout error)."""
    with _LIVE_LOCK:
        engines = list(_LIVE)
    for engine in engines:
        engine.cancel()


_PLAY_BOARDS: dict[tuple[object, ...], tuple[Board, TurnupAward]] = {}
""":func:`play_board` of fresh deals played on, by what it reads of them (the samples of one
decision all share one)."""


def play_board(deal: Deal) -> tuple[Board, TurnupAward | None]:
    """The board the play of ``deal`` is searched on: as it stands, or for a fresh deal its
    dressed board after the turn-up award (also returned; it may end the deal unplayed)."""
    if not deal.is_fresh:
        return deal.board_or_dressed, None
    # The award reads the ruleset, the players, the board and the turn-up; only a turn-up
    # that ends the deal reads the hands too, and that result is not kept.
    key = (deal.rules, deal.players, deal.board, deal.turnup)
    found = _PLAY_BOARDS.get(key)
    if found is not None:
        return found
    dressed = deal.board_or_dressed
    award = turnup_award(deal, dressed)
    found = apply_to_board(dressed, award.transfers), award
    if award.deal_is_played:
        if len(_PLAY_BOARDS) >= 256:
            _PLAY_BOARDS.clear()
        _PLAY_BOARDS[key] = found
    return found


def solve(
    deal: Deal,
    *,
    seats: list[int] | None = None,
    engine: str = "fast",
    time_limit: float | None = None,
    tt_entries: int = DEFAULT_TT_ENTRIES,
    line_seat: int | None = None,
    with_line: bool = True,
    threads: int | None = None,
) -> Solution:
    """Solve ``deal`` (a fresh deal or a position) with every hand known.

    ``seats`` are 1-based seat numbers (default: all). The line defends ``line_seat``'s
    guaranteed value (default: the first of ``seats`` if one is named, else the seat on lead).
    With ``time_limit`` (seconds) unfinished values come back as bounds and
    ``solution.exact`` is false. ``with_line=False`` skips the optimal line (batch studies).
    ``threads`` searches the seats side by side (default: one per core for the compiled fast
    engine, else one); each thread has its own transposition table of ``tt_entries``.
    """
    check_time_limit(time_limit)
    check_tt_entries(tt_entries)
    check_engine(engine)
    check_flag(with_line, "with_line")
    started = time.monotonic()
    deadline = started + time_limit if time_limit is not None else None
    chosen = _checked_seats(deal, seats, line_seat)
    game = Game.from_deal(deal)
    board, award = play_board(deal)
    paid_for_dressing = tuple(dressing(deal.rules, deal.players)) if deal.is_fresh else ()
    leader = deal.leader
    notes: list[str] = []
    winner = game.winner(deal.played_mask)
    if winner is not None:
        notes.append(f"the deal is over: seat {winner} has gone out")
    if award is not None and not award.deal_is_played:
        notes.append("Pope turned up: under this ruleset the deal is not played")
        zero = Value.exact(0)
        unplayed = tuple(SeatResult(s, zero, zero, zero) for s in chosen)
        return Solution(unplayed, leader, (), leader, (),
                        SolveStats(0, time.monotonic() - started, engine, True),
                        award.transfers, paid_for_dressing, tuple(notes))
    position = Position(game, deal.played_mask, leader)
    workers = _worker_count(threads, engine, len(chosen))
    drivers = [Driver(make_engine(engine, game, board, deadline, tt_entries), game, board,
                       deadline) for _ in range(workers)]

    def work() -> Solution:
        results, leads = _search_seats(drivers, position, chosen)
        focus = line_seat if line_seat is not None else (chosen[0] if seats else leader)
        line = optimal_line(drivers[0], position, board, results, focus) if with_line else ()
        engines = [d.engine for d in drivers]
        stats = SolveStats(sum(e.nodes for e in engines), time.monotonic() - started,
                           engines[0].name, all(d.exact for d in drivers),
                           str(getattr(engines[0], "core", "")), len(drivers))
        return Solution(tuple(results), leader, tuple(leads), focus, line, stats,
                        award.transfers if award else (), paid_for_dressing, tuple(notes))

    return interruptible(work, [d.engine for d in drivers])


def interruptible(work: Callable[[], _T], engines: Sequence[Engine]) -> _T:
    """Run ``work`` on a thread of its own, so that Ctrl-C reaches the main thread at once
    (a compiled search holds no GIL but never looks at signals); on any exception there every
    engine is cancelled, and the work ends within a few thousand nodes."""
    if threading.current_thread() is not threading.main_thread():
        return work()
    pool = ThreadPoolExecutor(1, thread_name_prefix="popejoan-solve")
    try:  # submit inside: a Ctrl-C while the thread starts still cancels the engines
        return pool.submit(work).result()
    except BaseException:
        for engine in engines:
            engine.cancel()
        raise
    finally:
        pool.shutdown(wait=True)


def _search_seats(drivers: list[Driver], position: Position, chosen: list[int],
                  ) -> tuple[list[SeatResult], list[LeadResult]]:
    """Every chosen seat's values and the leads of the seat on lead."""
    if len(drivers) == 1:
        return _seats_in_turn(drivers[0], position, chosen)
    return _seats_side_by_side(drivers, position, chosen)


def _seats_in_turn(driver: Driver, position: Position, chosen: list[int],
                   ) -> tuple[list[SeatResult], list[LeadResult]]:
    """One search after another; each best case starts above the seat's guaranteed value."""
    leads = [driver.lead_value(position, lead) for lead in position.legal_leads()]
    results = []
    for seat in chosen:
        own = leads if seat == position.leader else None
        guaranteed, win = driver.paranoid_values(seat, position, own)
        results.append(SeatResult(seat, guaranteed, win,
                                  driver.best_case(seat, position, guaranteed)))
    return results, leads


def _seats_side_by_side(drivers: list[Driver], position: Position, chosen: list[int],
                        ) -> tuple[list[SeatResult], list[LeadResult]]:
    """The searches of different seats and goals are independent: the compiled core runs them
    without the GIL, each on an engine (and transposition table) of its own thread."""
    leader = position.leader
    n = position.game.players
    idle: queue.SimpleQueue[Driver] = queue.SimpleQueue()
    for driver in drivers:
        idle.put(driver)

    def on_a_driver(job: Callable[[Driver], _T]) -> _T:
        driver = idle.get()
        try:
            return job(driver)
        finally:
            idle.put(driver)

    def paranoid_job(seat: int, leads: list[LeadResult] | None = None,
                     ) -> Callable[[Driver], tuple[Value, Value]]:
        return lambda driver: driver.paranoid_values(seat, position, leads)

    pool = ThreadPoolExecutor(len(drivers))
    try:
        # The longest jobs first: the searches for the seats furthest from the lead are
        # the hardest on average (docs/performance.md).
        paranoid: dict[int, Future[tuple[Value, Value]]] = {}
        best_cases: dict[int, Future[Value]] = {}
        for seat in sorted(chosen, key=lambda s: -((s - leader) % n)):
            if seat != leader:
                paranoid[seat] = pool.submit(on_a_driver, paranoid_job(seat))
            best_cases[seat] = pool.submit(
                on_a_driver, lambda d, s=seat: d.best_case(s, position, None))
        lead_futures = [pool.submit(on_a_driver, lambda d, c=lead: d.lead_value(position, c))
                        for lead in position.legal_leads()]
        leads = [future.result() for future in lead_futures]
        if leader in chosen:
            paranoid[leader] = pool.submit(on_a_driver, paranoid_job(leader, leads))
        results = []
        for seat in chosen:
            guaranteed, win = paranoid[seat].result()
            results.append(SeatResult(seat, guaranteed, win, best_cases[seat].result()))
        return results, leads
    finally:
        # On an error or Ctrl-C, searches not yet started are dropped, not waited for.
        pool.shutdown(wait=True, cancel_futures=True)


MAX_TT_ENTRIES = 1 << 40
"""The most transposition-table entries a search may be given (the table grows on demand)."""

ENTRY_BYTES = 16
"""An entry's size in the compiled core (values beyond +-30,000 take 32: the cap below is
for the common case; a table that cannot grow keeps its size)."""


@cache
def tt_entries_limit() -> int:
    """The most entries a table may be given here: 2**40, and no more than this machine's
    memory holds (a table grows on demand up to its size; a size past the memory is a typo).
    Read once: every sample of an advice checks its table size."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return MAX_TT_ENTRIES
    return max(1, min(MAX_TT_ENTRIES, memory // ENTRY_BYTES))


def check_tt_entries(tt_entries: int) -> None:
    """A table size is a whole number of entries from 1 to :func:`tt_entries_limit`."""
    limit = tt_entries_limit()
    if not is_whole(tt_entries) or not 1 <= tt_entries <= limit:
        raise PopeJoanError(f"tt_entries (--tt-entries) must be from 1 to {limit:,} (the entries "
                            f"of 16 bytes this machine's memory holds), not "
                            f"{clip(repr(tt_entries))}")


def _checked_seats(deal: Deal, seats: Sequence[int] | None, line_seat: int | None) -> list[int]:
    """The 1-based seats to solve, after checking the deal and every seat named."""
    check_deal(deal, "solve takes a Deal", PopeJoanError)
    n = deal.players
    if seats is not None and (isinstance(seats, (str, bytes))
                              or not isinstance(seats, Sequence)):
        raise PopeJoanError(f"seats is a list of seat numbers, not {clip(repr(seats))}")
    chosen = list(range(1, n + 1)) if seats is None else list(seats)
    for seat in chosen:
        check_seat(seat, n)
    if line_seat is not None:
        check_seat(line_seat, n, name="line_seat")
    if len(set(chosen)) < len(chosen):
        raise PopeJoanError(f"a seat is named twice in seats {clip(repr(seats))}")
    return chosen


def _worker_count(threads: int | None, engine: str, seats: int) -> int:
    """Threads for a solve (a seat's paranoid and best-case searches and the leads are jobs of
    their own); by default one per core, but only the compiled core runs without the GIL."""
    if threads is not None:
        if not is_whole(threads) or threads < 1:
            raise PopeJoanError(f"threads must be a whole number from 1, not {clip(repr(threads))}")
        return min(threads, 2 * seats + 1)
    if engine != "fast" or not COMPILED:
        return 1
    return max(1, min(usable_cores(), 2 * seats + 1))


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the system tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not on Linux
        return os.cpu_count() or 1


def forced_win(deal: Deal, seat: int, *, time_limit: float | None = None,
               tt_entries: int = DEFAULT_TT_ENTRIES) -> Value:
    """Whether ``seat`` (1-based) can force going out first: 1 or 0, or bounds on a timeout.

    The one value a deal search needs, without the rest of a full :func:`solve`.
    """
    check_deal(deal, "forced_win takes a Deal", PopeJoanError)
    check_seat(seat, deal.players)
    check_time_limit(time_limit)
    check_tt_entries(tt_entries)
    deadline = time.monotonic() + time_limit if time_limit is not None else None
    game = Game.from_deal(deal)
    board, award = play_board(deal)
    if award is not None and not award.deal_is_played:
        return Value.exact(0)
    driver = Driver(make_engine("fast", game, board, deadline, tt_entries), game, board,
                     deadline)
    objective = Objective(Goal.FORCED_WIN, seat)
    return interruptible(lambda: driver.value(objective, deal.played_mask, deal.leader),
                         [driver.engine])
