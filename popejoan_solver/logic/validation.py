"""Translation validation: the z3 encodings checked equal to the rules model they stand for.

A proof is about the encoding; it is a proof about the rules only if the encoding's one step
(a lead and its run, who leads next, who is out) and its settlement are what the model
(:mod:`popejoan_solver.model.play`, :mod:`~popejoan_solver.model.settlement`) computes. Two
checks, both over the same compiled rule table:

* :func:`validate_deals` (concrete): for given deals, every position play reaches from the
  outset and every card the seat on lead holds: the encoding, with deal, position and lead
  fixed, has exactly the model's run, stop card, next leader and player out, and refuses
  exactly the leads the model refuses; every finished line is settled alike. :func:`window_deals`
  gives every deal of a small shape, so that this is exhaustive over it.
* :func:`validate_symbolic` (symbolic): one z3 query per player count that the encoding's
  step equals a second, direct definition of the run (the loop of :meth:`Game.forced_run`
  unrolled over time, from ``table.successor``), for every deal and every position (reachable
  or not) and every legal lead.

A mismatch raises :class:`ValidationError` (a :class:`ProofError`: a bug of the tool). With
choices inside a run (Spin, the Pope in lieu) the concrete check compares the *set* of runs
a lead can end in (the encoding's, enumerated by blocking each run found, against
:meth:`Position.outcomes`) and follows every outcome to the next positions; the symbolic check
compares the step with every choice declined to the unrolled forced run (its unrolled run has
no choices).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Final

import z3

from ..model.board import Compartment
from ..model.cards import Card, Mask, card_name, format_cards, iter_mask, parse_cards
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, Deal, deal_random
from ..model.play import Position, Run
from ..model.settlement import net, settle
from ..model.table import ChoiceKind, ChoicePoint
from .encoding import (
    FALSE,
    TRUE,
    SymbolicDeal,
    SymbolicPosition,
    SymbolicStep,
    all_of,
    any_of,
    conj,
    exactly,
    mask_term,
    negated,
    read_mask,
)
from .prover import ProofError, check_sat
from .semantics import PlaySemantics
from .settlement_encoding import SymbolicSettlement


class ValidationError(ProofError):
    """The encoding and the rules model disagree on a step or a settlement."""


@dataclass(frozen=True)
class ValidationReport:
    """What one validation compared."""

    deals: int = 0
    positions: int = 0
    leads: int = 0
    """Legal leads whose run, stop, next leader and player out were compared."""
    refused: int = 0
    """Leads the model refuses, checked refused by the encoding."""
    settlements: int = 0
    seconds: float = 0.0

    def __add__(self, other: ValidationReport) -> ValidationReport:
        return ValidationReport(self.deals + other.deals, self.positions + other.positions,
                                self.leads + other.leads, self.refused + other.refused,
                                self.settlements + other.settlements,
                                self.seconds + other.seconds)

    def summary(self) -> str:
        return (f"{self.deals} deals, {self.positions} positions, {self.leads} leads compared, "
                f"{self.refused} illegal leads refused, {self.settlements} settlements, "
                f"{self.seconds:.1f} s")


class _Checker:
    """One step and one settlement of the encoding, for one player count, evaluated with the
    deal, the position and the lead fixed (the definitions then have exactly one solution)."""

    def __init__(self, semantics: PlaySemantics, players: int) -> None:
        self.deal = SymbolicDeal(semantics, players, "v")
        self.position = SymbolicPosition.fresh(self.deal, "p")
        self.step = SymbolicStep(self.position, "s")
        self.after = self.step.after()
        self.stops = {c: self.step.stop(c) for c in self.deal.cards}
        self.outs = [self.after.out(s) for s in range(players)]
        # What _read reads from a model, one evaluation each.
        self._read_terms = (mask_term(self.step.run), mask_term(self.stops),
                            mask_term(dict(enumerate(self.outs))),
                            mask_term(dict(enumerate(self.after.leader))))
        self.solver = z3.Solver()
        self.solver.add(*self.step.constraints)
        self.final = SymbolicPosition.fresh(self.deal, "end")
        self.settlement = SymbolicSettlement(self.deal, self.final)
        self.settler = z3.Solver()
        self.settler.add(*self.settlement.constraints,
                         *[v == 0 for v in self.settlement.carried.values()])
        self._negated: dict[int, z3.BoolRef] = {}

    def _literal(self, var: z3.BoolRef, value: bool) -> z3.BoolRef:
        """``var`` or its negation (built once: building z3 terms is most of the time)."""
        if value:
            return var
        key = var.ast.value  # the node's address: z3 keeps one node per term
        if key not in self._negated:
            self._negated[key] = negated(var)
        return self._negated[key]

    def deal_literals(self, deal: Deal) -> list[z3.BoolRef]:
        sym = self.deal
        lits = []
        for c in sym.cards:
            lits += [self._literal(sym.hold[c, s], deal.holder(c) == s + 1)
                     for s in range(sym.players)]
            lits += [self._literal(sym.dead[c], bool(deal.dead >> c & 1)),
                     self._literal(sym.turnup[c], c == deal.turnup)]
        return lits

    def check_position(self, deal: Deal, position: Position) -> tuple[int, int]:
        """Every card held by the seat on lead: (legal leads compared, illegal ones refused)."""
        fixed = [self._literal(self.position.played[c], bool(position.played >> c & 1))
                 for c in self.deal.cards]
        fixed += [self._literal(v, s + 1 == position.leader)  # the encoding's seats: from 0
                  for s, v in enumerate(self.position.leader)]
        legal = set(position.legal_leads())
        held = deal.dealt_hand(position.leader - 1) & ~position.played
        compared = refused = 0
        for lead in iter_mask(held):
            result, model = check_sat_with(self.solver, [*fixed, self.step.lead[lead]])
            where = (f"{deal.players} players, hands {_hands(deal)}, played "
                     f"{format_cards(position.played) or '-'}, seat {position.leader} "
                     f"leads {card_name(lead)}")
            if lead not in legal:
                if result != z3.unsat:
                    raise ValidationError(f"the encoding allows a lead the model refuses: {where}")
                refused += 1
                continue
            if model is None:
                raise ValidationError(f"the encoding refuses a legal lead: {where}")
            expected = {_outcome(run) for run in position.outcomes(lead)}
            found = self._outcomes(model, [*fixed, self.step.lead[lead]], len(expected))
            if found != expected:
                raise ValidationError(
                    f"the encoding's run differs from the model's: {where}: model "
                    f"{_outcomes_text(expected)}; encoding {_outcomes_text(found)}")
            compared += 1
        return compared, refused

    def _outcomes(self, model: z3.ModelRef, fixed: list[z3.BoolRef],
                  most: int) -> set[_Outcome]:
        """Every run the encoding allows with ``fixed`` (one per choice made inside it), each
        with its stop cards, the seats out and the next leader; at most ``most`` + 1."""
        found = [self._read(model)]
        blocked: list[z3.BoolRef] = []
        while len(found) <= most:
            # Some card is in the run that was not, or the other way round.
            ran = found[-1][0]
            blocked.append(any_of([self._literal(self.step.run[c], not ran >> c & 1)
                                for c in self.deal.cards]))
            _, another = check_sat_with(self.solver, [*fixed, *blocked])
            if another is None:
                break
            found.append(self._read(another))
        return set(found)

    def _read(self, model: z3.ModelRef) -> _Outcome:
        ran, stops, out, leads = (read_mask(model, term) for term in self._read_terms)
        return (ran, tuple(iter_mask(stops)), tuple(iter_mask(out)),
                tuple(iter_mask(leads)) if not out else ())

    def check_settlement(self, deal: Deal, played: Mask, winner: int | None) -> None:
        """The encoding's settlement of a finished line equals the model's, seat by seat and
        compartment by compartment (the board as dressed, nothing carried over); ``deal`` is
        asserted in the settler already."""
        expected = settle(deal, played, winner)
        fixed = [self._literal(self.final.played[c], bool(played >> c & 1))
                 for c in self.deal.cards]
        _, model = check_sat_with(self.settler, fixed)
        if model is None:
            raise ValidationError(f"the encoding cannot settle a finished line: hands "
                                  f"{_hands(deal)}, played {format_cards(played)}")
        st = self.settlement

        def value(term: z3.ArithRef) -> int:
            return int(model.eval(term, model_completion=True).as_long())

        seats = [(value(st.dressing_net[s]), value(st.turnup_net[s]), value(st.play_net[s]))
                 for s in range(deal.players)]
        wanted = [(net(expected.dressing, s), net(expected.turnup, s), net(expected.play, s))
                  for s in range(1, deal.players + 1)]
        board = {c: value(st.board_after[c]) for c in Compartment}
        if seats != wanted or board != dict(expected.board_after.items()):
            raise ValidationError(
                f"the encoding settles a finished line otherwise than the model: hands "
                f"{_hands(deal)}, turn-up {card_name(deal.turnup)}, played "
                f"{format_cards(played)}: (dressing, turn-up, play) per seat {seats} against "
                f"{wanted}")


_Outcome = tuple[Mask, tuple[Card, ...], tuple[int, ...], tuple[int, ...]]
"""A run as both sides read it: its cards, its stop cards, the seats out, who leads next
(none when a seat is out)."""


def _outcome(run: Run) -> _Outcome:
    """The model's run as the encoding reads one (its seats 0-based indices)."""
    out = () if run.winner is None else (run.winner - 1,)
    return run.mask, (run.stop_card,), out, () if run.next_leader is None else (
        run.next_leader - 1,)


