"""Single-dummy advice: each lead of the seat on lead, valued over the deals it cannot tell apart.

The seat sees its hand, the turn-up, what was played and what the rules revealed
(:mod:`popejoan_solver.seat`); every deal consistent with that is equally likely. Each lead is
valued double dummy on each deal drawn (uniformly, or every one with ``exact``) under an
opponent model, and the advice is the lead with the highest mean. ``docs/advice.md`` says what
this means and what it does not (strategy fusion, non-locality).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..intervals import mean_ci
from ..model.arguments import check_flag, check_time_limit, is_whole, shown
from ..model.board import Board
from ..model.cards import Card, card_name
from ..model.deal import Deal, position_deal
from ..model.errors import PopeJoanError
from ..model.play import Game, Position, Run
from ..search.api import cancel_searches, play_board, usable_cores
from .interrupt import off_main_thread
from .maxims import maxim_lead
from .valuer import SampleValuer
from .values import MODELS, SampleEval

if TYPE_CHECKING:
    from ..seat import Knowledge

EXACT_LIMIT = 5000
"""``exact`` values every consistent deal only up to this many (each is a full search)."""

MAX_EXACT_LIMIT = 100_000
"""The highest ``exact_limit`` allowed: listing more deals would take unbounded time."""

MAX_SAMPLES = 100_000
"""More samples than this is refused: the interval is already far below a counter."""

DEFAULT_SAMPLES = 200

MAX_WORKERS = 64
"""Threads one call may value deals on: each search has its own table, so memory grows with
them (a million asked for once started a thread per deal)."""


class AdviceError(PopeJoanError):
    """A question the advice cannot answer: no seat on lead, too many deals for ``exact``."""


@dataclass(frozen=True)
class LeadAdvice:
    """One legal lead of the seat, over the deals valued."""

    card: Card
    mean: float
    """Mean of the seat's net counters after this lead (double dummy, the opponent model)."""
    ci95: tuple[float, float]
    """95% interval of the mean (Student's t); the mean itself when exact and complete."""
    best_share: float
    """Share of the deals in which this lead is a best lead (a tie of k leads counts 1/k)."""
    forced_win_rate: float
    """Share of the deals in which the seat can still force going out after this lead."""
    mean_fraction: Fraction | None = None
    """The mean as an exact fraction (with ``exact``)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"card": card_name(self.card), "mean": finite(self.mean),
                                "ci95": [finite(x) for x in self.ci95],
                                "best_share": finite(self.best_share),
                                "forced_win_rate": finite(self.forced_win_rate)}
        if self.mean_fraction is not None:
            data["mean_fraction"] = _fraction_text(self.mean_fraction)
        return data


@dataclass(frozen=True)
class Advice:
    """The advice for one seat at one position (seats from 1)."""

    seat: int
    model: str
    exact: bool
    samples: int | None
    """Deals asked for (None with ``exact``)."""
    deals: int
    """Deals valued: the samples, or every consistent deal with ``exact`` (fewer than asked
    when the time limit ran out: then ``complete`` is false)."""
    consistent_deals: int
    """How many deals the seat cannot tell apart from the real one."""
    leads: tuple[LeadAdvice, ...]
    advised: Card | None
    hoyle: Card
    hoyle_maxim: str
    double_dummy_mean: float = math.nan
    """Mean of the seat's double-dummy value (its best lead on each deal, seen)."""
    double_dummy_ci95: tuple[float, float] = (math.nan, math.nan)
    complete: bool = True
    seconds: float = 0.0

    @property
    def single_dummy(self) -> float:
        """The mean of the advised lead: what the seat expects, choosing without seeing."""
        return self.lead(self.advised).mean if self.advised is not None else math.nan

    @property
    def price(self) -> float:
        """What seeing every hand before this lead is worth: the mean of the best lead on each
        deal less the best mean of one lead (never below 0)."""
        return self.double_dummy_mean - self.single_dummy

    def lead(self, card: Card) -> LeadAdvice:
        for lead in self.leads:
            if lead.card == card:
                return lead
        raise KeyError(card)

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "exact": self.exact, "model": self.model,
                "samples": self.samples, "deals": self.deals,
                "consistent_deals": self.consistent_deals, "complete": self.complete,
                "leads": [lead.to_json() for lead in self.leads],
                "advised": card_name(self.advised) if self.advised is not None else None,
                "hoyle": card_name(self.hoyle), "hoyle_maxim": self.hoyle_maxim,
                "double_dummy_mean": finite(self.double_dummy_mean),
                "double_dummy_ci95": [finite(x) for x in self.double_dummy_ci95],
                "price": finite(self.price), "seconds": round(self.seconds, 4)}


