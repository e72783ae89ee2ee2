"""The settlement in z3: dressing, the turn-up award and the play's payments, as integers.

What each seat receives and what leaves each compartment are written separately (a seat's
receipts from its own conditions, a compartment's payout from its own), so that the
conservation theorem compares two independent sums instead of one sum with itself. The board
starts as any carried-over counts (any non-negative integers) plus the standard dressing.
"""

from __future__ import annotations

import z3

from ..model.board import Board, Compartment
from ..model.cards import POPE, Rank, make_card
from ..model.rules import Dressing, PairRule, PopeTurnup
from .encoding import FALSE, SymbolicDeal, SymbolicPosition, _and, _or

HONOURS = ((Rank.ACE, Compartment.ACE), (Rank.KING, Compartment.KING),
           (Rank.QUEEN, Compartment.QUEEN), (Rank.JACK, Compartment.JACK))
PAIRS = ((Compartment.MATRIMONY, Rank.KING, Rank.QUEEN),
         (Compartment.INTRIGUE, Rank.QUEEN, Rank.JACK))


def _sum(terms: list[z3.ArithRef]) -> z3.ArithRef:
    return z3.Sum(*terms) if terms else z3.IntVal(0)


def _count(conditions: list[z3.BoolRef]) -> z3.ArithRef:
    return _sum([z3.If(c, 1, 0) for c in conditions])


