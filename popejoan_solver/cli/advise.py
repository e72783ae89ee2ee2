"""``popejoan advise POSITION --seat N``: single-dummy advice for the seat on lead.

Every legal lead valued double dummy over the deals the seat cannot tell apart (sampled, or all
of them with ``--exact``), Hoyle's maxims beside the advised lead; ``--price`` adds what seeing
every hand would be worth to each seat. POSITION is read as ``popejoan view`` reads it.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import time
from collections.abc import Iterator
from typing import Any

from ..command import EXIT_OK, EXIT_TIME_LIMIT, Command, UsageError
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.play import Run
from .args import add_format, add_seed, check_seat, seconds, wants_json
from .inputs import read_position
from .output import print_json
from .view import add_position_arguments


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..advice.leads import DEFAULT_SAMPLES, EXACT_LIMIT
    from ..advice.values import MODELS

    add_position_arguments(parser, "the seat on lead (1 = eldest)")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES, metavar="K",
                        help=f"deals drawn (default {DEFAULT_SAMPLES})")
    add_seed(parser, default=0, help_text="seed of the draw (default 0)")
    parser.add_argument("--exact", action="store_true",
                        help=f"value every consistent deal (at most {EXACT_LIMIT:,})")
    parser.add_argument("--model", choices=MODELS, default="paranoid",
                        help="the others play against the seat (paranoid, default) or each for "
                        "itself (maxn)")
    parser.add_argument("--price", action="store_true",
                        help="also each seat's double-dummy value against its single-dummy "
                        "expectation (the price of information)")
    parser.add_argument("--choice", metavar="LEAD",
                        help="advise the seat at its first choice inside the run of LEAD (led "
                        "by the seat on lead; Spin, the Pope in lieu): decline or play")
    parser.add_argument("--time-limit", type=seconds, metavar="S",
                        help="seconds; past it the deals valued so far are reported (exit 3)")
    parser.add_argument("--infer", metavar="MODEL",
                        help="weigh the deals by the other players' leads under an opponent "
                        "model (uniform, hoyle, hoyle:P): each unseen card's odds, and the "
                        "leads' means over that posterior")
    add_format(parser, "the advice")


def _load(args: argparse.Namespace) -> tuple[Deal, list[Run]]:
    """The deal and the runs played, as ``popejoan view`` reads POSITION."""
    try:
        return read_position(args)
    except UsageError:
        raise
    except PopeJoanError as exc:
        raise UsageError(f"not a deal or a game record: {exc}") from None


@contextlib.contextmanager
def _progress_bar() -> Iterator[Any]:
    """A bar of the deals valued on a terminal (standard error), ended when the valuing is
    (a time limit, Ctrl-C); None elsewhere."""
    from ..jobs.pool import tty_progress

    bar = tty_progress("deal")
    try:
        yield bar
    finally:
        if bar is not None:
            bar.close()


def _number(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.3f}"


def _share(value: float | None) -> str:
    """A share as a percentage; '-' when no deal was valued."""
    return "-" if value is None or math.isnan(value) else f"{value:.1%}"


def _print_advice(data: dict[str, Any]) -> None:
    what = ("every one of the" if data["exact"] else f"{data['deals']} drawn of the")
    print(f"seat {data['seat']} on lead; {what} {data['consistent_deals']:,} deals it cannot "
          f"tell apart, valued double dummy ({data['model']})")
    if not data["complete"]:
        print(f"PARTIAL: the time limit ran out after {data['deals']} deals")
    print("\nlead     mean   95% interval    best  forced win")
    for lead in data["leads"]:
        mean = lead["mean"]
        low, high = lead["ci95"]
        mark = "  advised" if lead["card"] == data["advised"] else ""
        mark += "  (Hoyle)" if lead["card"] == data["hoyle"] else ""
        exact = f" = {lead['mean_fraction']}" if "mean_fraction" in lead else ""
        print(f"{lead['card']:4} {_number(mean):>8} [{_number(low):>6}, {_number(high):>6}] "
              f"{_share(lead['best_share']):>6} {_share(lead['forced_win_rate']):>10}{mark}{exact}")
    print(f"\nadvised: {data['advised'] or '-'}; Hoyle's maxims: {data['hoyle']} "
          f"({data['hoyle_maxim']})")
    if "prices" in data:
        print("\nseat  double dummy  expected from its view      single dummy   price")
    for seat in data.get("prices", []):
        low, high = seat["expected_ci95"]
        print(f"{seat['seat']:>4}  {seat['double_dummy']!s:>12}  {_number(seat['expected']):>8} "
              f"[{_number(low):>6}, {_number(high):>6}]  {_number(seat['single_dummy']):>12}"
              f"  {_number(seat['price']):>6}")


def _choice(args: argparse.Namespace, deal: Deal, runs: list[Run]) -> int:
    """``--choice LEAD``: the two options of the seat's choice inside the run."""
    from ..advice.choice import advise_choice
    from ..model.cards import parse_card

    if args.price:
        raise UsageError("--price is for the seat on lead, not with --choice")
    with _progress_bar() as progress:
        advice = advise_choice(deal, args.seat, parse_card(args.choice), line=runs,
                               samples=args.samples, seed=args.seed, exact=args.exact,
                               model=args.model, time_limit=args.time_limit,
                               progress=progress)
    data = advice.to_json()
    if wants_json(args):
        print_json(data)
    else:
        _print_choice(data)
    return EXIT_OK if advice.complete else EXIT_TIME_LIMIT


