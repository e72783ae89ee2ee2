"""Whether play can reach a position: a search forward from the outset, inside its cards.

A position (the cards played, the seat to lead) arises in play when some sequence of legal
leads from the outset plays exactly those cards and leaves that seat to lead (or, for a
finished deal, ends with its one empty-handed seat going out). The search follows only runs
whose cards are all among the position's played cards, longest run first, and remembers the
positions it has seen; it is exact, and bounded by :data:`MAX_STEPS` positions (on 400 random
positions of every ruleset the most it needed was about 20,000, a third of a second).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Final

from .cards import Mask, card_name
from .play import Game, outcomes

MAX_STEPS: Final = 200_000
"""Positions the search may visit before it leaves the question open."""


class Verdict(Enum):
    """What the search found."""

    REACHABLE = "reachable"
    UNREACHABLE = "unreachable"
    UNDECIDED = "undecided"
    """:data:`MAX_STEPS` positions visited without an answer."""


@dataclass(frozen=True)
class Reachability:
    """The verdict and, for an unreachable position, why."""

    verdict: Verdict
    reason: str = ""


@lru_cache(maxsize=32)
def reachability(game: Game, played: Mask, leader: int) -> Reachability:
    """Whether play reaches ``played`` with ``leader`` (a seat, from 1) to lead (ignored once a
    seat is out).

    Cached: a deal is validated when it is built and its warnings are asked for after."""
    out = [s + 1 for s in range(game.players) if not game.dealt[s] & ~played]
    if not played:
        if leader == 1:
            return Reachability(Verdict.REACHABLE)
        return Reachability(Verdict.UNREACHABLE, "with no card played, eldest (seat 1) leads")
    quick = _necessary(game, played, leader, out[0] if out else None)
    if quick:
        return Reachability(Verdict.UNREACHABLE, quick)
    search = _Search(game, played, leader, out[0] if out else None)
    try:
        found = search.reaches(0, 1)
    except _BudgetError:
        return Reachability(Verdict.UNDECIDED)
    if found:
        return Reachability(Verdict.REACHABLE)
    if out:
        return Reachability(Verdict.UNREACHABLE, f"no sequence of legal leads ends with seat "
                            f"{out[0]} going out having played these cards")
    return Reachability(Verdict.UNREACHABLE, f"no sequence of legal leads plays these cards "
                        f"and leaves seat {leader} to lead")


def _necessary(game: Game, played: Mask, leader: int, winner: int | None) -> str:
    """A short reason from the conditions every reachable position meets, or ''."""
    if not game.dealt[0] & played:
        return "eldest (seat 1) leads first, but has played no card"
    if winner is not None or _choice_made(game, played):
        return ""  # a run may have stopped short: a choice card played ends it (the search decides)
    for card in range(52):
        over = game.table.successor[card]
        if (played >> card & 1 and over >= 0 and game.in_play >> over & 1
                and not played >> over & 1):
            return (f"{card_name(card)} has been played but {card_name(over)}, which a player "
                    "holds, has not (a run would have gone on to it)")
    if not game.dealt[leader - 1] & played:
        return (f"seat {leader} is to lead but has played no card: the player of the last "
                "stop card leads")
    return ""


def _choice_made(game: Game, played: Mask) -> bool:
    """Whether a card of a choice inside a run (Spin, the Pope in lieu) has been played: such a
    play can end a run whose next card a player holds."""
    return any(played >> point.card & 1 for point in game.table.choice_points)


class _BudgetError(Exception):
    """The search visited :data:`MAX_STEPS` positions."""


class _Search:
    """Depth-first search from the outset through the positions inside the target."""

    def __init__(self, game: Game, target: Mask, leader: int, winner: int | None) -> None:
        self.game = game
        self.target = target
        self.leader = leader
        self.winner = winner
        self.seen: set[tuple[Mask, int]] = set()

    def reaches(self, played: Mask, leader: int) -> bool:
        if played == self.target:
            return self.winner is None and leader == self.leader
        if (played, leader) in self.seen:
            return False
        self.seen.add((played, leader))
        if len(self.seen) > MAX_STEPS:
            raise _BudgetError
        runs = [run for lead in self.game.legal_leads(played, leader) if self.target >> lead & 1
                for run in outcomes(self.game.run_tree(played, leader, lead))]
        for run in sorted(runs, key=lambda r: -len(r.cards)):
            if run.mask & ~self.target:
                continue
            after = played | run.mask
            if run.next_leader is None:  # a player went out
                if after == self.target and run.winner == self.winner:
                    return True
            elif self.reaches(after, run.next_leader):
                return True
        return False
