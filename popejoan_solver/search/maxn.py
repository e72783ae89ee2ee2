"""Max^n: every seat plays to raise its own net counters (not to lower one seat's).

The paranoid value of :func:`solve` assumes all the others play against one seat; max^n
assumes each plays for itself, which is what the players of a stops game at a table do. Ties
matter in max^n (a seat indifferent between two leads can still help or hurt another): a seat
with equal values takes the lead worst for the *focus* seat (the one being advised), and among
those the first in the legal order (clubs first, lowest first) — "paranoid ties". A choice
inside a run is taken the same way by its chooser.

The search is memoised on the position ``(played, leader)``; it counts the positions it
expands and gives up past ``node_limit`` or a deadline (:class:`MaxnLimitError`), which bounds
both time and memory. Where the rules have no choice inside a run, a lead's forced run is
cached on the lead and the cards of its suit above it that are played (all its cards depend
on), and legal leads on the cards held: six times fewer seconds a position, the same values.
No pruning: a vector's every seat can matter to a tie above it, so every position reachable
is expanded.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..model.cards import Card, Mask
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.play import Game, Run, RunTree
from ..model.settlement import play_values
from .api import play_board

DEFAULT_NODE_LIMIT = 400_000
"""Positions expanded before giving up (each memoised: about 200 bytes apiece)."""

Vector = tuple[int, ...]
"""Every seat's net counters, seat 1 first."""


class MaxnLimitError(PopeJoanError):
    """The max^n search passed its node limit or its deadline."""


class MaxnSearch:
    """Max^n values of the positions of one deal, for one focus seat (from 1) that ties are
    broken against; its vectors hold seat ``i + 1``'s value at index ``i``."""

    def __init__(self, deal: Deal, focus: int, *, node_limit: int = DEFAULT_NODE_LIMIT,
                 deadline: float | None = None) -> None:
        self.game = Game.from_deal(deal)
        self.board, _ = play_board(deal)
        if type(focus) is not int or not 1 <= focus <= deal.players:
            raise PopeJoanError(f"seat must be from 1 to {deal.players}, not {focus!r}")
        self.focus = focus - 1
        """The focus seat's index into the vectors."""
        self.node_limit = node_limit
        self.deadline = deadline
        self.nodes = 0
        self.memo: dict[tuple[Mask, int], Vector] = {}
        self.award_masks = tuple(a.mask for a in self.game.table.awards(self.game.trumps))
        exempt = self.game.table.exempt_card
        self.exempt = 1 << exempt if exempt is not None else 0
        self.settled: dict[tuple[int, ...], Vector] = {}
        self.fast = not self.game.table.choice_points
        self.chains = tuple(self._chain(card) for card in range(52))
        self.runs: dict[tuple[Card, Mask], tuple[Mask, int, tuple[int, ...]]] = {}
        self.leads: dict[Mask, list[Card]] = {}

    def _chain(self, card: Card) -> Mask:
        """The cards above ``card`` a run from it can reach whatever is played: up its suit
        to the first card at the top, out of the pack or dead."""
        game, chain = self.game, 0
        table = game.table
        above = table.successor[card]
        while above >= 0 and table.pack >> above & 1 and game.in_play >> above & 1:
            chain |= 1 << above
            above = table.successor[above]
        return chain

    def fast_run(self, played: Mask, lead: Card) -> tuple[Mask, int] | None:
        """The cards of ``lead``'s forced run and the seat that leads next, or None when a
        seat goes out in it (left to ``Game.run_tree``). Cached on the lead and the cards of
        its chain played, which is all that fixes a run's cards where no seat goes out."""
        key = (lead, played & self.chains[lead])
        found = self.runs.get(key)
        if found is None:
            run = self.game.forced_run(played, self.game.holder_index[lead] + 1, lead)
            if run.winner is not None:  # cut short by going out: not the chain's run alone
                return None
            found = (run.mask, run.leader_after, tuple(set(run.seats)))
            self.runs[key] = found
        mask, last, seats = found
        after = played | mask
        dealt = self.game.dealt
        for seat in seats:
            if not dealt[seat - 1] & ~after:
                return None
        return mask, last

    def legal(self, played: Mask, leader: int) -> list[Card]:
        """``Game.legal_leads``, cached on the held cards (all a lead rule reads)."""
        held = self.game.dealt[leader - 1] & ~played
        found = self.leads.get(held)
        if found is None:
            found = self.game.legal_leads(played, leader)
            self.leads[held] = found
        return found

    def payoff(self, played: Mask, winner: int) -> Vector:
        """The settlement's values (``play_values``), cached on what they depend on: the
        awards completed, the winner, and each hand's count of cards left and its exempt
        card."""
        awards = 0
        for i, mask in enumerate(self.award_masks):
            if played & mask == mask:
                awards |= 1 << i
        key = [awards, winner]
        for dealt in self.game.dealt:
            left = dealt & ~played
            key.append(left.bit_count() * 2 + bool(left & self.exempt))
        found = self.settled.get(tuple(key))
        if found is None:
            found = play_values(self.game, self.board, played, winner)
            self.settled[tuple(key)] = found
        return found

    def pick(self, mover: int) -> Callable[[Vector], tuple[int, int]]:
        """The key a mover (a seat, from 1) maximises: its own counters, then the focus
        seat's, lowered."""
        focus = self.focus
        return lambda v: (v[mover - 1], -v[focus])

    def value(self, played: Mask, leader: int) -> Vector:
        """Every seat's net counters from the position under max^n play."""
        key = (played, leader)
        found = self.memo.get(key)
        if found is not None:
            return found
        game = self.game
        winner = game.winner(played)
        if winner is not None:
            result = self.payoff(played, winner)
        else:
            self._count()
            focus = self.focus
            best: Vector | None = None
            for lead in self.legal(played, leader):
                run = self.fast_run(played, lead) if self.fast else None
                if run is None:
                    v = self.tree(game.run_tree(played, leader, lead), played, leader)
                else:
                    v = self.value(played | run[0], run[1])
                if best is None or (v[leader - 1], -v[focus]) > (best[leader - 1], -best[focus]):
                    best = v
            assert best is not None, "a seat on lead with no legal lead"
            result = best
        self.memo[key] = result
        return result

    def tree(self, tree: RunTree, played: Mask, leader: int) -> Vector:
        """The value of a lead's run, each choice in it taken by its chooser."""
        if isinstance(tree, Run):
            next_leader = leader if tree.next_leader is None else tree.next_leader
            return self.value(played | tree.mask, next_leader)
        key_of = self.pick(tree.chooser)
        best: Vector | None = None
        for option in tree.options:
            v = self.tree(option, played, leader)
            if best is None or key_of(v) > key_of(best):
                best = v
        assert best is not None
        return best

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise MaxnLimitError(f"max^n passed its limit of {self.node_limit} positions")
        if self.deadline is not None and self.nodes & 1023 == 0 \
                and time.monotonic() > self.deadline:
            raise MaxnLimitError("max^n ran past the time limit")


