"""The rules in z3: a symbolic deal, a symbolic position, and one lead with its forced run.

Every variable has a readable, deterministic name (``deal.holds[QH,2]``, ``s0.run[9D]``), so a
model prints as the deal and line it stands for. The encodings take a
:class:`~popejoan_solver.logic.semantics.PlaySemantics` and a player count; a "for every deal"
claim is checked once per player count from 3 to 8. The run is a definition by cases over the
cards below each card of its suit; it is acyclic (a run only climbs), so it has one solution
per deal, position and lead, and that solution is the model's run (checked by the tests).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from ..model.cards import Card, Mask, card_name, card_suit, iter_mask
from ..model.errors import RulesError
from ..model.table import ChoiceKind, ChoicePoint, LeadId
from .semantics import PlaySemantics

FALSE = z3.BoolVal(False)
TRUE = z3.BoolVal(True)
# z3 keeps one node for ``true`` and one for ``false`` in a context, so a term is the constant
# exactly when it is that node: one comparison of addresses, where z3.is_true makes four calls
# into z3 (building the encodings made those calls most of its time).
_TRUE_NODE, _FALSE_NODE = TRUE.ast.value, FALSE.ast.value


# The encodings are built from Boolean terms of one context only, so the connectives below
# call z3's C API directly: the same terms as z3.And, z3.Or, z3.Implies, z3.Not and ==, without
# the checks and conversions of z3's Python layer (most of the time of building them).


def _nary(make: Callable[..., Any], terms: Sequence[z3.BoolRef]) -> z3.BoolRef:
    ctx = terms[0].ctx
    args = (z3.Ast * len(terms))(*[t.ast for t in terms])
    return z3.BoolRef(make(ctx.ref(), len(terms), args), ctx)


def conj(*terms: z3.BoolRef) -> z3.BoolRef:
    """``z3.And(*terms)``, of one term or more."""
    return _nary(z3.Z3_mk_and, terms)


def implies(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``z3.Implies(a, b)``."""
    return z3.BoolRef(z3.Z3_mk_implies(a.ctx.ref(), a.ast, b.ast), a.ctx)


def iff(a: z3.BoolRef, b: z3.BoolRef) -> z3.BoolRef:
    """``a == b``."""
    return z3.BoolRef(z3.Z3_mk_eq(a.ctx.ref(), a.ast, b.ast), a.ctx)


def neg(a: z3.BoolRef) -> z3.BoolRef:
    """``z3.Not(a)``."""
    return z3.BoolRef(z3.Z3_mk_not(a.ctx.ref(), a.ast), a.ctx)


def any_of(terms: list[z3.BoolRef]) -> z3.BoolRef:
    """The disjunction of ``terms``, simplified where a term is a constant (no ``Or`` of one
    term or of none): the encodings build many such small formulas."""
    kept = []
    for t in terms:
        node = t.ast.value
        if node == _TRUE_NODE:
            return TRUE
        if node != _FALSE_NODE:
            kept.append(t)
    return FALSE if not kept else kept[0] if len(kept) == 1 else _nary(z3.Z3_mk_or, kept)


def all_of(terms: list[z3.BoolRef]) -> z3.BoolRef:
    """The conjunction of ``terms``, simplified where a term is a constant (see
    :func:`any_of`)."""
    kept = []
    for t in terms:
        node = t.ast.value
        if node == _FALSE_NODE:
            return FALSE
        if node != _TRUE_NODE:
            kept.append(t)
    return TRUE if not kept else kept[0] if len(kept) == 1 else _nary(z3.Z3_mk_and, kept)


def negated(term: z3.BoolRef) -> z3.BoolRef:
    """The negation of ``term``, simplified where it is a constant (:func:`neg` is z3's own)."""
    node = term.ast.value
    return TRUE if node == _FALSE_NODE else FALSE if node == _TRUE_NODE else neg(term)