def finite(value: float) -> float | None:
    """A number for JSON: None for the NaN of a mean over no deals."""
    return None if math.isnan(value) else value


def _fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def position_after(deal: Deal, line: Sequence[Run], board: Board | None) -> Deal:
    """The position ``line`` (runs played from ``deal``) reaches, as a deal with its played
    cards; ``board`` is the board there (None: the ruleset's dressing, for no line)."""
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    return position_deal(deal, position, board)


def check_question(deal: Deal, seat: int) -> None:
    """Refuse a seat out of range, a seat not on lead, and a deal with no lead to make."""
    n = deal.players
    if not 1 <= seat <= n:
        raise AdviceError(f"seat must be from 1 to {n}, not {seat}")
    if no_lead_left(deal):
        raise AdviceError("there is no lead to advise: the deal is over")
    if deal.leader != seat:
        raise AdviceError(f"seat {seat} is not on lead (seat {deal.leader} is): advice is "
                          "for the seat about to lead; give that seat, or a later position")


def no_lead_left(deal: Deal) -> bool:
    """True when no lead is left: a seat is out, or the turned-up Pope ends the deal."""
    if Game.from_deal(deal).winner(deal.played_mask) is not None:
        return True
    _, award = play_board(deal)
    return award is not None and not award.deal_is_played


def legal_leads(deal: Deal) -> list[Card]:
    """The legal leads of the seat on lead, in the solver's order."""
    return Game.from_deal(deal).legal_leads(deal.played_mask, deal.leader)


def hoyle_lead(deal: Deal, gone: int) -> tuple[Card, str]:
    """Hoyle's maxims for the seat on lead, knowing ``gone`` (dead or played) cards."""
    return maxim_lead(deal.rules, deal.hands[deal.leader - 1], gone, legal_leads(deal))


def summarise(evals: Sequence[SampleEval], cards: Sequence[Card],
              exact: bool, complete: bool = True) -> tuple[LeadAdvice, ...]:
    """Each lead's mean, interval, best share and forced-win rate over ``evals``. An exact
    run cut short (``complete`` false) valued the first deals of a fixed order, no sample:
    their mean comes with no interval and no exact fraction."""
    n = len(evals)
    out = []
    for i, card in enumerate(cards):
        values = [e.values[i] for e in evals]
        share = sum(1 / len(e.best) for e in evals if i in e.best) / n if n else math.nan
        wins = sum(e.wins[i] for e in evals if e.wins) / n if n else math.nan
        if exact and n and complete:
            fraction = Fraction(sum(values), n)
            mean = float(fraction)
            out.append(LeadAdvice(card, mean, (mean, mean), share, wins, fraction))
        elif exact:
            mean = sum(values) / n if n else math.nan
            out.append(LeadAdvice(card, mean, (math.nan, math.nan), share, wins))
        else:
            mean, low, high = mean_ci([float(v) for v in values])
            out.append(LeadAdvice(card, mean, (low, high), share, wins))
    return tuple(out)


def advised(leads: Sequence[LeadAdvice]) -> Card | None:
    """The lead with the highest mean; ties to the higher forced-win rate, then to the higher
    best share, then to the first legal lead (clubs first, lowest first)."""
    if not leads or any(math.isnan(lead.mean) for lead in leads):
        return None

    def key(lead: LeadAdvice) -> tuple[Fraction | float, float, float]:
        mean = lead.mean_fraction if lead.mean_fraction is not None else lead.mean
        return (mean, lead.forced_win_rate, lead.best_share)

    best = max(key(lead) for lead in leads)
    return next(lead.card for lead in leads if key(lead) == best)


Progress = Callable[[int, int], None]
"""Told the deals valued so far and how many there are to value (from any thread)."""