def maxn_leads(deal: Deal, focus: int, *, node_limit: int | None = None,
               deadline: float | None = None) -> tuple[tuple[Card, Vector], ...]:
    """Each legal lead of the seat on lead at ``deal`` with every seat's max^n value after it;
    ``focus`` (1-based) is the seat ties are broken against. Empty when the deal is over or
    not played. Raises :class:`MaxnLimitError` past ``node_limit`` positions or ``deadline``
    (a ``time.monotonic()`` instant)."""
    if not 1 <= focus <= deal.players:
        raise PopeJoanError(f"seat must be from 1 to {deal.players}, not {focus}")
    search = MaxnSearch(deal, focus, node_limit=node_limit or DEFAULT_NODE_LIMIT,
                        deadline=deadline)
    _, award = play_board(deal)
    game, played, leader = search.game, deal.played_mask, deal.leader
    if (award is not None and not award.deal_is_played) or game.winner(played) is not None:
        return ()
    return tuple((lead, search.tree(game.run_tree(played, leader, lead), played, leader))
                 for lead in game.legal_leads(played, leader))


def maxn_value(deal: Deal, focus: int, *, node_limit: int | None = None,
               deadline: float | None = None) -> Vector:
    """Every seat's max^n value at ``deal`` (ties against ``focus``, 1-based)."""
    search = MaxnSearch(deal, focus, node_limit=node_limit or DEFAULT_NODE_LIMIT,
                        deadline=deadline)
    _, award = play_board(deal)
    if award is not None and not award.deal_is_played:
        return (0,) * deal.players
    return search.value(deal.played_mask, deal.leader)
