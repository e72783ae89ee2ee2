"""The settlement in z3: dressing, the turn-up award and the play's payments, as integers.

What each seat receives and what leaves each compartment are written separately (a seat's
receipts from its own conditions, a compartment's payout from its own), so that the
conservation theorem compares two independent sums instead of one sum with itself. The board
starts as any carried-over counts (any non-negative integers) plus the ruleset's dressing.
"""

from __future__ import annotations

import z3

from ..model.board import Compartment
from ..model.errors import RulesError
from ..model.table import Award, Taker, compile_rules
from .encoding import FALSE, SymbolicDeal, SymbolicPosition, _and, _or, conj, neg

ONE, ZERO = z3.IntVal(1), z3.IntVal(0)
_INTS: dict[int, z3.ArithRef] = {}


def _int(value: z3.ArithRef | int) -> z3.ArithRef:
    """An integer term (a whole number as ``z3.IntVal``, made once)."""
    if not isinstance(value, int):
        return value
    if value not in _INTS:
        _INTS[value] = z3.IntVal(value)
    return _INTS[value]


def _ite(cond: z3.BoolRef, then: z3.ArithRef | int, other: z3.ArithRef | int) -> z3.ArithRef:
    """``z3.If(cond, then, other)`` of integer terms, the same term through z3's C API (the
    settlement is all integers: a term of another sort is an error here, as in z3.If)."""
    ctx = cond.ctx
    return z3.ArithRef(z3.Z3_mk_ite(ctx.ref(), cond.ast, _int(then).ast, _int(other).ast), ctx)


def _sum(terms: list[z3.ArithRef]) -> z3.ArithRef:
    return z3.Sum(*terms) if terms else z3.IntVal(0)


def _count(conditions: list[z3.BoolRef]) -> z3.ArithRef:
    """How many of ``conditions`` hold: ``z3.Sum`` of ``z3.If(c, 1, 0)``, the same term built
    through z3's C API (building the settlement's terms was most of its time)."""
    if not conditions:
        return z3.IntVal(0)
    ctx = conditions[0].ctx
    ref = ctx.ref()
    ones = [z3.ArithRef(z3.Z3_mk_ite(ref, c.ast, ONE.ast, ZERO.ast), ctx) for c in conditions]
    if len(ones) == 1:
        return ones[0]
    args = (z3.Ast * len(ones))(*[t.ast for t in ones])
    return z3.ArithRef(z3.Z3_mk_add(ref, len(ones), args), ctx)