class SymbolicSettlement:
    """Every payment of one deal whose play ended in ``final`` (exactly one seat out)."""

    def __init__(self, deal: SymbolicDeal, final: SymbolicPosition, name: str = "board",
                 abstract_counts: bool = False) -> None:
        self.deal = deal
        self.final = final
        sem = deal.semantics
        rules = sem.rules
        players = deal.players
        dealer = players - 1
        self.carried = {c: z3.Int(f"{name}.carried[{c.value}]") for c in Compartment}
        layout = Board()
        before = {c: self.carried[c] + layout[c] for c in Compartment}
        self.constraints: list[z3.BoolRef] = [v >= 0 for v in self.carried.values()]
        self.winner = [final.out(s) for s in range(players)]

        def trump_card(rank: int) -> list[tuple[z3.BoolRef, int]]:
            """(trumps are suit T, the card of ``rank`` in T) for the four suits."""
            return [(deal.trumps(t), make_card(t, rank)) for t in range(4)]

        # Dressing: the dealer pays the layout, after the others' contributions if any.
        dress = [z3.IntVal(0)] * players
        total = sum(layout[c] for c in Compartment)
        if rules.dressing is Dressing.PLAYERS:
            dress = [z3.IntVal(-2)] * (players - 1) + [z3.IntVal(2 * (players - 1) - total)]
        else:
            dress[dealer] = z3.IntVal(-total)
        self.dressing_net = dress

        # The turn-up award.
        pope_up = deal.turnup.get(POPE, FALSE)
        ends = pope_up if rules.pope_turnup is PopeTurnup.ENDS_DEAL else FALSE
        self.deal_played = z3.Not(ends)
        turnup_take = {c: z3.BoolVal(False) for c in Compartment}
        turnup_take[Compartment.POPE] = pope_up
        turnup_take[Compartment.GAME] = ends
        for rank, comp in HONOURS:
            turnup_take[comp] = _or([deal.turnup[card] for _, card in trump_card(rank)
                                     if card in deal.turnup])
        n = sem.cards_per_player(players)
        award = _sum([z3.If(turnup_take[c], before[c], 0) for c in Compartment])
        self.turnup_net = [z3.If(ends, -n, 0) for _ in range(players - 1)]
        self.turnup_net.append(award + z3.If(ends, n * (players - 1), 0))
        after_turnup = {c: z3.If(turnup_take[c], 0, before[c]) for c in Compartment}
        self.after_turnup = after_turnup
        # A played deal ends with exactly one seat out; an unplayed one with nothing played.
        self.constraints.append(z3.If(
            self.deal_played, z3.PbEq([(w, 1) for w in self.winner], 1),
            _and([z3.Not(v) for v in final.played.values()])))

        played = final.played

        def played_by(card: int, seat: int) -> z3.BoolRef:
            if card not in deal.dead:
                return FALSE
            return z3.And(played[card], deal.hold[card, seat], self.deal_played)

        # What each seat takes in play, compartment by compartment.
        takes: dict[tuple[int, Compartment], z3.ArithRef] = {}
        payout: dict[Compartment, z3.ArithRef] = {}
        for s in range(players):
            takes[s, Compartment.POPE] = z3.If(played_by(POPE, s), after_turnup[Compartment.POPE],
                                               0)
            takes[s, Compartment.GAME] = z3.If(z3.And(self.winner[s], self.deal_played),
                                               after_turnup[Compartment.GAME], 0)
            for rank, comp in HONOURS:
                took = _or([z3.And(trump, played_by(card, s)) for trump, card in trump_card(rank)])
                takes[s, comp] = z3.If(took, after_turnup[comp], 0)
        payout[Compartment.POPE] = z3.If(z3.And(self.deal_played, played.get(POPE, FALSE)),
                                          after_turnup[Compartment.POPE], 0)
        payout[Compartment.GAME] = z3.If(self.deal_played, after_turnup[Compartment.GAME], 0)
        for rank, comp in HONOURS:
            both = _or([z3.And(trump, played.get(card, FALSE)) for trump, card in trump_card(rank)])
            payout[comp] = z3.If(z3.And(self.deal_played, both), after_turnup[comp], 0)
        for comp, high, low in PAIRS:
            amount = after_turnup[comp]
            half = (amount + 1) / 2 if sem.halves_round_up else amount / 2
            whole_to = []
            half_to = []
            for s in range(players):
                own = [z3.And(trump, played_by(h, s), played_by(lo, s))
                       for (trump, h), (_, lo) in zip(trump_card(high), trump_card(low),
                                                      strict=True)]
                mixed = [z3.And(trump, played_by(h, s) != played_by(lo, s),
                                played.get(h, FALSE), played.get(lo, FALSE))
                         for (trump, h), (_, lo) in zip(trump_card(high), trump_card(low),
                                                        strict=True)]
                whole_to.append(_or(own))
                half_to.append(_or(mixed) if rules.pairs is PairRule.DIVIDED else FALSE)
                takes[s, comp] = z3.If(whole_to[-1], amount, z3.If(half_to[-1], half, 0))
            split = _or(half_to)
            emptied_by_split = amount if sem.halves_round_up else 2 * half
            payout[comp] = z3.If(_or(whole_to), amount, z3.If(split, emptied_by_split, 0))
        self.takes = takes
        self.payout = payout
        self.board_after = {c: after_turnup[c] - payout[c] for c in Compartment}

        # Going out: a counter per card left from every other seat, bar an unplayed Pope.
        if abstract_counts:
            # Any number of cards left, 0 to a full hand: a superset of the true counts that
            # keeps the arithmetic small for proofs about sums.
            left = [z3.Int(f"{name}.left[{s + 1}]") for s in range(players)]
            self.constraints += [z3.And(v >= 0, v <= sem.cards_per_player(players))
                                 for v in left]
            self.constraints += [z3.Implies(self.winner[s], left[s] == 0)
                                 for s in range(players)]
        else:
            left = [_count([z3.And(deal.hold[c, s], z3.Not(played[c])) for c in deal.cards])
                    for s in range(players)]
        pays = []
        for s in range(players):
            exempt = (z3.And(deal.holds(POPE, s), z3.Not(played.get(POPE, FALSE)))
                      if rules.pope_exemption else FALSE)
            pays.append(z3.If(z3.Or(self.winner[s], exempt, z3.Not(self.deal_played)), 0,
                              left[s]))
        self.card_net = [z3.If(self.winner[s], _sum(pays), 0) - pays[s] for s in range(players)]
        self.play_net = [_sum([takes[s, c] for c in Compartment]) + self.card_net[s]
                         for s in range(players)]

    def collects(self, seat: int, comp: Compartment) -> z3.BoolRef:
        """``seat`` takes counters from ``comp`` during play."""
        return self.takes[seat, comp] > 0

    def pools_collected(self, seat: int) -> z3.ArithRef:
        return _count([self.collects(seat, c) for c in Compartment])

    def total_net(self, seat: int) -> z3.ArithRef:
        return self.dressing_net[seat] + self.turnup_net[seat] + self.play_net[seat]