def _outcomes_text(outcomes: set[_Outcome]) -> str:
    return "; ".join(
        f"{format_cards(mask)} stop {' '.join(card_name(c) for c in stops)} (out "
        f"{[s + 1 for s in out]}, next {[s + 1 for s in leads]})"
        for mask, stops, out, leads in sorted(outcomes))


def check_sat_with(solver: z3.Solver, assumptions: list[z3.BoolRef],
                   ) -> tuple[z3.CheckSatResult, z3.ModelRef | None]:
    """A check with ``assumptions`` for it alone, and its model if satisfiable (Ctrl-C stays
    an interrupt, :func:`check_sat`)."""
    result = check_sat(solver, assumptions)
    return result, solver.model() if result == z3.sat else None


def _hands(deal: Deal) -> str:
    return " / ".join(format_cards(deal.dealt_hand(s)) for s in range(deal.players))


def validate_deals(semantics: PlaySemantics, deals: Iterable[Deal]) -> ValidationReport:
    """Every reachable position of each deal, every card its leader holds, and the settlement
    of every finished line: the encoding against the model."""
    return _validate(semantics, ((deal, Position.from_deal(deal).reachable()) for deal in deals))


def validate_line(semantics: PlaySemantics, deal: Deal, rng: random.Random) -> ValidationReport:
    """Every position of one random line of ``deal`` (each card its leader holds), and the
    settlement where it ends: for full deals, whose positions are too many to visit."""
    def line() -> Iterator[Position]:
        position = Position.from_deal(deal)
        yield position
        while legal := position.legal_leads():  # none once over, or ended by the turn-up
            runs = position.outcomes(rng.choice(legal))
            position = position.after(rng.choice(runs))
            yield position
    return _validate(semantics, [(deal, line())])


