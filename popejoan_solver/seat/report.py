"""A seat's knowledge for people and programs: the stops it can know, text lines and JSON.

The stops and the cards that cannot be led to are those of ``model.stops`` with the cards the
seat knows will never come blocked: out of the pack, played, and known to be dead.
"""

from __future__ import annotations

from typing import Any

from ..model.cards import FULL_MASK, format_cards
from ..model.deal import Deal
from ..model.stops import StopsReport, View, stops_among
from .knowledge import Knowledge, places_json
from .sampling import count_deals


def known_stops(k: Knowledge, deal: Deal) -> StopsReport:
    """The stops and cards that cannot be led to that the seat can know (``deal``: any deal
    of the same rules, read for the suit order only)."""
    blocked = (FULL_MASK & ~k.rules.table.pack) | k.played_mask | k.known_dead
    candidates = k.rules.table.pack & ~blocked
    return stops_among(deal, candidates, blocked, View.PLAYER)


def _cards(mask: int) -> list[str]:
    return format_cards(mask).split()


def view_json(k: Knowledge, deal: Deal, count: int | None = None) -> dict[str, Any]:
    """The knowledge as JSON (seats from 1); ``count`` the consistent deals if known."""
    n = k.players
    stops = known_stops(k, deal)
    return {
        "seat": k.seat,
        "players": n,
        "rules": k.rules.name,
        "own": _cards(k.own),
        "turnup": _cards(1 << k.turnup)[0] if k.turnup is not None else None,
        "played": {str(s + 1): _cards(k.played[s]) for s in range(n)},
        "to_lead": None if k.over else k.leader,
        "over": k.over,
        "out": k.winner,
        "board": k.board.to_json(),
        "hand_sizes": list(k.hand_sizes),
        "dead_size": k.dead_size,
        "known_dead": _cards(k.known_dead),
        "known_held": {str(s + 1): _cards(k.known_held[s]) for s in range(n)
                       if s != k.seat - 1 and k.known_held[s]},
        "hidden": _cards(k.hidden),
        "places": {("dead" if loc == n else str(loc + 1)): _cards(mask)
                   for loc, mask in enumerate(k.places)},
        "need": {("dead" if loc == n else str(loc + 1)): need
                 for loc, need in enumerate(k.need)},
        "inferences": [i.to_json(n) for i in k.inferences],
        "stops": stops.to_json()["stops"],
        "cannot_be_led_to": stops.to_json()["cannot_be_led_to"],
        "consistent_deals": count if count is not None else count_deals(k),
    }


def _status(data: dict[str, Any]) -> str:
    if data["out"] is not None:
        return f"after seat {data['out']} went out"
    if data["over"]:
        return f"the turn-up {data['turnup']} ended the deal unplayed"
    return f"seat {data['to_lead']} to lead"


def view_lines(data: dict[str, Any]) -> list[str]:
    """The JSON of :func:`view_json` as text for people."""
    n = data["players"]
    lines = [f"Seat {data['seat']} of {n} ({data['rules']}), "
             + _status(data),
             f"  own hand:          {' '.join(data['own']) or '-'}",
             f"  turn-up:           {data['turnup'] or 'none shown'}"]
    for seat, cards in data["played"].items():
        lines.append(f"  played by seat {seat}: {' '.join(cards) or '-'}")
    sizes = ", ".join(f"seat {s + 1}: {size}" for s, size in enumerate(data["hand_sizes"]))
    lines += [f"  cards in hand:     {sizes}; dead hand: {data['dead_size']}",
              "  board:             " + " ".join(f"{c} {v}" for c, v in data["board"].items()),
              f"  known dead:        {' '.join(data['known_dead']) or '-'}"]
    for seat, cards in data["known_held"].items():
        lines.append(f"  known with seat {seat}: {' '.join(cards)}")
    lines += [f"    {i['text']} ({i['rule']})" for i in data["inferences"]]
    lines += [f"  stops it can know: {' '.join(data['stops']) or '-'}",
              f"  cannot be led to:  {' '.join(data['cannot_be_led_to']) or '-'}",
              f"  consistent deals:  {data['consistent_deals']:,}"]
    return lines


__all__ = ["known_stops", "places_json", "view_json", "view_lines"]
