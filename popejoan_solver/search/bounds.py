"""Static bounds: what a seat can end with at most and at least from a position, true of every
line, from tables built once per deal. The driver's (card space) start every search and stand
for a value past the deadline; the fast engine's (slot space) start its MTD(f)."""

from __future__ import annotations

from ..model.board import Board
from ..model.cards import Mask
from ..model.play import Game
from ..model.table import award_shares
from .objective import Goal, Objective
from .result import Value
from .slots import SlotGame


class StaticBounds:
    """Bounds true of every line, from tables built once per deal: a seat pays at most its
    cards and takes at most everything; a payment between players whose card is played is
    already fixed, one still to come may go either way (its holder gains, every other seat
    pays)."""

    def __init__(self, game: Game, board: Board) -> None:
        self.dealt = game.dealt
        self.total = board.total()
        self.per_card = game.table.per_card_left
        payments = []
        for award in game.table.awards(game.trumps):
            if award.compartment is not None:
                continue
            per_seat = [0] * game.players
            holders = tuple(game.holder_index[c] for c in award.cards)  # 0-based: slot space
            for taker, amount in award_shares(award, holders, 0, game.players):
                per_seat[taker] += amount
            if any(per_seat):
                payments.append((sum(1 << c for c in award.cards), tuple(per_seat)))
        self.payments = tuple(payments)

    def __call__(self, objective: Objective, played: Mask) -> Value:
        if objective.goal is Goal.FORCED_WIN:
            return Value(0, 1)
        seat = objective.index
        low = -self.per_card * (self.dealt[seat] & ~played).bit_count()
        high = self.total + self.per_card * sum(
            (cards & ~played).bit_count() for other, cards in enumerate(self.dealt)
            if other != seat)
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


class SlotBounds:
    """The fast engine's static bounds in slot space: a seat pays at most its cards left and
    every award it may pay; it takes at most the Game, every award it may take and the others'
    cards left."""

    def __init__(self, slots: SlotGame) -> None:
        self.slots = slots
        self._award_sums: dict[int, tuple[int, int]] = {}
        """A seat's awards that it pays, and that it takes (summed on its first search)."""

    def award_sums(self, seat: int) -> tuple[int, int]:
        """What ``seat`` pays in awards at most, and takes at most."""
        sums = self._award_sums.get(seat)
        if sums is None:
            mine = [amount for _, takers in self.slots.awards for t, amount in takers
                    if t == seat]
            sums = self._award_sums[seat] = (sum(a for a in mine if a < 0),
                                             sum(a for a in mine if a > 0))
        return sums

    def __call__(self, objective: Objective, played: Mask) -> tuple[int, int]:
        if objective.goal is Goal.FORCED_WIN:
            return 0, 1
        sg = self.slots
        seat = objective.index
        paid, taken = self.award_sums(seat)
        low = -sg.per_card * (sg.dealt[seat] & ~played).bit_count() + paid
        high = sg.game_stake + taken + sg.per_card * sum(
            (sg.dealt[o] & ~played).bit_count() for o in range(sg.players) if o != seat)
        return low, high