def _validate(semantics: PlaySemantics,
              cases: Iterable[tuple[Deal, Iterable[Position]]]) -> ValidationReport:
    """Each deal's given positions: a step from each position not over, the settlement of
    each finished one (or, when the turn-up ends the deal, of the deal left unplayed)."""
    start = time.perf_counter()
    checkers: dict[int, _Checker] = {}
    report = ValidationReport()
    ends = semantics.table.ends_deal_turnup
    for deal, positions in cases:
        checker = checkers.get(deal.players) or checkers.setdefault(
            deal.players, _Checker(semantics, deal.players))
        literals = checker.deal_literals(deal)
        unplayed = deal.turnup == ends
        deal_fixed = conj(*literals)  # one term: z3 splits it (adding each cost more)
        for solver in (checker.solver, checker.settler):  # the deal, for its positions
            solver.push()
            solver.add(deal_fixed)
        counts = [0, 0, 0, int(unplayed)]  # positions, leads, refused, settlements
        try:
            if unplayed:
                checker.check_settlement(deal, 0, None)
            for position in positions:
                counts[0] += 1
                if not position.is_over:
                    compared, refused = checker.check_position(deal, position)
                    counts[1] += compared
                    counts[2] += refused
                elif not unplayed:
                    checker.check_settlement(deal, position.played, position.winner)
                    counts[3] += 1
        finally:
            checker.solver.pop()
            checker.settler.pop()
        report += ValidationReport(1, *counts)
    return replace(report, seconds=time.perf_counter() - start)