class SymbolicSettlement:
    """Every payment of one deal whose play ended in ``final`` (exactly one seat out).

    Every rule comes from the ruleset's compiled table (:mod:`popejoan_solver.model.table`):
    the dressing, the turn-up awards, the awards of play, the exempt card and the payment per
    card left; nothing here restates them.
    """

    def __init__(self, deal: SymbolicDeal, final: SymbolicPosition, name: str = "board",
                 abstract_counts: bool = False) -> None:
        self.deal = deal
        self.final = final
        self.table = compile_rules(deal.semantics.rules)
        self._played: dict[tuple[int, int], z3.BoolRef] = {}
        players = deal.players
        dressed = self.table.dressing(players)
        self.layout = dressed.layout
        self.carried = {c: z3.Int(f"{name}.carried[{c.value}]") for c in Compartment}
        before = {c: self.carried[c] + self.layout[c] for c in Compartment}
        self.constraints: list[z3.BoolRef] = [
            v >= 0 if c in self.table.compartments else v == 0
            for c, v in self.carried.items()]
        self.winner = [final.out(s) for s in range(players)]
        self.dressing_net = [z3.IntVal(-paid) for paid in dressed.paid]
        self._turnup(before)
        # A played deal ends with exactly one seat out; an unplayed one with nothing played.
        self.constraints.append(z3.If(
            self.deal_played, z3.PbEq([(w, 1) for w in self.winner], 1),
            _and([z3.Not(v) for v in final.played.values()])))
        self.takes: dict[tuple[int, Compartment], z3.ArithRef] = {
            (s, c): z3.IntVal(0) for s in range(players) for c in Compartment}
        self.payout: dict[Compartment, z3.ArithRef] = {c: z3.IntVal(0) for c in Compartment}
        self.between: list[z3.ArithRef] = [z3.IntVal(0) for _ in range(players)]
        """Payments between players in play (Spinado's Kings and Spin, from each opponent)."""
        self._game()
        for trumps in range(4):
            for award in self.table.awards(trumps):
                self._award(trumps, award)
        self.board_after = {c: self.after_turnup[c] - self.payout[c] for c in Compartment}
        self._cards_left(name, abstract_counts)
        self.play_net = [_sum([self.takes[s, c] for c in Compartment]) + self.card_net[s]
                         + self.between[s] for s in range(players)]

    def _turnup(self, before: dict[Compartment, z3.ArithRef]) -> None:
        """The dealer's turn-up award, and whether the turn-up ends the deal unplayed."""
        deal, table = self.deal, self.table
        ends_card = table.ends_deal_turnup
        ends = deal.turnup.get(ends_card, FALSE) if ends_card is not None else FALSE
        self.deal_played = z3.Not(ends)
        take = {c: _or([deal.turnup[k] for k in deal.cards if c in table.turnup_awards(k)])
                for c in Compartment}
        take[Compartment.GAME] = _or([take[Compartment.GAME], ends])
        n = deal.semantics.cards_per_player(deal.players)
        award = _sum([_ite(take[c], before[c], 0) for c in Compartment])
        self.turnup_net = [_ite(ends, -n, 0) for _ in range(deal.players - 1)]
        self.turnup_net.append(award + _ite(ends, n * (deal.players - 1), 0))
        self.after_turnup = {c: _ite(take[c], 0, before[c]) for c in Compartment}

    def _played_by(self, card: int, seat: int) -> z3.BoolRef:
        if card not in self.deal.dead:
            return FALSE
        if (card, seat) not in self._played:  # built once: the same term each time
            self._played[card, seat] = conj(self.final.played[card], self.deal.hold[card, seat],
                                            self.deal_played)
        return self._played[card, seat]

    def _game(self) -> None:
        """Game goes to the player out."""
        amount = self.after_turnup[Compartment.GAME]
        for s in range(self.deal.players):
            self.takes[s, Compartment.GAME] = _ite(conj(self.winner[s], self.deal_played),
                                                   amount, 0)
        self.payout[Compartment.GAME] = _ite(self.deal_played, amount, 0)

    def _award(self, trumps: int, award: Award) -> None:
        """One award of play, in force when ``trumps`` is trumps: what each seat takes of it
        and what leaves its compartment, written separately."""
        trump = self.deal.trumps(trumps)
        comp = award.compartment
        if comp is None:
            self._from_each(trump, award)
            return
        amount = self.after_turnup[comp]
        played = self.final.played
        all_played = _and([trump, self.deal_played] + [played.get(c, FALSE) for c in award.cards])
        if len(award.cards) == 1:
            for s in range(self.deal.players):
                took = conj(trump, self._played_by(award.cards[0], s))
                self.takes[s, comp] = self.takes[s, comp] + _ite(took, amount, 0)
            self.payout[comp] = self.payout[comp] + _ite(all_played, amount, 0)
            return
        if len(award.cards) != 2:
            raise RulesError(f"the z3 settlement encodes awards of one or two cards, not "
                             f"{len(award.cards)} ({comp.value})")
        high, low = award.cards
        half = (amount + 1) / 2 if self.deal.semantics.halves_round_up else amount / 2
        whole_to, half_to = [], []
        for s in range(self.deal.players):
            whole_to.append(conj(trump, self._played_by(high, s), self._played_by(low, s)))
            mixed = z3.And(all_played, self._played_by(high, s) != self._played_by(low, s))
            half_to.append(mixed if award.taker is Taker.DIVIDED else FALSE)
            self.takes[s, comp] = self.takes[s, comp] + _ite(
                whole_to[-1], amount, _ite(half_to[-1], half, 0))
        emptied_by_split = amount if self.deal.semantics.halves_round_up else 2 * half
        self.payout[comp] = self.payout[comp] + _ite(
            _or(whole_to), amount, _ite(_or(half_to), emptied_by_split, 0))

    def _from_each(self, trump: z3.BoolRef, award: Award) -> None:
        """A single-card award paid by every other player to the card's player."""
        players = self.deal.players
        took = [conj(trump, self._played_by(award.cards[0], s)) for s in range(players)]
        for s in range(players):
            paid = _sum([_ite(took[o], award.from_each, 0) for o in range(players) if o != s])
            self.between[s] = (self.between[s] + _ite(took[s], award.from_each * (players - 1), 0)
                               - paid)

    def _cards_left(self, name: str, abstract_counts: bool) -> None:
        """The table's payment for each card left, from every other seat to the one out, bar
        the holder of the unplayed exempt card."""
        deal, played = self.deal, self.final.played
        players = deal.players
        if abstract_counts:
            # Any number of cards left, 0 to a full hand: a superset of the true counts that
            # keeps the arithmetic small for proofs about sums.
            left = [z3.Int(f"{name}.left[{s + 1}]") for s in range(players)]
            hand = deal.semantics.cards_per_player(players)
            self.constraints += [z3.And(v >= 0, v <= hand) for v in left]
            self.constraints += [z3.Implies(self.winner[s], left[s] == 0)
                                 for s in range(players)]
        else:
            left = [_count([conj(deal.hold[c, s], neg(played[c])) for c in deal.cards])
                    for s in range(players)]
        exempt_card = self.table.exempt_card
        pays = []
        for s in range(players):
            exempt = (z3.And(deal.holds(exempt_card, s), z3.Not(played.get(exempt_card, FALSE)))
                      if exempt_card is not None else FALSE)
            pays.append(z3.If(z3.Or(self.winner[s], exempt, z3.Not(self.deal_played)), 0,
                              self.table.per_card_left * left[s]))
        self.card_net = [z3.If(self.winner[s], _sum(pays), 0) - pays[s] for s in range(players)]

    def collects(self, seat: int, comp: Compartment) -> z3.BoolRef:
        """``seat`` takes counters from ``comp`` during play."""
        return self.takes[seat, comp] > 0

    def pools_collected(self, seat: int) -> z3.ArithRef:
        return _count([self.collects(seat, c) for c in Compartment])

    def total_net(self, seat: int) -> z3.ArithRef:
        return self.dressing_net[seat] + self.turnup_net[seat] + self.play_net[seat]