def exactly(terms: list[z3.BoolRef], count: int) -> z3.BoolRef:
    """``z3.PbEq([(t, 1) for t in terms], count)``."""
    if not terms:
        return z3.PbEq([], count)
    ctx = terms[0].ctx
    args = (z3.Ast * len(terms))(*[t.ast for t in terms])
    ones = (ctypes.c_int * len(terms))(*[1] * len(terms))
    return z3.BoolRef(z3.Z3_mk_pbeq(ctx.ref(), len(terms), args, ones, count), ctx)


def mask_term(terms: Mapping[int, z3.BoolRef]) -> z3.BitVecRef:
    """The keys (cards or seats, below 64) whose term holds, as one 64-bit term, the bits of
    those keys: a model reads them all in one evaluation, where one evaluation per term made
    reading a model most of a search's time."""
    ctx = next(iter(terms.values())).ctx if terms else z3.main_ctx()
    ref = ctx.ref()
    zero = z3.BitVecVal(0, 64, ctx)
    mask = zero
    for key, term in terms.items():
        bit = z3.BitVecRef(z3.Z3_mk_ite(ref, term.ast, z3.BitVecVal(1 << key, 64, ctx).ast,
                                        zero.ast), ctx)
        mask = z3.BitVecRef(z3.Z3_mk_bvor(ref, mask.ast, bit.ast), ctx)
    return mask


def read_mask(model: z3.ModelRef, term: z3.BitVecRef) -> Mask:
    """The value of a :func:`mask_term` in ``model`` (a variable it leaves free is false)."""
    return int(model.eval(term, model_completion=True).as_long())


def _lowest(mask: Mask) -> int:
    """The lowest bit set in ``mask``, or -1."""
    return (mask & -mask).bit_length() - 1


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
        self.table = semantics.table
        self.chains = Chains(self.table.successor)
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
        return neg(self.dead[card]) if card in self.dead else FALSE

    def is_dead(self, card: Card) -> z3.BoolRef:
        return self.dead.get(card, FALSE)

    def trumps(self, suit: int) -> z3.BoolRef:
        return any_of([self.turnup[c] for c in self.cards if card_suit(c) == suit])

    @functools.cached_property
    def _masks(self) -> tuple[list[z3.BitVecRef], z3.BitVecRef, z3.BitVecRef]:
        """Each hand, the dead cards and the turn-up, as :func:`mask_term`s."""
        hands = [mask_term({c: self.hold[c, s] for c in self.cards})
                 for s in range(self.players)]
        return hands, mask_term(self.dead), mask_term(self.turnup)

    def decode(self, model: z3.ModelRef) -> DecodedDeal:
        hands, dead, turnup = self._masks
        return DecodedDeal(tuple(read_mask(model, h) for h in hands), read_mask(model, dead),
                           read_mask(model, turnup).bit_length() - 1)


class SymbolicPosition:
    """The cards played so far and the seat to lead."""

    def __init__(self, deal: SymbolicDeal, played: dict[Card, z3.BoolRef],
                 leader: list[z3.BoolRef]) -> None:
        self.deal = deal
        self.played = played
        self.leader = leader
        self._holds: dict[Card, z3.BoolRef] = {}
        self._out: dict[int, z3.BoolRef] = {}

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
        result += [implies(self.played[c], self.deal.in_play(c)) for c in self.deal.cards]
        return result

    def is_played(self, card: Card) -> z3.BoolRef:
        return self.played.get(card, FALSE)

    def out(self, seat: int) -> z3.BoolRef:
        """``seat`` has played every card it was dealt."""
        if seat not in self._out:  # built once: the same term each time
            self._out[seat] = all_of([implies(self.deal.hold[c, seat], self.played[c])
                                    for c in self.deal.cards])
        return self._out[seat]

    def over(self) -> z3.BoolRef:
        return any_of([self.out(s) for s in range(self.deal.players)])

    def leader_holds(self, card: Card) -> z3.BoolRef:
        """The seat to lead still holds ``card``."""
        if card not in self._holds:  # built once: the same term each time
            self._holds[card] = conj(
                any_of([conj(self.leader[s], self.deal.holds(card, s))
                     for s in range(self.deal.players)]), neg(self.is_played(card)))
        return self._holds[card]

    def stretch_invariant(self) -> z3.BoolRef:
        """Solver Fact 1: while the deal goes on, a played card's in-play successor is played."""
        deal = self.deal
        successor = deal.table.successor
        terms = []
        for c in deal.cards:
            above = successor[c]
            if above >= 0 and above in deal.dead:
                terms.append(z3.Implies(z3.And(self.played[c], deal.in_play(above)),
                                        self.played[above]))
        return z3.Implies(z3.Not(self.over()), all_of(terms))

    def decode_leader(self, model: z3.ModelRef) -> int:
        for s, var in enumerate(self.leader):
            if z3.is_true(model.eval(var, model_completion=True)):
                return s
        raise ValueError("no seat to lead in the model")