PROVE_WINDOW = "JD QD KD AD 2D"
"""The window ``prove`` validates before its first PROVED: the top of diamonds and, under
ace low, its bottom (under ace high, K♦ then A♦ at the top)."""


CHOICE_WINDOWS = {ChoiceKind.IN_LIEU: "QS KS 7D TD", ChoiceKind.SPIN: "5C 6C 7C KH"}
"""Cards dealt with a choice point's card for :func:`validate_for_prove`: for the Pope in
lieu, a stop below a King, the King, and the 7♦ whose missing 8♦ sits below the Pope (the run
goes on from the 10♦); for Spin, a run of three and a King."""


def validate_for_prove(semantics: PlaySemantics) -> ValidationReport:
    """The cheap part, run by ``prove``: every 3-player deal of hands 2, 1, 1 from
    :data:`PROVE_WINDOW` (the fifth card dead), exhaustively; for each of the table's choice
    points, the same from its card and :data:`CHOICE_WINDOWS`. The turn-ups these deals
    never have are checked by :func:`validate_turnups`."""
    windows = [parse_cards(PROVE_WINDOW)]
    windows += [[point.card, *parse_cards(CHOICE_WINDOWS[point.kind])]
                for point in semantics.table.choice_points]
    report = ValidationReport()
    for window in windows:
        report += validate_deals(semantics, window_deals(semantics, window, (2, 1, 1)))
    return report


TURNUP_WINDOWS: Final = ("JD QD KD AD 2D", "JC QC KC AC 2C")
"""The windows of :func:`validate_turnups`' played deals: the first without the turn-up."""
TURNUP_DEALS: Final = 1
"""Played deals per awarded turn-up (every position of each, every finished line settled)."""
TURNUP_SEED: Final = "validate-turnups"


def turnup_cards(semantics: PlaySemantics) -> list[Card]:
    """The turn-ups the settlement treats apart from the others: each card the table awards
    the dealer compartments for (Pope and the honours of trumps, under every ``pope_turnup``
    reading) and the card that ends the deal unplayed, if any."""
    table = semantics.table
    ends = table.ends_deal_turnup
    return [c for c in iter_mask(semantics.pack) if table.turnup_awards(c) or c == ends]


