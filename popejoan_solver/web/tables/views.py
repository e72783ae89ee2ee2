"""What each seat, and a watcher, is told of a table: built from what it may know, never by
hiding parts of the whole deal.

An answer is made of two parts, each built from an object that holds nothing else:

- :class:`PublicState`, what everyone at the table sees: the cards played and by whom, the
  turn-up where the ruleset turns one up, the board, the payments, the hands' sizes, whose turn
  it is, the running totals; once a deal is over, the deal itself (every hand is shown then).
  It is made by :func:`public_state` from the session's public facts. While a run waits for a
  choice, the public facts are those from before its lead: the run is its chooser's to see
  until it is over, and only the chooser's state (``public_state(..., at_choice=True)``) has
  the run's cards so far, the choice and its options.
- the seat's :class:`~popejoan_solver.seat.Knowledge` (``seat.knowledge``; for the chooser of
  a run waiting for a choice, ``knowledge_at_choice``): its own hand, the legal leads among
  it, and, on request, the cards whose place it can know (dead, or held by another seat) with
  the reasons.

:func:`seat_answer` puts them together; a watcher's answer is the public part alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model.board import Compartment
from ...model.cards import Card, Mask, card_name, iter_mask
from ...model.deal import Deal
from ...model.leads import legal_leads
from ...model.play import Choice, Run, RunTree
from ...model.referee import DealReplay, RecordReplay
from ...model.settlement import Transfer
from ...model.table import ChoiceKind, compile_rules
from ...seat import Knowledge, knowledge, knowledge_at_choice
from .session import Session
from .spec import PERSON, TableError

CHOICE_NAMES = {ChoiceKind.SPIN: "Spin", ChoiceKind.IN_LIEU: "Pope in lieu of a stop"}


@dataclass(frozen=True)
class PublicState:
    """What every seat and every watcher may see (players from 1 in ``data``)."""

    data: dict[str, Any]
    players: tuple[int, ...]
    """``players[s]``: the player (from 0) at 0-based seat ``s`` of the deal shown."""
    played: Mask
    """The cards played in the deal shown (a run under way's too)."""


def _names(cards: list[Card] | Mask, deal: Deal) -> list[str]:
    listed = list(iter_mask(cards)) if isinstance(cards, int) else cards
    key = deal.rules.table.order_key
    return [card_name(c) for c in sorted(listed, key=lambda c: (c // 13, key[c]))]


def _transfer(t: Transfer, players: tuple[int, ...]) -> dict[str, Any]:
    def party(p: int | Compartment) -> object:
        return p.value if isinstance(p, Compartment) else players[p - 1] + 1

    return {"from": party(t.payer), "to": party(t.payee), "amount": t.amount,
            "reason": t.reason}


def _revealed(done: DealReplay) -> dict[str, Any]:
    """A finished deal, public: every hand as dealt, the dead hand, the settlement (as the
    referee reads it from the record)."""
    deal, players = done.deal, tuple(p - 1 for p in done.players)  # the table's, from 0
    return {
        "hands": {str(players[seat] + 1): _names(deal.dealt_hand(seat), deal)
                  for seat in range(deal.players)},
        "dead": _names(deal.dead, deal),
        "turnup": card_name(deal.turnup),
        "settlement": [_transfer(t, players) for t in done.transfers],
        "values": _player_values(done),
        "board_after": done.board_after.to_json(),
    }


def _player_values(done: DealReplay) -> list[int]:
    """A finished deal's values by player (from the seats the deal put them in)."""
    values = [0] * done.deal.players
    for seat, value in enumerate(done.values):
        values[done.players[seat] - 1] = value
    return values


def _final(result: RecordReplay, session: Session) -> dict[str, Any] | None:
    """Hoyle's final round, once the session is over: every hand face up, who took what."""
    hands = session.final_hands
    if hands is None or not result.final:
        return None
    n = session.n
    players = tuple(result.record.player_at(len(result.record.deals), s + 1) - 1  # from 0
                    for s in range(n))
    return {"hands": {str(players[s] + 1): _names(hands[s], session.done[-1].deal)
                      for s in range(n)},
            "settlement": [_transfer(t, players) for t in result.final]}


def public_state(session: Session, result: RecordReplay, deadline: float | None,
                 at_choice: bool = False) -> PublicState:
    """The public part of every answer about ``session`` (``result``: the referee's replay of
    the finished deals' record; ``deadline``: seconds left for the decision awaited); with
    ``at_choice``, the table as the chooser of a run waiting for a choice sees it (the run so
    far and the choice: for the chooser alone)."""
    spec, n = session.spec, session.n
    index = session.index
    players = tuple(session.player_at(seat, index) for seat in range(n))
    deal = session.deal if session.phase == "playing" else session.done[-1].deal
    turn = session.turn() if at_choice else session.public_turn()
    pending = session.pending if session.phase == "playing" and at_choice else None
    plays = session.public_plays(chooser=at_choice)
    played = 0
    for _, card, _ in plays:
        played |= 1 << card
    rules_table = compile_rules(deal.rules)
    data: dict[str, Any] = {
        "rules": spec.rules.name,
        "players": n,
        "state": session.phase,
        "deal": index + 1,
        "deals": spec.deals,
        "dealer": players[n - 1] + 1,
        "version": session.version_of(session.chooser() if at_choice else None),
        "seats": [{"seat": p + 1, "kind": "person" if kind == PERSON else "bot",
                   "bot": None if kind == PERSON else kind,
                   "position": session.seat_of(p, index) + 1,
                   "count": (deal.dealt_hand(session.seat_of(p, index)) & ~played).bit_count()}
                  for p, kind in enumerate(spec.seats)],
        "dead_count": deal.dead.bit_count(),
        "turnup": card_name(deal.turnup) if rules_table.turns_up else None,
        "plays": [{"seat": players[seat] + 1, "card": card_name(card), "choice": chosen}
                  for seat, card, chosen in plays],
        "to_play": turn.player + 1 if turn is not None else None,
        "waiting": turn.kind if turn is not None else (
            "ready" if session.phase == "between-deals" else None),
        "choice": None if pending is None else {
            "seat": players[pending.chooser] + 1, "kind": CHOICE_NAMES[pending.kind],
            "card": card_name(pending.card)},
        "deadline": deadline,
        "totals": list(result.totals),
        "history": [_player_values(d) for d in result.deals],
        "ready": [p + 1 for p in sorted(session.ready)],
    }
    if session.phase == "playing":
        data["board"] = session.board_now().to_json()
        data["payments"] = [_transfer(t, players) for t in session.payments()]
        data["last_deal"] = None
    else:
        revealed = _revealed(result.deals[-1])
        data["board"] = revealed["board_after"]
        data["payments"] = revealed["settlement"]
        data["last_deal"] = revealed
    data["final_round"] = _final(result, session) if session.phase == "over" else None
    return PublicState(data, players, played)


def seat_knowledge(session: Session, player: int) -> Knowledge | None:
    """What ``player`` knows in the deal under way (None between deals: all is public)."""
    if session.phase != "playing":
        return None
    mine = session.chooser() == player
    return position_knowledge(session.deal, tuple(session.runs),
                              session.lead if mine else None, session.node if mine else None,
                              session.seat_of(player))


def position_knowledge(deal: Deal, runs: tuple[Run, ...], lead: Card | None,
                       node: RunTree | None, seat: int) -> Knowledge:
    """What the seat of 0-based index ``seat`` (the table's) knows once ``runs`` are played,
    and, while a run waits at a choice (``node``), before its ``lead``'s run goes on."""
    if isinstance(node, Choice):
        assert lead is not None
        return knowledge_at_choice(deal, seat + 1, runs, lead, node)
    return knowledge(deal, seat + 1, runs)


def knowledge_json(k: Knowledge, public: PublicState) -> dict[str, Any]:
    """The cards whose place the seat can know beyond its hand and the table, with why."""
    located = k.known_dead
    for mask in k.known_held:
        located |= mask
    return {
        "dead": [card_name(c) for c in iter_mask(k.known_dead & ~(
            1 << k.turnup if k.turnup is not None else 0))],
        "held": {str(public.players[s] + 1): [card_name(c) for c in iter_mask(mask)]
                 for s, mask in enumerate(k.known_held) if mask and s != k.seat - 1},
        "reasons": [i.text for i in k.inferences
                    if i.places & (i.places - 1) == 0 and located >> i.card & 1],
        "unknown": k.hidden.bit_count(),
    }


def seat_answer(public: PublicState, k: Knowledge | None, player: int | None,
                with_knowledge: bool = False, version: int | None = None) -> dict[str, Any]:
    """The answer for ``player`` (from 0; None: a watcher): the public state (the chooser's,
    for the chooser of a run waiting for a choice) and what the seat alone knows; ``version``
    the one this seat sees (its own choices counted)."""
    data = dict(public.data)
    data["seat"] = None if player is None else player + 1
    if version is not None:
        data["version"] = version
    if player is None or k is None:
        data["hand"] = None if player is None else []
        data["legal"] = []
        data["options"] = []
        data["knowledge"] = None
        return data
    own = k.own & ~public.played  # at a choice, the knowledge stands before the lead
    data["hand"] = [card_name(c) for c in legal_sorted(k, own)]
    mine = data["to_play"] == player + 1
    data["legal"] = ([card_name(c) for c in legal_leads(k.rules, own)]
                     if mine and data["waiting"] == "lead" else [])
    data["options"] = ([{"option": 0, "card": "pass", "text": "decline"},
                        {"option": 1, "card": "+" + data["choice"]["card"],
                         "text": f"play {data['choice']['card']} ({data['choice']['kind']})"}]
                       if mine and data["waiting"] == "choice" else [])
    data["knowledge"] = knowledge_json(k, public) if with_knowledge else None
    return data


def legal_sorted(k: Knowledge, own: Mask) -> list[Card]:
    key = k.rules.table.order_key
    return sorted(iter_mask(own), key=lambda c: (c // 13, key[c]))


def answer_for(session: Session, player: int | None, result: RecordReplay,
               deadline: float | None, with_knowledge: bool = False) -> dict[str, Any]:
    """The whole answer for ``player`` (None: a watcher)."""
    if player is not None and not 0 <= player < session.n:
        raise TableError("no such seat", 404)
    public = public_state(session, result, deadline,
                          at_choice=player is not None and session.chooser() == player)
    k = None if player is None else seat_knowledge(session, player)
    return seat_answer(public, k, player, with_knowledge, session.version_of(player))