class Chains:
    """The table's successor as the encodings walk it: for each card of the pack, the cards
    above it (nearest first, up to the top of its chain) and those below it (nearest first).

    Read from ``table.successor`` alone, which is what :meth:`Game.forced_run` follows; the
    suit order is never consulted. Cards out of the pack (the 8♦) are in the chains: a run
    that meets one stops, since it is never available. A successor that is not a set of
    chains (a card with two cards just below it, or a cycle) is refused: the run's definition
    would not be unique.
    """

    def __init__(self, successor: tuple[int, ...]) -> None:
        cards = range(len(successor))
        self.above: dict[Card, tuple[Card, ...]] = {}
        below: dict[Card, list[Card]] = {}
        for c in cards:
            chain: list[Card] = []
            card = successor[c]
            while card >= 0:
                if card == c or card in chain:
                    raise RulesError(f"the successor table has a cycle through "
                                     f"{card_name(c)}: the encodings need chains")
                chain.append(card)
                card = successor[card]
            self.above[c] = tuple(chain)
            if successor[c] >= 0:
                below.setdefault(successor[c], []).append(c)
        for c, just_below in below.items():
            if len(just_below) > 1:
                raise RulesError(f"the successor table puts {len(just_below)} cards just "
                                 f"below {card_name(c)}: the encodings need chains")
        self.below: dict[Card, tuple[Card, ...]] = {
            c: tuple(sorted((b for b in cards if c in self.above[b]),
                            key=lambda b, c=c: self.above[b].index(c)))  # type: ignore[misc]
            for c in cards}
        """Every card (in the pack or not) whose chain reaches ``c``, nearest first."""
        self.bottom = {c: (self.below[c][-1] if self.below[c] else c) for c in cards}
        """The bottom of each card's chain: it names the chain (a suit, for the real rules)."""


@dataclass
class _Segment:
    """A stretch of a run that climbs one chain: its cards, the cards it goes on from, the
    cards that empty their player's hand."""

    run: dict[Card, z3.BoolRef]
    goes_on: dict[Card, z3.BoolRef]
    empties: dict[Card, z3.BoolRef]