def validate_turnups(semantics: PlaySemantics) -> ValidationReport:
    """The encoding's settlement against the model's under every turn-up of
    :func:`turnup_cards`: a turn-up that ends the deal on a full deal of each player count
    (its stakes count the cards dealt), each other one on :data:`TURNUP_DEALS` small played
    deals, every position and every finished line of each."""
    ends = semantics.table.ends_deal_turnup
    cases: list[tuple[Deal, Iterable[Position]]] = []
    for card in turnup_cards(semantics):
        if card == ends:
            cases += [(with_turnup(deal_random(p, TURNUP_SEED, semantics.rules), card), ())
                      for p in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
            continue
        window = next(w for w in map(parse_cards, TURNUP_WINDOWS) if card not in w)
        deals = itertools.islice(window_deals(semantics, window, (2, 1, 1), card), TURNUP_DEALS)
        cases += [(deal, Position.from_deal(deal).reachable()) for deal in deals]
    return _validate(semantics, cases)


def with_turnup(deal: Deal, card: Card) -> Deal:
    """``deal`` with ``card`` turned up: moved to the dead hand (exchanged for a dead card
    other than the turn-up) if a seat holds it."""
    hands = [deal.dealt_hand(s) for s in range(deal.players)]
    dead = deal.dead
    holder = deal.holder(card)
    if holder is not None:
        spare = next(c for c in iter_mask(dead) if c != deal.turnup)
        hands[holder - 1] = hands[holder - 1] & ~(1 << card) | 1 << spare
        dead = dead & ~(1 << spare) | 1 << card
    return Deal.create(hands, dead, card, deal.rules)


def window_deals(semantics: PlaySemantics, window: Iterable[Card],
                 hand_sizes: tuple[int, ...], turnup: Card | None = None) -> Iterator[Deal]:
    """Every deal in which the seats hold ``hand_sizes`` cards of ``window`` (the rest of the
    window is dead, as is every card outside it; the turn-up is ``turnup``, by default the
    lowest card outside the window that does not end the deal, so that every deal is
    played)."""
    cards = [c for c in window if semantics.pack >> c & 1 and c != turnup]
    ends = semantics.table.ends_deal_turnup
    if turnup is None:
        turnup = next(c for c in iter_mask(semantics.pack) if c not in cards and c != ends)
    for hands in _assignments(cards, hand_sizes):
        held = 0
        for hand in hands:
            held |= hand
        yield Deal.create(hands, semantics.pack & ~held, turnup, semantics.rules)


def _assignments(cards: list[Card], sizes: tuple[int, ...]) -> Iterator[tuple[Mask, ...]]:
    """Every way to give ``sizes[s]`` of ``cards`` to each seat ``s``."""
    if not sizes:
        yield ()
        return
    for hand in itertools.combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in hand]
        for others in _assignments(rest, sizes[1:]):
            yield (sum(1 << c for c in hand), *others)


# The symbolic check: the encoding's step against the run unrolled over time.

class _UnrolledRun:
    """Game.forced_run as a z3 term, step by step: ``at[i][c]`` says the run's ``i``-th card
    is ``c``; after each card the run stops if its player has none left, if its successor
    (``table.successor``) is missing, out of the pack, dead or played, and goes on to the
    successor otherwise."""

    def __init__(self, position: SymbolicPosition, lead: dict[Card, z3.BoolRef]) -> None:
        deal = position.deal
        successor = deal.table.successor
        self.players = deal.players
        cards = deal.cards
        at: list[dict[Card, z3.BoolRef]] = [dict(lead)]
        so_far = dict(lead)
        self.out_at: list[list[z3.BoolRef]] = []
        longest = max(len(deal.chains.above[c]) for c in cards) + 1
        for _ in range(longest):
            current = at[-1]
            # The player of the current card (one seat, if any card is current) is out when
            # every card dealt to it is played already or earlier in this run.
            out = [any_of([z3.And(current[c], deal.hold[c, s]) for c in cards if c in current])
                   for s in range(deal.players)]
            out = [z3.And(o, all_of([z3.Implies(deal.hold[d, s],
                                              any_of([position.played[d], so_far[d]]))
                                   for d in cards]))
                   for s, o in enumerate(out)]
            self.out_at.append(out)
            going_on = z3.Not(any_of(out))
            following: dict[Card, z3.BoolRef] = dict.fromkeys(cards, FALSE)
            for c in cards:
                above = successor[c]
                if above >= 0 and above in following:
                    following[above] = z3.And(current[c], going_on, deal.in_play(above),
                                              z3.Not(position.played[above]))
            at.append(following)
            so_far = {c: any_of([so_far[c], following[c]]) for c in cards}
        self.at = at
        self.ran = so_far
        self.overrun = any_of(list(at[-1].values()))
        """A card still current after the longest chain: the unrolling was too short."""

    def stop(self, card: Card) -> z3.BoolRef:
        """``card`` is the last card of the run."""
        return any_of([z3.And(self.at[i][card], z3.Not(any_of(list(self.at[i + 1].values()))))
                    for i in range(len(self.at) - 1)])

    def out(self, seat: int) -> z3.BoolRef:
        return any_of([step[seat] for step in self.out_at])


