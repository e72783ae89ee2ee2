"""The table as the web page shows it: a deal, the line of play from it, and what one seat (or a
referee) may see of the position reached, all read from the rules model.

The page keeps no state of its own: every request names the deal and the steps played from it
(``3D``, ``8S+9D@9S``), and the model replays them, so a link reproduces what was on screen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..model.board import Board
from ..model.cards import Card, Mask, card_name, iter_mask
from ..model.deal import Deal, validate
from ..model.deal import position_deal as position_as_deal
from ..model.errors import IllegalPlayError, PopeJoanError
from ..model.notation import deal_to_line
from ..model.play import Position, Run
from ..model.settlement import (
    Transfer,
    apply_to_board,
    compartments_taken,
    net,
    play_settlement,
    turnup_award,
)
from ..model.stops import View, analyse_stops
from ..model.table import compile_rules
from ..seat.line import read_step

MAX_STEPS: Final = 64
"""The most steps a request may carry: more than any deal has leads (51 cards)."""


class WebInputError(PopeJoanError):
    """A request to the web table that cannot be understood."""


@dataclass(frozen=True)
class Table:
    """A deal, the runs played from it, and the position they reach."""

    deal: Deal
    runs: tuple[Run, ...]
    position: Position
    played_out: bool
    """False when the turn-up ended the deal before any play (Pope turned up, some rules)."""

    @property
    def over(self) -> bool:
        return not self.played_out or self.position.is_over


def replay_steps(deal: Deal, steps: Sequence[str]) -> Table:
    """Play ``steps`` (a line's step notation) from ``deal``; each one checked by the model."""
    if len(steps) > MAX_STEPS:
        raise WebInputError(f"a line has at most {MAX_STEPS} steps, not {len(steps)}")
    played_out = (not deal.is_fresh
                  or turnup_award(deal, deal.board_or_dressed).deal_is_played)
    position = Position.from_deal(deal)
    runs: list[Run] = []
    for number, step in enumerate(steps, start=1):
        if not isinstance(step, str):
            raise WebInputError(f"step {number} of the line is not a string")
        if not played_out:
            raise IllegalPlayError(f"step {number} ({step[:20]!r}): the deal is over")
        run = read_step(position, number, step)
        runs.append(run)
        position = position.after(run)
    return Table(deal, tuple(runs), position, played_out)


def start_board(deal: Deal) -> Board:
    """The board play began on: dressed, after the turn-up's award for a fresh deal (for a
    position, its board as given, which is the board play began on)."""
    board = deal.board_or_dressed
    if deal.is_fresh:
        board = apply_to_board(board, turnup_award(deal, board).transfers)
    return board


def board_now(table: Table) -> Board:
    """The board as it stands: what play has taken so far, or the whole settlement."""
    position = table.position
    board = start_board(table.deal)
    if not table.played_out:
        return board
    if position.is_over:
        return apply_to_board(board, play_settlement(position.game, board, position.played,
                                                      position.winner))
    return apply_to_board(board, compartments_taken(position.game, board, position.played))


def position_deal(table: Table) -> Deal:
    """The position reached, as a deal the solver reads (with the board play began on, so
    that values count the whole play, as for the deal itself). It is built without the
    reachability search: the model's own replay of the steps is the proof that play reaches
    it, and the search can be long."""
    return position_as_deal(table.deal, table.position, start_board(table.deal))


def position_line(table: Table) -> str | None:
    """The position's one-line notation, or None when the notation's checks cannot confirm it
    (their search bounded by ``reachability.MAX_STEPS``)."""
    deal = position_deal(table)
    try:
        validate(deal)
    except PopeJoanError:
        return None
    return deal_to_line(deal)


def _names(mask: Mask) -> list[str]:
    return [card_name(c) for c in iter_mask(mask)]


def _sorted_names(cards: Sequence[Card], deal: Deal) -> list[str]:
    key = deal.rules.table.order_key
    return [card_name(c) for c in sorted(cards, key=lambda c: (c // 13, key[c]))]


def table_json(table: Table, view: View, seat: int | None) -> dict[str, Any]:
    """What the page draws. ``seat`` (from 1) hides the other hands (a player's view) while
    the deal is played; ``view`` decides whether the dead hand is shown and which stops are
    marked. Once the deal is over every hand and the dead hand are shown, as at a table."""
    deal, position = table.deal, table.position
    game = position.game
    rules_table = compile_rules(deal.rules)
    now = position_deal(table)
    seats = []
    for s in range(deal.players):
        held = game.dealt[s] & ~position.played
        shown = seat is None or s + 1 == seat or table.over
        seats.append({"seat": s + 1, "count": held.bit_count(),
                      "hand": _sorted_names(list(iter_mask(held)), deal) if shown else None,
                      "played": _names(game.dealt[s] & position.played)})
    show_dead = view is View.REFEREE or table.over
    stops = analyse_stops(now, view)
    return {
        "rules": deal.rules.name,
        "players": deal.players,
        "deal": deal_to_line(deal),
        "position": position_line(table),
        "line": [run.step for run in table.runs],
        "view": view.value,
        "seat": seat,
        "seats": seats,
        "dealer": deal.players,
        "dead": _sorted_names(list(iter_mask(deal.dead)), deal) if show_dead else None,
        "dead_count": deal.dead.bit_count(),
        "turnup": card_name(deal.turnup) if rules_table.turns_up or show_dead else None,
        "board": board_now(table).to_json(),
        "stops": stops.to_json()["stops"],
        "cannot_be_led_to": stops.to_json()["cannot_be_led_to"],
        "leader": position.leader,
        "over": table.over,
        "played_out": table.played_out,
        "winner": position.winner,
        "history": [run.to_json() for run in table.runs],
        "leads": _leads_json(table),
        "settlement": _settlement_json(table) if table.over else None,
    }


def _leads_json(table: Table) -> list[dict[str, Any]]:
    """The legal leads of the seat on lead, each with every run it can make (a choice inside
    the run gives more than one)."""
    if table.over:
        return []
    position = table.position
    return [{"card": card_name(lead),
             "runs": [run.to_json() for run in position.outcomes(lead)]}
            for lead in position.legal_leads()]


def _settlement_json(table: Table) -> dict[str, Any]:
    """Who paid whom for a finished deal: the turn-up's award (a fresh deal) and the play."""
    deal, position = table.deal, table.position
    paid: tuple[Transfer, ...] = ()
    if deal.is_fresh:
        paid = turnup_award(deal, deal.board_or_dressed).transfers
    if table.played_out:
        paid += tuple(play_settlement(position.game, start_board(deal), position.played,
                                      position.winner))
    return {"transfers": [t.to_json() for t in paid],
            "values": [net(paid, s) for s in range(1, deal.players + 1)],
            "board": board_now(table).to_json()}
