"""The rules in z3: a symbolic deal, a symbolic position, and one lead with its forced run.

Every variable has a readable, deterministic name (``deal.holds[QH,2]``, ``s0.run[9D]``), so a
model prints as the deal and line it stands for. The encodings take a
:class:`~popejoan_solver.logic.semantics.PlaySemantics` and a player count; a "for every deal"
claim is checked once per player count from 3 to 8. The run is a definition by cases over the
cards below each card of its suit; it is acyclic (a run only climbs), so it has one solution
per deal, position and lead, and that solution is the model's run (checked by the tests).
"""

from __future__ import annotations

from dataclasses import dataclass

import z3

from ..model.cards import Card, Mask, card_name, card_suit, iter_mask, make_card
from ..model.rules import LeadRule
from .semantics import PlaySemantics

FALSE = z3.BoolVal(False)
TRUE = z3.BoolVal(True)


def _or(terms: list[z3.BoolRef]) -> z3.BoolRef:
    terms = [t for t in terms if not z3.is_false(t)]
    if any(z3.is_true(t) for t in terms):
        return TRUE
    return FALSE if not terms else terms[0] if len(terms) == 1 else z3.Or(*terms)


def _and(terms: list[z3.BoolRef]) -> z3.BoolRef:
    terms = [t for t in terms if not z3.is_true(t)]
    if any(z3.is_false(t) for t in terms):
        return FALSE
    return TRUE if not terms else terms[0] if len(terms) == 1 else z3.And(*terms)


def exactly(terms: list[z3.BoolRef], count: int) -> z3.BoolRef:
    return z3.PbEq([(t, 1) for t in terms], count)


@dataclass(frozen=True)
class DecodedDeal:
    """A deal read back from a model: hands, dead cards and turn-up, as masks and a card."""

    hands: tuple[Mask, ...]
    dead: Mask
    turnup: Card


class SymbolicDeal:
    """Who was dealt each card (a seat or the dead hand) and the turn-up, as z3 variables."""

    def __init__(self, semantics: PlaySemantics, players: int, name: str = "deal") -> None:
        self.semantics = semantics
        self.players = players
        self.cards: list[Card] = list(iter_mask(semantics.pack))
        self.hold = {(c, s): z3.Bool(f"{name}.holds[{card_name(c)},{s + 1}]")
                     for c in self.cards for s in range(players)}
        self.dead = {c: z3.Bool(f"{name}.dead[{card_name(c)}]") for c in self.cards}
        self.turnup = {c: z3.Bool(f"{name}.turnup[{card_name(c)}]") for c in self.cards}

    def constraints(self) -> list[z3.BoolRef]:
        """The ruleset's dealing: every card in one place, equal hands, the turn-up dead."""
        n = self.semantics.cards_per_player(self.players)
        result = [exactly([*self.seat_vars(c), self.dead[c]], 1) for c in self.cards]
        result += [exactly([self.hold[c, s] for c in self.cards], n) for s in range(self.players)]
        result.append(exactly(list(self.dead.values()), self.semantics.dead_size(self.players)))
        result.append(exactly(list(self.turnup.values()), 1))
        result += [z3.Implies(self.turnup[c], self.dead[c]) for c in self.cards]
        return result

    def seat_vars(self, card: Card) -> list[z3.BoolRef]:
        return [self.hold[card, s] for s in range(self.players)]

    def holds(self, card: Card, seat: int) -> z3.BoolRef:
        return self.hold[card, seat] if card in self.dead else FALSE

    def in_play(self, card: Card) -> z3.BoolRef:
        """The card was dealt to a player (it is in the pack and not dead)."""
        return z3.Not(self.dead[card]) if card in self.dead else FALSE

    def is_dead(self, card: Card) -> z3.BoolRef:
        return self.dead.get(card, FALSE)

    def trumps(self, suit: int) -> z3.BoolRef:
        return _or([self.turnup[c] for c in self.cards if card_suit(c) == suit])

    def decode(self, model: z3.ModelRef) -> DecodedDeal:
        hands = [0] * self.players
        dead = 0
        turnup = -1
        for c in self.cards:
            for s in range(self.players):
                if z3.is_true(model.eval(self.hold[c, s], model_completion=True)):
                    hands[s] |= 1 << c
            if z3.is_true(model.eval(self.dead[c], model_completion=True)):
                dead |= 1 << c
            if z3.is_true(model.eval(self.turnup[c], model_completion=True)):
                turnup = c
        return DecodedDeal(tuple(hands), dead, turnup)


