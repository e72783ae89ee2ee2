"""``popejoan play``: a person plays one seat against bots in the terminal (docs/bots.md).

The person sees only their seat's view (``seat.knowledge``: own hand, turn-up, cards played,
board, hand sizes, cards known dead), types a card to lead (``?`` asks ``popejoan advise``'s
advice from that same view, ``q`` leaves), answers ``y``/``n`` at a choice inside a run, and
gets the deal's record at the end (the text form ``popejoan check`` reads).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from ..command import EXIT_OK, Command, UsageError
from ..model.deal import Deal
from .args import (
    add_out,
    add_rules,
    add_seat,
    add_seed,
    check_seat,
    out_option,
    positive,
    ruleset_from,
)
from .output import transfer_text

DEFAULT_PLAYERS = 4
"""The table's size when no bot is named: you and three of the default bot."""


class LeftTableError(Exception):
    """The person typed ``q``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_seat(parser, required=True, help_text="your seat (1 = eldest)")
    parser.add_argument("--bots", default=None,
                        help="the other seats' bots in seat order, comma-separated (cycled); "
                             "default: strong, the strongest fair bot, in every other seat of "
                             "a 4-player table")
    parser.add_argument("--players", type=positive, default=None,
                        help="default: one per bot, and you")
    add_rules(parser, default="hoyle-modernized")
    add_seed(parser, default=1, help_text="the deal's seed (index 0; default 1)")
    add_out(parser, aliases=("--record",), help_text="also write the record to this file")


@dataclass
class Person:
    """A seat played by a person at the terminal."""

    advice: Callable[[Any], str]
    out: TextIO
    inp: TextIO | None
    """Where the answers are read (``None``: standard input is closed)."""
    name: str = "you"
    peeks: bool = False
    shown: int = 0

    @property
    def sees_all(self) -> bool:
        return False

    def _show(self, k: Any) -> None:
        from ..model.cards import card_name, format_cards

        for run in k.line[self.shown:]:
            self.out.write(f"  seat {run.leader} led: {run.describe()}\n")
        self.shown = len(k.line)
        sizes = ", ".join(f"seat {s + 1}: {n}" for s, n in enumerate(k.hand_sizes))
        turnup = card_name(k.turnup) if k.turnup is not None else "none"
        board = ", ".join(f"{c.value} {n}" for c, n in k.board.items() if n) or "empty"
        self.out.write(f"board: {board}\n"
                       f"turn-up: {turnup}; known dead: {format_cards(k.known_dead) or '-'}\n"
                       f"cards in hand: {sizes}\n"
                       f"your hand (seat {k.seat}): {format_cards(k.own)}\n")

    def _ask(self, prompt: str) -> str:
        from ..files.reading import read_prompt_line

        self.out.write(prompt)
        self.out.flush()
        line = read_prompt_line(self.inp)
        if not line or line.strip().lower() in ("q", "quit"):
            raise LeftTableError
        return line.strip()

    def lead(self, request: Any) -> int:
        from ..model.cards import card_name, parse_card
        from ..model.errors import PopeJoanError

        self._show(request.knowledge)
        legal = " ".join(card_name(c) for c in request.legal)
        while True:
            answer = self._ask(f"your lead (legal: {legal}; ? advice, q quit)> ")
            if answer == "?":
                self.out.write(self.advice(request.knowledge) + "\n")
                continue
            try:
                card: int = parse_card(answer)
            except PopeJoanError:
                self.out.write(f"not a card: {answer[:20]!r}\n")
                continue
            if card in request.legal:
                return card
            self.out.write(f"{card_name(card)} is not a legal lead here\n")

    def choose(self, request: Any) -> int:
        from ..model.cards import card_name

        self._show(request.knowledge)
        run = " ".join(card_name(c) for c in request.cards)
        while True:
            answer = self._ask(f"the run so far: {run}; {request.kind.value}: take it? "
                               "(y/n, q quit)> ").lower()
            if answer in ("y", "yes", "n", "no"):
                return request.options - 1 if answer.startswith("y") else 0


def _advice_text(deal: Any, k: Any) -> str:
    """``popejoan advise``'s advice for the person's seat, from their view (the sampled deals
    are drawn from what the seat knows, never the true hands)."""
    from ..advice.leads import advise
    from ..model.cards import card_name

    advice = advise(deal, k.seat, line=k.line, samples=40, seed=len(k.line))
    rows = [f"  {card_name(lead.card)}: mean {lead.mean:+.2f} [{lead.ci95[0]:+.2f}, "
            f"{lead.ci95[1]:+.2f}], best in {100 * lead.best_share:.0f}% of deals"
            for lead in advice.leads]
    best = card_name(advice.advised) if advice.advised is not None else "-"
    return ("advice over 40 deals you cannot tell apart (your net counters, the others "
            "against you):\n" + "\n".join(rows)
            + f"\n  advised: {best}; Hoyle's maxims: {card_name(advice.hoyle)} "
              f"({advice.hoyle_maxim})")


def _players(args: argparse.Namespace, specs: list[str]) -> int:
    """The number of players, once every bot spec is known good and fits the other seats."""
    from ..bots.registry import make_bot

    for spec in specs:  # a bad spec is named before anything else is asked of it
        make_bot(spec, args.seed)
    default = len(specs) + 1 if args.bots is not None else DEFAULT_PLAYERS
    players: int = args.players if args.players is not None else default
    if args.players is None and players < 3:
        raise UsageError("play needs 3 to 8 players: name two bots or more, or give --players")
    if len(specs) > players - 1:
        raise UsageError(f"--bots names {len(specs)} bots for the {players - 1} other seats")
    return players


def _show_turnup(deal: Deal) -> None:
    """What the turn-up gives the dealer before play, and whether it ends the deal unplayed
    (early Hoyle's Pope): the person would otherwise see only the result."""
    from ..model.cards import card_name
    from ..model.settlement import turnup_award

    award = turnup_award(deal, deal.board_or_dressed)
    for transfer in award.transfers:
        print(f"turn-up {card_name(deal.turnup)}: {transfer_text(transfer)}")
    if not award.deal_is_played:
        print("the turn-up ends the deal: under these rules it is not played")


def run(args: argparse.Namespace) -> int:
    from ..bots.driver import play_deal, session_record
    from ..bots.registry import make_bot, split_bots
    from ..files.writing import check_output_path, write_output
    from ..model.deal import deal_random
    from ..model.record import record_to_text

    specs = split_bots(args.bots if args.bots is not None else "strong", unique=False)
    players = _players(args, specs)
    rules = ruleset_from(args)
    deal = deal_random(players, args.seed, rules, 0)
    check_seat(args.seat, players)
    option = out_option(args)
    if args.out is not None:
        check_output_path(args.out, option)
    if sys.stdin is None:
        raise UsageError("standard input is closed: play reads your leads from it (a terminal "
                         "or a pipe)")
    others = [make_bot(specs[i % len(specs)], args.seed) for i in range(players - 1)]
    person = Person(lambda k: _advice_text(deal, k), sys.stdout, sys.stdin)
    seats: list[Any] = [*others[:args.seat - 1], person, *others[args.seat - 1:]]
    print(f"Pope Joan, {rules.name}, {players} players: you are seat {args.seat} "
          f"(seat {players} deals).")
    _show_turnup(deal)
    try:
        played = play_deal(deal, seats, args.seed, "0")
    except LeftTableError:
        print("\nyou left the table")
        return EXIT_OK
    for run_ in played.runs[person.shown:]:
        print(f"  seat {run_.leader} led: {run_.describe()}")
    names = [b.name for b in seats]
    scores = [f"seat {s + 1} ({n}) {v:+d}"
              for s, (n, v) in enumerate(zip(names, played.values, strict=True))]
    print(f"result (counters won, the dressing included): {', '.join(scores)}")
    text = record_to_text(session_record([played], names))
    print("\nthe record (popejoan check reads it):\n" + text)
    if args.out is not None:
        write_output(args.out, text, option)
    return EXIT_OK


COMMAND = Command(
    name="play",
    summary="play one seat against bots in the terminal: you see only your own view, '?' "
            "asks for advice; the record of the deal at the end",
    description="Play one seat of a seeded deal against bots in the terminal. You see only "
                "what your seat can know (your hand, the turn-up, the cards played, the board, "
                "the hand sizes, the dead cards the play shows); type a card to lead, '?' for "
                "`popejoan advise`'s advice from your view, 'q' to leave; answer y or n at a "
                "choice inside a run. At the end, the deal's record, which `popejoan check` "
                "confirms.",
    examples=("popejoan play --seat 1 --bots hoyle,pimc --seed 7",
              "popejoan play --seat 2 --bots random --players 4 --rules parlett --out game.txt"),
    add_arguments=add_arguments, run=run)