def symbolic_query(semantics: PlaySemantics, players: int) -> z3.Solver:
    """A solver that is satisfiable exactly when, for some deal of ``players`` and some
    well-formed position not over (reachable or not) and some legal lead, the encoding's step
    and the unrolled run disagree on a card of the run, the stop card, who is out or who
    leads next. With choices inside a run, the step's choices are all declined: it must then
    be the forced run (the choices themselves are checked concretely only)."""
    deal = SymbolicDeal(semantics, players, "deal")
    position = SymbolicPosition.fresh(deal, "p")
    step = SymbolicStep(position, "s")
    declined = [z3.Not(v) for v in step.spin_on.values()]
    declined += [] if z3.is_false(step.in_lieu) else [z3.Not(step.in_lieu)]
    after = step.after()
    unrolled = _UnrolledRun(position, step.lead)
    differs = [step.run[c] != unrolled.ran[c] for c in deal.cards]
    differs += [step.stop(c) != unrolled.stop(c) for c in deal.cards]
    differs += [after.out(s) != unrolled.out(s) for s in range(players)]
    differs += [z3.And(z3.Not(unrolled.out(s)), after.leader[s]
                       != any_of([z3.And(unrolled.stop(c), deal.hold[c, s]) for c in deal.cards]))
                for s in range(players)]
    differs.append(unrolled.overrun)
    solver = z3.Solver()
    solver.add(*deal.constraints(), *position.well_formed(), z3.Not(position.over()),
               *step.constraints, *declined, z3.Or(*differs))
    return solver


def validate_symbolic(semantics: PlaySemantics, players: Iterable[int]) -> float:
    """The symbolic check for each player count (every choice inside a run declined); its
    time. Raises :class:`ValidationError` with the deal of a disagreement."""
    start = time.perf_counter()
    for p in players:
        solver = symbolic_query(semantics, p)
        result = check_sat(solver)
        if result != z3.unsat:
            raise ValidationError(f"the encoding's step differs from the run unrolled from the "
                                  f"rule table ({semantics.name}, {p} players): z3 says "
                                  f"{result}")
    return time.perf_counter() - start


__all__ = ["PROVE_WINDOW", "ValidationError", "ValidationReport", "symbolic_query",
           "turnup_cards", "validate_deals", "validate_for_prove", "validate_line",
           "validate_symbolic", "validate_turnups", "window_deals", "with_turnup"]