def run_all(deals: Sequence[Deal], job: Callable[[Deal, float | None], SampleEval | None],
            deadline: float | None, workers: int, model: str = "paranoid",
            progress: Progress | None = None) -> list[SampleEval]:
    """Value ``deals`` in order on ``workers`` threads; past the deadline, the longest prefix
    of deals valued in full (the rest are dropped, so the sample stays the first k drawn).
    One worker values them in turn on one helper thread where the searches are the compiled
    core's (``paranoid``: Ctrl-C cancels them), on this thread for max^n (Python, which
    Ctrl-C interrupts itself). ``progress`` is told each deal valued of the prefix."""
    def one(deal: Deal) -> SampleEval | None:
        if deadline is not None and time.monotonic() > deadline:
            return None
        return job(deal, deadline)

    if progress is not None:
        progress(0, len(deals))
    if workers <= 1:
        return off_main_thread(lambda stop: _in_turn(deals, one, stop, progress),
                               helper=model == "paranoid")
    pool = ThreadPoolExecutor(workers, thread_name_prefix="popejoan-advise")
    futures: list[Future[SampleEval | None]] = []
    try:
        futures.extend(pool.submit(one, deal) for deal in deals)
        done: list[SampleEval] = []
        for future in futures:
            result = future.result()
            if result is None:
                break
            done.append(result)
            if progress is not None:
                progress(len(done), len(deals))
        return done
    except KeyboardInterrupt:  # it reaches this thread only: stop the workers' searches too
        pool.shutdown(wait=False, cancel_futures=True)
        while True:  # again until they end: a search may begin just after a cancel
            cancel_searches()
            wait(futures, timeout=0.05)
            if all(future.done() for future in futures):  # cancelled ones count as done
                break
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _in_turn(deals: Sequence[Deal], one: Callable[[Deal], SampleEval | None],
             stop: threading.Event, progress: Progress | None = None) -> list[SampleEval]:
    """``deals`` valued one after another, up to the first past the deadline (or a stop)."""
    results: list[SampleEval] = []
    for deal in deals:
        result = None if stop.is_set() else one(deal)
        if result is None:
            break
        results.append(result)
        if progress is not None:
            progress(len(results), len(deals))
    return results


def default_workers(model: str) -> int:
    """Two threads where the compiled core runs the search without the GIL; maxn is Python."""
    from ..search.fast import COMPILED

    if model != "paranoid" or not COMPILED:
        return 1
    return max(1, min(usable_cores(), 8))


def check_options(samples: int, exact: bool, model: str, time_limit: float | None) -> None:
    """Refuse an unknown model, a number of samples out of range, a bad time limit."""
    check_time_limit(time_limit)
    if model not in MODELS:
        raise AdviceError(f"unknown opponent model {model!r} (known: {', '.join(MODELS)})")
    if not exact and not 1 <= samples <= MAX_SAMPLES:
        raise AdviceError(f"samples must be from 1 to {MAX_SAMPLES}, not {samples}")


def check_arguments(seat: object, samples: object, seed: object, exact: object,
                    exact_limit: object, workers: object) -> None:
    """Refuse arguments of the wrong type or out of range (the Python API; advise and
    advise_choice alike): whole numbers that are not bools, ``exact`` a bool, ``workers``
    from 1 to :data:`MAX_WORKERS` or None."""
    for name, value in (("seat", seat), ("samples", samples), ("seed", seed),
                        ("exact_limit", exact_limit), ("workers", workers)):
        if not is_whole(value) and not (name == "workers" and value is None):
            raise AdviceError(f"{name} must be a whole number, not {shown(value)}")
    check_flag(exact, "exact", AdviceError)
    if isinstance(workers, int) and not 1 <= workers <= MAX_WORKERS:
        raise AdviceError(f"workers must be from 1 to {MAX_WORKERS} (or None: one a core), "
                          f"not {workers}")


def check_progress(progress: object) -> None:
    """Refuse a ``progress`` that cannot be called (None: no progress)."""
    if progress is not None and not callable(progress):
        raise AdviceError(f"progress must be called with (done, total), not "
                          f"{type(progress).__name__}")


