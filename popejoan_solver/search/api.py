"""Solve a deal double dummy: every seat's values, the leader's leads and an optimal line."""

from __future__ import annotations

import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache, cached_property
from typing import Protocol, TypeVar

from ..model.arguments import (
    check_flag,
    check_seat,
    check_time_limit,
    is_whole,
    shown,
)
from ..model.board import Board
from ..model.cards import Card, Mask
from ..model.deal import Deal, check_deal
from ..model.errors import PopeJoanError, clip
from ..model.play import Choice, Game, Position, Run, RunTree
from ..model.settlement import (
    TurnupAward,
    apply_to_board,
    compartments_taken,
    dressing,
    going_out,
    play_values,
    turnup_award,
)
from ..model.table import award_shares
from .fast import COMPILED, DEFAULT_TT_ENTRIES, FastEngine
from .objective import INF, Goal, Objective, SearchTimeoutError
from .reference import ReferenceEngine
from .result import LeadResult, LineStep, SeatResult, Solution, SolveStats, Value

ENGINES = ("fast", "reference")

_T = TypeVar("_T")


class Engine(Protocol):
    """What the driver needs of a search engine."""

    name: str

    @property
    def nodes(self) -> int: ...

    def value(self, objective: Objective, played: Mask, leader: int,
              known: tuple[int, int] | None = None, guess: int | None = None) -> int: ...

    def at_least(self, objective: Objective, played: Mask, leader: int,
                 threshold: int) -> bool: ...

    def cancel(self) -> None: ...


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


class StaticBounds:
    """Bounds true of every line, from tables built once per deal: a seat pays at most its
    cards and takes at most everything; a payment between players whose card is played is
    already fixed, one still to come may go either way (its holder gains, every other seat
    pays)."""

    def __init__(self, game: Game, board: Board) -> None:
        self.dealt = game.dealt
        self.total = board.total()
        payments = []
        for award in game.table.awards(game.trumps):
            if award.compartment is not None:
                continue
            per_seat = [0] * game.players
            for taker, amount in award_shares(award, tuple(game.holder[c] for c in award.cards),
                                              0, game.players):
                per_seat[taker] += amount
            if any(per_seat):
                payments.append((sum(1 << c for c in award.cards), tuple(per_seat)))
        self.payments = tuple(payments)

    def __call__(self, objective: Objective, played: Mask) -> Value:
        if objective.goal is Goal.FORCED_WIN:
            return Value(0, 1)
        seat = objective.seat
        low = -(self.dealt[seat] & ~played).bit_count()
        high = self.total + sum((cards & ~played).bit_count()
                                for other, cards in enumerate(self.dealt) if other != seat)
        for cards, per_seat in self.payments:
            share = per_seat[seat]
            if played & cards == cards:
                low, high = low + share, high + share
            elif share < 0:
                low += share
            else:
                high += share
        return Value(low, high)


def static_bounds(game: Game, board: Board, objective: Objective, played: Mask) -> Value:
    """:class:`StaticBounds` of one position (building its tables each time)."""
    return StaticBounds(game, board)(objective, played)