class _ModelChoices:
    """Where the model offers a choice inside a run (``Game.run_tree``), and what the run is
    then, stated over the unrolled forced run (:class:`_UnrolledRun`) as the model's
    ``_tree``/``_after`` write them: Spin on the ``i``-th card ``c`` when its player is not
    out after it, ``c`` is not Spin, that player holds Spin, unplayed and not among the first
    ``i`` cards, the run then ``c``'s prefix and Spin; the Pope in lieu at the forced run's
    stop when nobody went out, the stop is not the top of a chain (unless ``after_top``) and
    the Pope is dealt to a player, unplayed and not in the run, the run then the forced run
    and the Pope (a reading that ``continues`` goes on: its cards are not compared)."""

    def __init__(self, position: SymbolicPosition, unrolled: _UnrolledRun,
                 point: ChoicePoint) -> None:
        deal = position.deal
        self.deal, self.position, self.unrolled, self.point = deal, position, unrolled, point
        prefix = [dict(unrolled.at[0])]
        for step in unrolled.at[1:]:
            prefix.append({c: any_of([prefix[-1][c], step[c]]) for c in deal.cards})
        self.prefix = prefix
        self._after: dict[SymbolicStep, SymbolicPosition] = {}
        self._out: dict[tuple[SymbolicStep, Card], z3.BoolRef] = {}

    def _last(self, card: Card, seat: int, earlier: dict[Card, z3.BoolRef]) -> z3.BoolRef:
        """``seat`` holds ``card`` and has no other card left beside ``earlier``'s."""
        deal = self.deal
        return z3.And(deal.hold[card, seat],
                      all_of([z3.Implies(deal.hold[d, seat],
                                         any_of([self.position.played[d], earlier[d]]))
                              for d in deal.cards if d != card]))

    def spin_offers(self, card: Card) -> list[tuple[z3.BoolRef, dict[Card, z3.BoolRef]]]:
        """For each place ``i`` the run may have ``card``: the condition that Spin is offered
        on it there, and the run's cards if it is taken."""
        deal, spin, u = self.deal, self.point.card, self.unrolled
        if card == spin:
            return []
        offers = []
        for i in range(len(u.at) - 1):
            offered = all_of([
                u.at[i][card], z3.Not(any_of(u.out_at[i])),
                any_of([z3.And(deal.hold[card, s], deal.hold[spin, s])
                        for s in range(deal.players)]),
                z3.Not(self.position.played[spin]), z3.Not(self.prefix[i][spin])])
            run = {d: any_of([self.prefix[i][d], TRUE if d == spin else FALSE])
                   for d in deal.cards}
            offers.append((offered, run))
        return offers

    def lieu_offer(self) -> tuple[z3.BoolRef, dict[Card, z3.BoolRef]]:
        """The condition that the Pope in lieu is offered, and the run's cards if taken."""
        deal, pope, u, point = self.deal, self.point.card, self.unrolled, self.point
        stops = [u.stop(c) for c in deal.cards
                 if point.after_top or deal.table.successor[c] >= 0]
        offered = all_of([any_of(stops), z3.Not(any_of([u.out(s) for s in range(deal.players)])),
                          deal.in_play(pope), z3.Not(self.position.played[pope]),
                          z3.Not(u.ran[pope])])
        run = {d: any_of([u.ran[d], TRUE if d == pope else FALSE]) for d in deal.cards}
        return offered, run

    def outcome(self, step: SymbolicStep, card: Card,
                run: dict[Card, z3.BoolRef]) -> z3.BoolRef:
        """The encoding's step has exactly ``run``'s cards, ``card`` (the choice's) its last,
        and its player out exactly when ``run`` leaves him no card."""
        deal = self.deal
        if step not in self._after:
            self._after[step] = step.after()
        after = self._after[step]
        if (step, card) not in self._out:  # with the same cards, the step's run is ``run``
            self._out[step, card] = all_of([after.out(s) == self._last(card, s, step.run)
                                            for s in range(deal.players)])
        same = [step.run[d] == run[d] for d in deal.cards]
        return all_of([*same, step.stop(card), self._out[step, card]])


def choice_queries(semantics: PlaySemantics, players: int) -> list[tuple[str, z3.Solver]]:
    """Two solvers per choice point of the table, each satisfiable exactly when, for some
    deal of ``players``, some well-formed position not over (reachable or not) and some legal
    lead, the encoding's choice and the model's (:class:`_ModelChoices`) differ: the encoding
    takes a choice the model does not offer there, or gives another run (``allows``); the
    model offers one the encoding's choice rules refuse, or that gives another run in the
    encoding (``refuses``). Empty without choice points."""
    table = semantics.table
    queries: list[tuple[str, z3.Solver]] = []
    for point in table.choice_points:
        deal = SymbolicDeal(semantics, players, "deal")
        position = SymbolicPosition.fresh(deal, "p")
        step = SymbolicStep(position, "s")
        model = _ModelChoices(position, _UnrolledRun(position, step.lead), point)
        frame = [*deal.constraints(), *position.well_formed(), z3.Not(position.over())]
        rules = step.choice_rules
        defining = _definitions(step)
        if point.kind is ChoiceKind.SPIN:
            taken = [(c, var, model.spin_offers(c)) for c, var in step.spin_on.items()]
            agree = any_of([z3.And(var, offered, model.outcome(step, point.card, run))
                            for _c, var, offers in taken for offered, run in offers])
            allows = [z3.Or([var for _c, var, _o in taken]), z3.Not(agree)]
            picks = {c: z3.Bool(f"pick[{card_name(c)}]") for c, _v, _o in taken}
            refuses = [exactly(list(picks.values()), 1),
                       *[var == picks[c] for c, var, _o in taken],
                       any_of([z3.And(picks[c], offered)
                               for c, _v, offers in taken for offered, _r in offers]),
                       z3.Not(z3.And(all_of(rules), agree))]
        else:
            offered, run = model.lieu_offer()
            same = TRUE if point.continues else model.outcome(step, point.card, run)
            agree = z3.And(step.in_lieu, offered, same)
            allows = [step.in_lieu, z3.Not(agree)]
            refuses = [step.in_lieu, offered, z3.Not(z3.And(all_of(rules), same))]
        for what, extra, base in (("allows", allows, step.constraints),
                                  ("refuses", refuses, defining)):
            solver = z3.Solver()
            solver.add(*frame, *base, *extra, z3.Not(model.unrolled.overrun))
            queries.append((f"{point.kind.name.lower()}-{what}", solver))
    return queries