class SymbolicPosition:
    """The cards played so far and the seat to lead."""

    def __init__(self, deal: SymbolicDeal, played: dict[Card, z3.BoolRef],
                 leader: list[z3.BoolRef]) -> None:
        self.deal = deal
        self.played = played
        self.leader = leader

    @classmethod
    def fresh(cls, deal: SymbolicDeal, name: str) -> SymbolicPosition:
        played = {c: z3.Bool(f"{name}.played[{card_name(c)}]") for c in deal.cards}
        leader = [z3.Bool(f"{name}.to_lead[{s + 1}]") for s in range(deal.players)]
        return cls(deal, played, leader)

    @classmethod
    def outset(cls, deal: SymbolicDeal) -> SymbolicPosition:
        """Nothing played, eldest (seat 1) to lead."""
        return cls(deal, dict.fromkeys(deal.cards, FALSE),
                   [TRUE] + [FALSE] * (deal.players - 1))

    def well_formed(self) -> list[z3.BoolRef]:
        """One seat to lead; only cards dealt to players have been played."""
        result = [exactly(self.leader, 1)]
        result += [z3.Implies(self.played[c], self.deal.in_play(c)) for c in self.deal.cards]
        return result

    def is_played(self, card: Card) -> z3.BoolRef:
        return self.played.get(card, FALSE)

    def out(self, seat: int) -> z3.BoolRef:
        """``seat`` has played every card it was dealt."""
        return _and([z3.Implies(self.deal.hold[c, seat], self.played[c]) for c in self.deal.cards])

    def over(self) -> z3.BoolRef:
        return _or([self.out(s) for s in range(self.deal.players)])

    def leader_holds(self, card: Card) -> z3.BoolRef:
        """The seat to lead still holds ``card``."""
        return z3.And(_or([z3.And(self.leader[s], self.deal.holds(card, s))
                           for s in range(self.deal.players)]), z3.Not(self.is_played(card)))

    def stretch_invariant(self) -> z3.BoolRef:
        """Solver Fact 1: while the deal goes on, a played card's in-play successor is played."""
        deal = self.deal
        successor = deal.semantics.rules.successor
        terms = []
        for c in deal.cards:
            above = successor[c]
            if above >= 0 and above in deal.dead:
                terms.append(z3.Implies(z3.And(self.played[c], deal.in_play(above)),
                                        self.played[above]))
        return z3.Implies(z3.Not(self.over()), _and(terms))

    def decode_leader(self, model: z3.ModelRef) -> int:
        for s, var in enumerate(self.leader):
            if z3.is_true(model.eval(var, model_completion=True)):
                return s
        raise ValueError("no seat to lead in the model")