def _print_choice(data: dict[str, Any]) -> None:
    choice = data["choice"]
    print(f"seat {data['seat']} may play {choice['card']} after {choice['after']} in the "
          f"run of {choice['lead']}; {data['deals']} deals valued of "
          f"{data['consistent_deals']:,} ({data['model']})")
    if not data["complete"]:
        print(f"PARTIAL: the time limit ran out after {data['deals']} deals")
    for option in data["options"]:
        low, high = option["ci95"]
        print(f"  {option['option']:8} mean {_number(option['mean'])} [{_number(low)}, "
              f"{_number(high)}]  best {_share(option['best_share'])}  forced win "
              f"{_share(option['forced_win_rate'])}")
    print(f"advised: {data['advised'] or '-'}")


def run(args: argparse.Namespace) -> int:
    from ..advice.leads import advise

    started = time.monotonic()
    deal, runs = _load(args)
    check_seat(args.seat, deal.players)
    if args.choice is not None:
        return _choice(args, deal, runs)
    with _progress_bar() as progress:
        advice = advise(deal, args.seat, line=runs, samples=args.samples, seed=args.seed,
                        exact=args.exact, model=args.model, time_limit=args.time_limit,
                        progress=progress)
    data = advice.to_json()
    complete = advice.complete
    if args.price:
        from ..advice.price import price_of_information

        left = None if args.time_limit is None else \
            max(args.time_limit - (time.monotonic() - started), 1e-3)
        prices = price_of_information(deal, line=runs, samples=args.samples, seed=args.seed,
                                      exact=args.exact, time_limit=left,
                                      lead_advice=advice)
        data["prices"] = [p.to_json() for p in prices.seats]
        complete = complete and prices.complete
    odds_lines = _inferred(args, deal, runs, data) if args.infer is not None else None
    if wants_json(args):
        print_json(data)
    else:
        _print_advice(data)
        if odds_lines is not None:
            _print_inferred(odds_lines, data["inference"])
    return EXIT_OK if complete else EXIT_TIME_LIMIT


def _inferred(args: argparse.Namespace, deal: Any, runs: list[Any],
              data: dict[str, Any]) -> list[str]:
    """``--infer MODEL``: the posterior's card odds and the leads valued over it (into
    ``data["inference"]``); the odds as text."""
    from ..advice.inferred import card_odds, weighted_leads
    from ..advice.opponents import make_model
    from ..model.cards import parse_card
    from ..seat import knowledge

    known = knowledge(deal, args.seat, runs)
    odds, post = card_odds(known, make_model(args.infer), seed=args.seed)
    legal = [parse_card(lead["card"]) for lead in data["leads"]]
    weighted = weighted_leads(post, legal, args.samples, args.seed, args.model, args.exact)
    data["inference"] = {**odds.to_json(), "valued": weighted.to_json()}
    return odds.lines()


def _print_inferred(lines: list[str], found: dict[str, Any]) -> None:
    print("\n" + "\n".join(lines))
    found = found["valued"]
    print(f"\nthe leads over that posterior ({found['deals']} deals valued):")
    for lead in found["leads"]:
        mark = "  advised" if lead["card"] == found["advised"] else ""
        print(f"{lead['card']:4} {_number(lead['mean']):>8}{mark}")


COMMAND = Command(
    name="advise",
    summary="single-dummy advice: each lead of the seat on lead valued over the deals it "
            "cannot tell apart, with Hoyle's advice beside",
    description="Single-dummy advice for the seat on lead: each legal lead valued double "
                "dummy over the deals the seat cannot tell apart (K drawn, or every one with "
                "--exact), with the lead Hoyle's maxims advise beside. --price adds what seeing "
                "every hand would be worth to each seat; --choice advises a choice inside a "
                "run. POSITION is read as `popejoan view` reads it. Exit status 3 when "
                "--time-limit cut the valuation short.",
    examples=("popejoan advise deal.json --seat 1 --samples 200 --seed 3",
              "popejoan advise game.txt --seat 2 --deal 1 --after 4 --exact --json"),
    add_arguments=add_arguments, run=run)