def _definitions(step: SymbolicStep) -> list[z3.BoolRef]:
    """The step's constraints but its choice rules, checked to be the lead's (one lead, a
    legal one) and definitions ``var == term``, each of its own variable and none of a
    choice: so they have a solution whatever the choices, and a choice the model offers is
    refused only by a choice rule (what the ``refuses`` query asks)."""
    rules, lead = step.choice_rules, set(step.lead.values())
    choices = {*step.spin_on.values(), step.in_lieu}
    defined: set[z3.BoolRef] = set()
    result = []
    for term in step.constraints:
        if any(term.eq(r) for r in rules):
            continue
        result.append(term)
        if z3.is_eq(term) and z3.is_const(term.arg(0)) and term.arg(0) not in choices:
            if term.arg(0) in defined or term.arg(0) in lead:
                raise ValidationError(f"the step defines {term.arg(0)} twice")
            defined.add(term.arg(0))
        elif not (z3.is_implies(term) and term.arg(0) in lead) and not _one_lead(term, lead):
            raise ValidationError(f"a constraint of the step is neither a definition, the "
                                  f"lead's nor a choice rule: {str(term)[:200]}")
    return result


def _one_lead(term: z3.BoolRef, lead: set[z3.BoolRef]) -> bool:
    """``term`` is the one-lead constraint (a pseudo-Boolean over the lead's variables)."""
    return (term.num_args() == len(lead) and not z3.is_eq(term)
            and all(term.arg(i) in lead for i in range(term.num_args())))


def validate_choices(semantics: PlaySemantics, players: Iterable[int]) -> float:
    """The symbolic check of the choices inside a run (:func:`choice_queries`) for each
    player count; its time. Raises :class:`ValidationError` with the deal of a
    disagreement."""
    start = time.perf_counter()
    for p in players:
        for name, solver in choice_queries(semantics, p):
            result = check_sat(solver)
            if result == z3.unsat:
                continue
            found = ""
            if result == z3.sat:
                found = f": {_decoded_text(solver.model(), semantics, p)}"
            raise ValidationError(f"the encoding's choices differ from the model's "
                                  f"({name}, {semantics.name}, {p} players): z3 says "
                                  f"{result}{found}")
    return time.perf_counter() - start


def _decoded_text(model: z3.ModelRef, semantics: PlaySemantics, players: int) -> str:
    """The deal and position of a disagreement, read from ``model`` by the variables'
    names."""
    deal = SymbolicDeal(semantics, players, "deal")
    decoded = deal.decode(model)
    played = [c for c in deal.cards
              if z3.is_true(model.eval(z3.Bool(f"p.played[{card_name(c)}]"),
                                       model_completion=True))]
    lead = [c for c in deal.cards
            if z3.is_true(model.eval(z3.Bool(f"s.lead[{card_name(c)}]"), model_completion=True))]
    leader = " ".join(str(s + 1) for s in range(players)
                      if z3.is_true(model.eval(z3.Bool(f"p.to_lead[{s + 1}]"),
                                               model_completion=True)))
    return (f"hands {' / '.join(format_cards(h) for h in decoded.hands)}, dead "
            f"{format_cards(decoded.dead)}, turn-up {card_name(decoded.turnup)}, played "
            f"{' '.join(card_name(c) for c in played) or '-'}, seat {leader} leads "
            f"{' '.join(card_name(c) for c in lead)}")
