"""What an OpenSpiel game's parameters fix: the ruleset, the players, the board, the order the
cards are dealt in and honest bounds on a seat's return (:class:`Setup`); and how a ruleset's
name and a board are written as game parameters."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from ..model.board import Board
from ..model.deal import deal_random, shuffled_pack
from ..model.errors import DealError, NotationError
from ..model.rules import MAX_PLAYERS, MIN_PLAYERS, Ruleset, get_ruleset
from ..model.table import compile_rules


@cache
def dealing_order(rules: Ruleset, players: int) -> tuple[int, ...]:
    """Who receives each card dealt, in order (an OpenSpiel player, a seat's 0-based index,
    or ``players`` for the dead hand): read
    off the model's :func:`deal_random`, which deals a shuffled pack by position; the last card
    is the turn-up."""
    seed = "openspiel-dealing-order"
    cards = shuffled_pack(seed, 0, rules.table.pack)
    deal = deal_random(players, seed, rules)
    if deal.turnup != cards[-1]:
        raise AssertionError("the model's dealing no longer turns up the last card dealt")
    holders = (deal.holder(card) for card in cards)
    return tuple(players if seat is None else seat - 1 for seat in holders)


def spiel_text(text: str) -> str:
    """A ruleset name or board as a game parameter: OpenSpiel's game strings split on ``=``
    and ``,``, so ``OPT=V,OPT=V`` is written ``OPT:V;OPT:V``."""
    return text.replace("=", ":").replace(",", ";")


def parse_board(text: str) -> Board | None:
    """The ``board`` parameter: empty for a fresh dressing, else ``pope:6;game:3;...``."""
    if not text.strip():
        return None
    counts: dict[str, int] = {}
    for item in text.replace(";", ",").split(","):
        name, sep, value = item.replace(":", "=").partition("=")
        if not sep or not value.strip().isdigit():
            raise NotationError(f"board parameter: COMPARTMENT:COUNT;..., not {item!r}")
        counts[name.strip()] = int(value)
    return Board.from_json(counts)


def board_parameter(board: Board) -> str:
    """The ``board`` parameter that gives ``board``."""
    return ";".join(f"{c.value}:{n}" for c, n in board.items())


@dataclass(frozen=True)
class Bounds:
    """Honest bounds on one seat's return in counters."""

    low: int
    high: int


def utility_bounds(rules: Ruleset, players: int, board: Board) -> Bounds:
    """At best a seat takes the whole board, a stake for every card in the others' hands and
    every award paid by each opponent; at worst it pays for a full hand and every award."""
    table = compile_rules(rules)
    hand = table.cards_per_player(players)
    per_card = max(table.per_card_left, 1)  # the Pope turned up: a stake a card dealt
    from_each = sum(a.from_each for a in table.awards(0))
    return Bounds(low=-(per_card * hand + from_each),
                  high=board.total() + (per_card * hand + from_each) * (players - 1))


@dataclass(frozen=True)
class Setup:
    """What a game's parameters fix: the ruleset, the players, the board, the dealing."""

    rules: Ruleset
    players: int
    board: Board
    order: tuple[int, ...]
    bounds: Bounds

    def __deepcopy__(self, memo: dict[int, Any]) -> Setup:
        """Never changed: a cloned state shares it."""
        return self


@cache
def setup(players: int, rules_text: str, board_text: str) -> Setup:
    """The setup for a game's parameters (cached); bad ones raise the model's errors."""
    rules = get_ruleset(rules_text.replace(":", "=").replace(";", ","))
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                        f"not {players}")
    given = parse_board(board_text)
    board = given if given is not None else compile_rules(rules).dressing(players).layout
    return Setup(rules, players, board, dealing_order(rules, players),
                 utility_bounds(rules, players, board))