class _Driver:
    """Runs the engine under one deadline and turns a timeout into proven bounds."""

    def __init__(self, engine: Engine, game: Game, board: Board,
                 deadline: float | None) -> None:
        self.engine = engine
        self.game = game
        self.board = board
        self.deadline = deadline
        self.exact = True

    @cached_property
    def static_bounds(self) -> StaticBounds:
        """The deal's static bounds, built on the first search this driver makes (the compiled
        core's batch of leads makes none here)."""
        return StaticBounds(self.game, self.board)

    def value(self, objective: Objective, played: Mask, leader: int,
              known: Value | None = None, guess: int | None = None) -> Value:
        """The position's value, or bounds past the deadline; ``known`` bounds narrow it and
        ``guess`` is where the search starts (it changes no value, only the nodes)."""
        winner = self.game.winner(played)
        if winner >= 0:
            if objective.goal is Goal.FORCED_WIN:
                return Value.exact(int(winner == objective.seat))
            return Value.exact(play_values(self.game, self.board, played, winner)[objective.seat])
        fallback = self.static_bounds(objective, played)
        if known is not None:
            fallback = Value(max(fallback.lower, known.lower), min(fallback.upper, known.upper))
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.exact = False
            return fallback
        try:
            return Value.exact(self.engine.value(objective, played, leader,
                                                 (fallback.lower, fallback.upper), guess))
        except SearchTimeoutError:
            self.exact = False
            proven = getattr(self.engine, "bounds", (fallback.lower, fallback.upper))
            return Value(max(proven[0], fallback.lower), min(proven[1], fallback.upper))

    def at_least(self, objective: Objective, played: Mask, leader: int,
                 threshold: int) -> bool | None:
        """Whether the position's value is at least ``threshold``; None past the deadline."""
        winner = self.game.winner(played)
        if winner >= 0:
            return self.value(objective, played, leader).lower >= threshold
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.exact = False
            return None
        try:
            return self.engine.at_least(objective, played, leader, threshold)
        except SearchTimeoutError:
            self.exact = False
            return None

    def paranoid_values(self, seat: int, position: Position,
                        leads: list[LeadResult] | None) -> tuple[Value, Value]:
        """A seat's (0-based) guaranteed value and forced win, against all the others.

        A forced win is worth at least the Game stake. The guaranteed value of the seat on lead
        is the best of its ``leads`` when they were computed.
        """
        played, leader = position.played, position.leader
        win = self.value(Objective(Goal.FORCED_WIN, seat), played, leader)
        if leads:
            return Value(max(lead.guaranteed.lower for lead in leads),
                         max(lead.guaranteed.upper for lead in leads)), win
        floor = Value(self.board.game, INF) if win.lower == 1 else None
        return self.value(Objective(Goal.GUARANTEED, seat), played, leader, floor), win

    def best_case(self, seat: int, position: Position, floor: Value | None) -> Value:
        """A seat's best case; ``floor`` (its guaranteed value, if known) is a lower bound."""
        known = Value(floor.lower, INF) if floor is not None else None
        return self.value(Objective(Goal.BEST_CASE, seat), position.played, position.leader,
                          known)

    def lead_value(self, position: Position, lead: Card) -> LeadResult:
        """A legal lead of the seat on lead with the guaranteed value it keeps after it."""
        position.play(lead)  # checks the lead
        tree = position.game.run_tree(position.played, position.leader, lead)
        return LeadResult(lead, self.tree_value(Objective(Goal.GUARANTEED, position.leader),
                                                position, tree))

    def tree_value(self, objective: Objective, position: Position, tree: RunTree,
                   guess: int | None = None) -> Value:
        """The value of a lead's run from ``position``, each choice in it taken by its
        chooser (bounds combine the same way past the deadline); every search of the tree
        starts from ``guess`` if given."""
        if isinstance(tree, Run):
            after = position.after(tree)
            return self.value(objective, after.played, after.leader, guess=guess)
        values = [self.tree_value(objective, position, option, guess)
                  for option in tree.options]
        pick = max if objective.maximises(tree.chooser) else min
        return Value(pick(v.lower for v in values), pick(v.upper for v in values))

    def tree_at_least(self, objective: Objective, position: Position, tree: RunTree,
                      threshold: int) -> bool | None:
        """Whether a lead's run from ``position`` is worth at least ``threshold``, each choice
        taken by its chooser; None past the deadline."""
        if isinstance(tree, Run):
            after = position.after(tree)
            return self.at_least(objective, after.played, after.leader, threshold)
        answers = []
        for option in tree.options:
            answer = self.tree_at_least(objective, position, option, threshold)
            if answer is None:
                return None
            if answer == objective.maximises(tree.chooser):
                return answer
            answers.append(answer)
        return answers[-1]


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
    if winner >= 0:
        notes.append(f"the deal is over: seat {winner + 1} has gone out")
    if award is not None and not award.deal_is_played:
        notes.append("Pope turned up: under this ruleset the deal is not played")
        zero = Value.exact(0)
        unplayed = tuple(SeatResult(s, zero, zero, zero) for s in chosen)
        return Solution(unplayed, leader + 1, (), leader + 1, (),
                        SolveStats(0, time.monotonic() - started, engine, True),
                        award.transfers, paid_for_dressing, tuple(notes))
    position = Position(game, deal.played_mask, leader)
    workers = _worker_count(threads, engine, len(chosen))
    drivers = [_Driver(make_engine(engine, game, board, deadline, tt_entries), game, board,
                       deadline) for _ in range(workers)]

    def work() -> Solution:
        results, leads = _search_seats(drivers, position, chosen)
        focus = line_seat if line_seat is not None else (chosen[0] if seats else leader + 1)
        line = _optimal_line(drivers[0], position, board, results, focus) if with_line else ()
        engines = [d.engine for d in drivers]
        stats = SolveStats(sum(e.nodes for e in engines), time.monotonic() - started,
                           engines[0].name, all(d.exact for d in drivers),
                           str(getattr(engines[0], "core", "")), len(drivers))
        return Solution(tuple(results), leader + 1, tuple(leads), focus, line, stats,
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


def _search_seats(drivers: list[_Driver], position: Position, chosen: list[int],
                  ) -> tuple[list[SeatResult], list[LeadResult]]:
    """Every chosen seat's values and the leads of the seat on lead."""
    if len(drivers) == 1:
        return _seats_in_turn(drivers[0], position, chosen)
    return _seats_side_by_side(drivers, position, chosen)


def _seats_in_turn(driver: _Driver, position: Position, chosen: list[int],
                   ) -> tuple[list[SeatResult], list[LeadResult]]:
    """One search after another; each best case starts above the seat's guaranteed value."""
    leads = [driver.lead_value(position, lead) for lead in position.legal_leads()]
    results = []
    for seat in chosen:
        own = leads if seat == position.leader + 1 else None
        guaranteed, win = driver.paranoid_values(seat - 1, position, own)
        results.append(SeatResult(seat, guaranteed, win,
                                  driver.best_case(seat - 1, position, guaranteed)))
    return results, leads


def _seats_side_by_side(drivers: list[_Driver], position: Position, chosen: list[int],
                        ) -> tuple[list[SeatResult], list[LeadResult]]:
    """The searches of different seats and goals are independent: the compiled core runs them
    without the GIL, each on an engine (and transposition table) of its own thread."""
    leader = position.leader
    n = position.game.players
    idle: queue.SimpleQueue[_Driver] = queue.SimpleQueue()
    for driver in drivers:
        idle.put(driver)

    def on_a_driver(job: Callable[[_Driver], _T]) -> _T:
        driver = idle.get()
        try:
            return job(driver)
        finally:
            idle.put(driver)

    def paranoid_job(seat: int, leads: list[LeadResult] | None = None,
                     ) -> Callable[[_Driver], tuple[Value, Value]]:
        return lambda driver: driver.paranoid_values(seat - 1, position, leads)

    pool = ThreadPoolExecutor(len(drivers))
    try:
        # The longest jobs first: the searches for the seats furthest from the lead are
        # the hardest on average (docs/performance.md).
        paranoid: dict[int, Future[tuple[Value, Value]]] = {}
        best_cases: dict[int, Future[Value]] = {}
        for seat in sorted(chosen, key=lambda s: -((s - 1 - leader) % n)):
            if seat != leader + 1:
                paranoid[seat] = pool.submit(on_a_driver, paranoid_job(seat))
            best_cases[seat] = pool.submit(
                on_a_driver, lambda d, s=seat: d.best_case(s - 1, position, None))
        lead_futures = [pool.submit(on_a_driver, lambda d, c=lead: d.lead_value(position, c))
                        for lead in position.legal_leads()]
        leads = [future.result() for future in lead_futures]
        if leader + 1 in chosen:
            paranoid[leader + 1] = pool.submit(on_a_driver, paranoid_job(leader + 1, leads))
        results = []
        for seat in chosen:
            guaranteed, win = paranoid[seat].result()
            results.append(SeatResult(seat, guaranteed, win, best_cases[seat].result()))
        return results, leads
    finally:
        # On an error or Ctrl-C, searches not yet started are dropped, not waited for.
        pool.shutdown(wait=True, cancel_futures=True)


def _optimal_line(driver: _Driver, position: Position, board: Board,
                  results: list[SeatResult], focus: int) -> tuple[LineStep, ...]:
    """The line that defends ``focus``'s guaranteed value (none if that value is not exact)."""
    objective = Objective(Goal.GUARANTEED, focus - 1)
    known = [r.guaranteed for r in results if r.seat == focus]
    value = known[0] if known else driver.value(objective, position.played, position.leader)
    if not value.is_exact:
        return ()
    return _principal_line(driver, position, board, objective, value.lower)


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
    driver = _Driver(make_engine("fast", game, board, deadline, tt_entries), game, board,
                     deadline)
    objective = Objective(Goal.FORCED_WIN, seat - 1)
    return interruptible(lambda: driver.value(objective, deal.played_mask, deal.leader),
                         [driver.engine])


def _principal_line(driver: _Driver, position: Position, board: Board,
                    objective: Objective, value: int) -> tuple[LineStep, ...]:
    """Follow, from ``position`` (whose exact value is ``value``), leads that keep that value.

    The focus seat takes its first lead whose value is at least ``value``, the others their
    first lead whose value is at most ``value`` — in the order of the legal leads (clubs first,
    lowest first), so ties go to the first; one null-window search per lead tried. Past a time
    limit the line is cut short.
    """
    steps: list[LineStep] = []
    game = position.game
    while not position.is_over:
        maximising = objective.maximises(position.leader)
        chosen: tuple[Run, Position] | None = None
        for lead in position.legal_leads():
            tree = game.run_tree(position.played, position.leader, lead)
            keeps = driver.tree_at_least(objective, position, tree,
                                         value if maximising else value + 1)
            if keeps is None:
                return tuple(steps)
            if keeps == maximising:
                run = _chosen_run(driver, objective, position, tree, value)
                if run is None:
                    return tuple(steps)
                chosen = (run, position.after(run))
                break
        if chosen is None:
            raise AssertionError(f"no lead keeps the value {value} (solver inconsistency)")
        run, after = chosen
        before = set(compartments_taken(game, board, position.played))
        paid = [t for t in compartments_taken(game, board, after.played) if t not in before]
        if run.winner >= 0:
            paid += going_out(game, board, after.played, run.winner)
        steps.append(LineStep(run, tuple(paid)))
        position = after
    return tuple(steps)


def _chosen_run(driver: _Driver, objective: Objective, position: Position, tree: RunTree,
                value: int) -> Run | None:
    """The run of a lead worth ``value``: at each choice its chooser's first option that keeps
    the value (None past the deadline)."""
    while isinstance(tree, Choice):
        maximising = objective.maximises(tree.chooser)
        for option in tree.options:
            keeps = driver.tree_at_least(objective, position, option,
                                         value if maximising else value + 1)
            if keeps is None:
                return None
            if keeps == maximising:
                tree = option
                break
        else:
            raise AssertionError(f"no option keeps the value {value} (solver inconsistency)")
    return tree