def check_deal_and_line(deal: object, line: object) -> tuple[Run, ...]:
    """Refuse a deal that is not a :class:`Deal`; the line's runs, read as ``view`` reads
    them: runs, steps (``"3C"``, ``"8S+9D@9S"``) or one string of steps, a bad step named."""
    from ..seat.line import read_line

    if not isinstance(deal, Deal):
        raise AdviceError(f"advice needs a Deal, not {type(deal).__name__}")
    if isinstance(line, str):
        line = line.split()
    if not isinstance(line, Sequence) or isinstance(line, bytes | bytearray):
        raise AdviceError("line must be a list of runs (model.play.Run) or steps (like ['3C', "
                          f"'8S+9D@9S']), or one string of steps, not {type(line).__name__}")
    return read_line(deal, line)


def consistent_deals(known: Knowledge, samples: int, seed: int, exact: bool,
                     exact_limit: int, deadline: float | None = None) -> tuple[int, list[Deal]]:
    """How many deals fit ``known``, and the deals to value: drawn, or every one (past
    ``deadline``, those drawn or listed by then: fewer than :func:`deals_wanted`)."""
    from ..seat import all_deals, count_deals, sample_deals

    if not 1 <= exact_limit <= MAX_EXACT_LIMIT:
        raise AdviceError(f"exact_limit must be from 1 to {MAX_EXACT_LIMIT:,}, not {exact_limit}")
    count = count_deals(known)
    if not exact:
        return count, sample_deals(known, samples, seed, deadline)
    if count > exact_limit:
        raise AdviceError(f"{count} deals are consistent with what seat {known.seat} knows: "
                          f"more than the exact limit of {exact_limit}; sample them instead")
    return count, all_deals(known, exact_limit, deadline)


def deals_wanted(count: int, samples: int, exact: bool) -> int:
    """How many deals an answer values when it is complete: every one, or the samples."""
    return count if exact else samples


def advise(deal: Deal, seat: int, *, line: Sequence[Run | str] | str = (),
           samples: int = DEFAULT_SAMPLES, seed: int = 0, exact: bool = False,
           model: str = "paranoid", time_limit: float | None = None,
           workers: int | None = None, exact_limit: int = EXACT_LIMIT,
           progress: Progress | None = None) -> Advice:
    """Advice for ``seat`` (1-based), on lead after ``line`` (runs played from ``deal``):
    every legal lead valued over ``samples`` deals drawn uniformly from those the seat cannot
    tell apart (seeded by ``seed``), or over every one with ``exact`` (at most
    ``exact_limit``). Past ``time_limit`` seconds ``complete`` is false. ``progress`` is
    told (deals valued, deals to value) as each is valued."""
    from ..seat import knowledge

    started = time.monotonic()
    check_arguments(seat, samples, seed, exact, exact_limit, workers)
    check_options(samples, exact, model, time_limit)
    check_progress(progress)
    runs = check_deal_and_line(deal, line)
    deadline = started + time_limit if time_limit is not None else None
    if not 1 <= seat <= deal.players:
        raise AdviceError(f"seat must be from 1 to {deal.players}, not {seat}")
    known = knowledge(deal, seat, runs)
    here = position_after(deal, runs, known.deal_board)
    check_question(here, seat)
    count, deals = consistent_deals(known, samples, seed, exact, exact_limit, deadline)
    cards = legal_leads(here)
    evals = run_all(deals, SampleValuer(model), deadline,
                    workers if workers is not None else default_workers(model), model, progress)
    for e in evals:
        if list(e.cards) != cards:
            raise AssertionError("a sampled deal has other legal leads than the seat's own "
                                 "(the sampler broke the seat's knowledge)")
    complete = len(evals) == deals_wanted(count, samples, exact)
    leads = summarise(evals, cards, exact, complete)
    hoyle, maxim = hoyle_lead(here, known.known_dead | here.played_mask)
    best, low, high = mean_ci([float(max(e.values)) for e in evals])
    if exact:  # no sampling error; cut short, no sample either (see summarise)
        low, high = (best, best) if complete else (math.nan, math.nan)
    return Advice(seat, model, exact, None if exact else samples, len(evals), count, leads,
                  advised(leads), hoyle, maxim, best, (low, high), complete,
                  time.monotonic() - started)