class SymbolicStep:
    """One lead from a position and the run it forces, defined card by card."""

    def __init__(self, position: SymbolicPosition, name: str) -> None:
        self.position = position
        deal = position.deal
        self.deal = deal
        sem = deal.semantics
        rules = sem.rules
        key = rules.order_key
        self.lead = {c: z3.Bool(f"{name}.lead[{card_name(c)}]") for c in deal.cards}
        self.run = {c: z3.Bool(f"{name}.run[{card_name(c)}]") for c in deal.cards}
        self.goes_on = {c: z3.Bool(f"{name}.goes_on[{card_name(c)}]") for c in deal.cards}
        self.empties = {c: z3.Bool(f"{name}.empties[{card_name(c)}]") for c in deal.cards}
        played = position.is_played
        cons: list[z3.BoolRef] = [exactly(list(self.lead.values()), 1)]
        cons += [z3.Implies(self.lead[c], self.legal(c)) for c in deal.cards]

        def available(card: Card) -> z3.BoolRef:
            return z3.And(deal.in_play(card), z3.Not(played(card))) if card in deal.dead else FALSE

        def skippable(card: Card) -> z3.BoolRef:
            if card not in deal.dead:
                return FALSE  # out of the pack: never jumped
            options = []
            if sem.skip_played:
                options.append(played(card))
            if sem.skip_dead:
                options.append(deal.dead[card])
            return _or(options)

        # outside[suit, s]: every card seat s was dealt outside ``suit`` is played already.
        outside = {
            (suit, s): _and([z3.Implies(deal.hold[d, s], played(d))
                             for d in deal.cards if card_suit(d) != suit])
            for suit in range(4) for s in range(deal.players)
        }
        for suit in range(4):
            order = [make_card(suit, r) for r in rules.suit_order]
            for i, c in enumerate(order):
                if c not in deal.dead:
                    continue
                # The run goes on from c to the first card above it that it cannot skip,
                # if that card is available; it stops at c otherwise.
                reach_from_below = []
                for j in range(i - 1, -1, -1):
                    b = order[j]
                    gap = _and([skippable(x) for x in order[j + 1:i]])
                    if b in deal.dead and not z3.is_false(gap):
                        reach_from_below.append(z3.And(self.run[b], z3.Not(self.empties[b]),
                                                       gap))
                cons.append(self.run[c] == _or([self.lead[c],
                                                z3.And(available(c), _or(reach_from_below))]))
                onward = []
                for j in range(i + 1, len(order)):
                    gap = _and([skippable(x) for x in order[i + 1:j]])
                    if not z3.is_false(gap):
                        onward.append(z3.And(gap, available(order[j])))
                cons.append(self.goes_on[c] == z3.And(self.run[c], z3.Not(self.empties[c]),
                                                      _or(onward)))
                # c empties its player's hand when every other card of that player is played
                # already or comes earlier in this run (lower in the same suit).
                per_seat = []
                for s in range(deal.players):
                    rest = [outside[suit, s]]
                    for d in order:
                        if d != c and d in deal.dead:
                            earlier = self.run[d] if key[d] < key[c] else FALSE
                            rest.append(z3.Implies(deal.hold[d, s], _or([played(d), earlier])))
                    per_seat.append(z3.And(deal.hold[c, s], _and(rest)))
                cons.append(self.empties[c] == z3.And(self.run[c], _or(per_seat)))
        self.constraints = cons

    def legal(self, card: Card) -> z3.BoolRef:
        """The seat to lead may lead ``card``: it holds it and the lead rule allows it."""
        position = self.position
        rules = self.deal.semantics.rules
        key = rules.order_key
        terms = [position.leader_holds(card)]
        if rules.lead is not LeadRule.ANY:
            terms += [z3.Not(position.leader_holds(d)) for d in self.deal.cards
                      if key[d] < key[card] and (rules.lead is LeadRule.LOWEST_IN_HAND
                                                 or card_suit(d) == card_suit(card))]
        return _and(terms)

    def stop(self, card: Card) -> z3.BoolRef:
        """``card`` is the last card of the run."""
        return z3.And(self.run[card], z3.Not(self.goes_on[card]))

    def after(self) -> SymbolicPosition:
        """The position after the run: its cards played, the stop card's player to lead."""
        deal = self.deal
        played = {c: _or([self.position.played[c], self.run[c]]) for c in deal.cards}
        leader = [_or([z3.And(self.stop(c), deal.hold[c, s]) for c in deal.cards])
                  for s in range(deal.players)]
        return SymbolicPosition(deal, played, leader)

    def decode_lead(self, model: z3.ModelRef) -> Card:
        for c, var in self.lead.items():
            if z3.is_true(model.eval(var, model_completion=True)):
                return c
        raise ValueError("no lead in the model")