class SymbolicStep:
    """One lead from a position and the run it forces, defined card by card from the table's
    successor (:class:`Chains`), with the table's choices inside a run as decision variables.

    Without choice points the run is one climb of a chain (variables ``s.run[c]``,
    ``s.goes_on[c]``, ``s.empties[c]``). With Spin (``ChoiceKind.SPIN``) ``s.spin_on[c]``
    says the card's player plays the Spin card on top of ``c``: the run stops there. With the
    Pope in lieu (``ChoiceKind.IN_LIEU``) ``s.in_lieu`` says the Pope's holder plays it at the
    run's stop; under a reading that ``continues`` a second climb (``s.after_pope.*``) starts
    at the card above the missing one. ``run``, ``goes_on``, ``empties`` and :meth:`stop`
    combine them; every choice is free exactly where the model offers it
    (:meth:`Game.run_tree`).
    """

    def __init__(self, position: SymbolicPosition, name: str) -> None:
        self.position = position
        deal = position.deal
        self.deal = deal
        table = deal.table
        spin, lieu = table.choice(ChoiceKind.SPIN), table.choice(ChoiceKind.IN_LIEU)
        if spin is not None and lieu is not None:
            raise RulesError(f"the encodings take one choice inside a run, not both "
                             f"{spin.option} and {lieu.option}")
        self.lead = {c: z3.Bool(f"{name}.lead[{card_name(c)}]") for c in deal.cards}
        self.spin_on: dict[Card, z3.BoolRef] = {}
        if spin is not None and spin.card in deal.dead:
            self.spin_on = {c: z3.Bool(f"{name}.spin_on[{card_name(c)}]")
                            for c in deal.cards if c != spin.card}
        self.in_lieu: z3.BoolRef = FALSE
        if lieu is not None and lieu.card in deal.dead:
            self.in_lieu = z3.Bool(f"{name}.in_lieu")
        self.choice_rules: list[z3.BoolRef] = []
        """Where each choice may be taken (``choice -> condition``), also in
        :attr:`constraints`; the rest of them define the run from the choices."""
        cons: list[z3.BoolRef] = [exactly(list(self.lead.values()), 1)]
        cons += [implies(self.lead[c], self.legal(c)) for c in deal.cards]
        nothing = dict.fromkeys(deal.cards, FALSE)
        plain = not self.spin_on and z3.is_false(self.in_lieu)
        first = self._segment(name if plain else f"{name}.first", self.lead, nothing, None,
                              cons)
        final = {c: all_of([first.run[c], negated(first.goes_on[c]),
                          negated(self.spin_on.get(c, FALSE)), negated(self.in_lieu)])
                 for c in deal.cards}
        parts = [first]
        if spin is not None and self.spin_on:
            parts.append(self._spin(spin.card, first, final, cons))
        if lieu is not None and not z3.is_false(self.in_lieu):
            parts += self._pope(lieu, first, final, name, cons)
        self.run = {c: any_of([p.run[c] for p in parts]) for c in deal.cards}
        self.goes_on = {c: any_of([p.goes_on[c] for p in parts]) for c in deal.cards}
        self.empties = {c: any_of([p.empties[c] for p in parts]) for c in deal.cards}
        self.final = final
        self.constraints = cons

    def _segment(self, name: str, start: dict[Card, z3.BoolRef],
                 before: dict[Card, z3.BoolRef], excluded: Card | None,
                 cons: list[z3.BoolRef]) -> _Segment:
        """A climb from the card ``start`` picks: ``before`` are the cards played earlier in
        this step, ``excluded`` a card it cannot meet (the Pope played in lieu)."""
        deal, chains, position = self.deal, self.deal.chains, self.position
        run = {c: z3.Bool(f"{name}.run[{card_name(c)}]") for c in deal.cards}
        goes_on = {c: z3.Bool(f"{name}.goes_on[{card_name(c)}]") for c in deal.cards}
        empties = {c: z3.Bool(f"{name}.empties[{card_name(c)}]") for c in deal.cards}
        spun = {c: self.spin_on.get(c, FALSE) for c in deal.cards}

        def available(card: Card) -> z3.BoolRef:
            return FALSE if card == excluded else self._available(card)

        seats = range(deal.players)
        # Each term below is built once and shared by every card whose definition has it.
        gone = {d: any_of([position.is_played(d), before[d]]) for d in deal.cards}
        # If seat s was dealt d, d is played already (kept), or is too or comes earlier in this
        # run (climbed: for the cards below the one that may empty the hand).
        kept = {(d, s): implies(deal.hold[d, s], gone[d]) for d in deal.cards for s in seats}
        climbed = {(d, s): implies(deal.hold[d, s], any_of([gone[d], run[d]]))
                   for d in deal.cards for s in seats}
        chain_of: dict[Card, list[Card]] = {}
        for d in deal.cards:
            chain_of.setdefault(chains.bottom[d], []).append(d)
        # outside[chain, s]: every card seat s was dealt outside that chain is played already.
        outside = {
            (bottom, s): all_of([kept[d, s] for d in deal.cards if chains.bottom[d] != bottom])
            for bottom in set(chains.bottom.values()) for s in seats
        }
        for c in deal.cards:
            # The run reaches c from the nearest card below it that it cannot skip, if c is
            # available; it goes on from c to the first card above that it cannot skip, if
            # that card is available (Game.forced_run: the successor, else a stop), unless
            # the Spin card is played on top of c.
            reach = [conj(run[b], neg(empties[b]), gap)
                     if spun[b].ast.value == _FALSE_NODE
                     else conj(run[b], neg(empties[b]), neg(spun[b]), gap)
                     for b, gap in self._gaps(chains.below[c]) if b in deal.dead]
            cons.append(iff(run[c], any_of([start[c], conj(available(c), any_of(reach))])))
            onward = [conj(gap, available(a)) for a, gap in self._gaps(chains.above[c])]
            cons.append(iff(goes_on[c], all_of([run[c], neg(empties[c]), negated(spun[c]),
                                              any_of(onward)])))
            # c empties its player's hand when every other card of that player is played
            # already or comes earlier in this run (below it in its chain).
            below = chains.below[c]
            same = [d for d in chain_of[chains.bottom[c]] if d != c]
            per_seat = []
            for s in seats:
                rest = [outside[chains.bottom[c], s]]
                rest += [climbed[d, s] if d in below else kept[d, s] for d in same]
                per_seat.append(conj(deal.hold[c, s], all_of(rest)))
            cons.append(iff(empties[c], conj(run[c], any_of(per_seat))))
        return _Segment(run, goes_on, empties)

    def _last_of_hand(self, card: Card, earlier: dict[Card, z3.BoolRef]) -> z3.BoolRef:
        """``card`` is its holder's last: every other card dealt to that seat is played
        already or in ``earlier``."""
        deal = self.deal
        return any_of([z3.And(deal.hold[card, s],
                           all_of([z3.Implies(deal.hold[d, s],
                                            any_of([self.position.is_played(d), earlier[d]]))
                                 for d in deal.cards if d != card]))
                    for s in range(deal.players)])

    def _choice_card(self, card: Card, played: z3.BoolRef, earlier: dict[Card, z3.BoolRef],
                     ) -> _Segment:
        """A card played by a choice (``played``), out of its player's hand if his last."""
        nothing = dict.fromkeys(self.deal.cards, FALSE)
        empties = z3.And(played, self._last_of_hand(card, earlier))
        return _Segment({**nothing, card: played}, nothing, {**nothing, card: empties})

    def _spin(self, spin: Card, first: _Segment, final: dict[Card, z3.BoolRef],
              cons: list[z3.BoolRef]) -> _Segment:
        """Spin on top of any card its holder plays, while Spin is unplayed (not below that
        card in this run) and he is not out: the run stops, Spin is its last card."""
        deal = self.deal
        for c, var in self.spin_on.items():
            earlier = first.run[spin] if spin in deal.chains.below[c] else FALSE
            same_seat = any_of([z3.And(deal.hold[c, s], deal.hold[spin, s])
                             for s in range(deal.players)])
            rule = z3.Implies(var, all_of([first.run[c], z3.Not(first.empties[c]),
                                           same_seat, self._available(spin),
                                           z3.Not(earlier)]))
            cons.append(rule)
            self.choice_rules.append(rule)
        spun = any_of(list(self.spin_on.values()))
        final[spin] = any_of([final[spin], spun])
        return self._choice_card(spin, spun, first.run)

    def _pope(self, lieu: ChoicePoint, first: _Segment, final: dict[Card, z3.BoolRef],
              name: str, cons: list[z3.BoolRef]) -> list[_Segment]:
        """The Pope in lieu of the card missing above the first climb's stop (not at the top
        of a chain unless ``after_top``); under ``continues`` a second climb from the card
        above the missing one (above the Pope if that is the Pope), if it can be played."""
        deal, successor, pope = self.deal, self.deal.table.successor, lieu.card
        stops = {c: all_of([first.run[c], z3.Not(first.goes_on[c]), z3.Not(first.empties[c])])
                 for c in deal.cards}
        allowed = [stops[c] for c in deal.cards if lieu.after_top or successor[c] >= 0]
        rule = z3.Implies(self.in_lieu, all_of([self._available(pope),
                                                z3.Not(first.run[pope]), any_of(allowed)]))
        cons.append(rule)
        self.choice_rules.append(rule)
        played = self._choice_card(pope, self.in_lieu, first.run)
        if not lieu.continues:
            final[pope] = any_of([final[pope], self.in_lieu])
            return [played]
        start: dict[Card, list[z3.BoolRef]] = {c: [] for c in deal.cards}
        going = z3.And(self.in_lieu, z3.Not(played.empties[pope]))
        for c in deal.cards:
            above = successor[successor[c]] if successor[c] >= 0 else -1
            above = successor[above] if above == pope else above
            if above in start:
                start[above].append(z3.And(going, stops[c], self._available(above)))
        starts = {c: any_of(terms) for c, terms in start.items()}
        before = {c: any_of([first.run[c], self.in_lieu if c == pope else FALSE])
                  for c in deal.cards}
        second = self._segment(f"{name}.after_pope", starts, before, pope, cons)
        final[pope] = any_of([final[pope], z3.And(self.in_lieu, z3.Not(any_of(list(starts.values())
                                                                        )))])
        for c in deal.cards:
            final[c] = any_of([final[c], z3.And(second.run[c], z3.Not(second.goes_on[c]))])
        return [played, second]

    def _available(self, card: Card) -> z3.BoolRef:
        """``card`` is in the pack, dealt to a player and not yet played."""
        deal = self.deal
        if card not in deal.dead:
            return FALSE
        return conj(deal.in_play(card), neg(self.position.is_played(card)))

    def _skippable(self, card: Card) -> z3.BoolRef:
        """Only a mutant's run passes over a card (:class:`PlaySemantics`)."""
        deal, sem = self.deal, self.deal.semantics
        if card not in deal.dead:
            return FALSE  # out of the pack: never passed over
        options = []
        if sem.skip_played:
            options.append(self.position.is_played(card))
        if sem.skip_dead:
            options.append(deal.dead[card])
        return any_of(options)

    def _gaps(self, cards: tuple[Card, ...]) -> list[tuple[Card, z3.BoolRef]]:
        """Each card of ``cards`` (nearest first) with the condition that the run passes over
        every card before it; those it can never reach are left out."""
        result = []
        gap: z3.BoolRef = TRUE
        for card in cards:
            result.append((card, gap))
            gap = all_of([gap, self._skippable(card)])
            if z3.is_false(gap):
                break
        return result

    def legal(self, card: Card) -> z3.BoolRef:
        """The seat to lead may lead ``card``: it holds it and the table's lead rule allows it
        (no lower card by ``order_key``, of its suit or of the hand; :func:`legal_leads`)."""
        position = self.position
        table = self.deal.table
        key = table.order_key
        terms = [position.leader_holds(card)]
        if table.lead is not LeadId.ANY:
            terms += [neg(position.leader_holds(d)) for d in self.deal.cards
                      if key[d] < key[card] and (table.lead is LeadId.LOWEST_IN_HAND
                                                 or card_suit(d) == card_suit(card))]
        return all_of(terms)

    def stop(self, card: Card) -> z3.BoolRef:
        """``card`` is the last card of the run (its player leads next)."""
        return self.final[card]

    def after(self) -> SymbolicPosition:
        """The position after the run: its cards played, the stop card's player to lead."""
        deal = self.deal
        played = {c: any_of([self.position.played[c], self.run[c]]) for c in deal.cards}
        leader = [any_of([conj(self.stop(c), deal.hold[c, s]) for c in deal.cards])
                  for s in range(deal.players)]
        return SymbolicPosition(deal, played, leader)

    @functools.cached_property
    def _masks(self) -> tuple[z3.BitVecRef, z3.BitVecRef]:
        """The lead and the run, as :func:`mask_term`s."""
        return mask_term(self.lead), mask_term(self.run)

    def decode_lead(self, model: z3.ModelRef) -> Card:
        lead = _lowest(read_mask(model, self._masks[0]))
        if lead < 0:
            raise ValueError("no lead in the model")
        return lead

    def decode_run(self, model: z3.ModelRef) -> Mask:
        """The cards of the run in the model (choices included), as a mask."""
        return read_mask(model, self._masks[1])
