"""The theorem catalogue: claims about the rules, each checked for every deal and every line.

Each theorem has a plain statement, the source it checks (file and quoted phrase) where it
checks a published claim, and a check over a :class:`Workspace`. Names are a contract
(``popejoan prove --theorem NAME``).
"""

from __future__ import annotations

import ctypes
import functools
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import z3

from ..model.board import Compartment
from ..model.cards import POPE, Card, Mask, Rank, card_name, card_rank, iter_mask, make_card
from ..model.deal import Deal
from ..model.errors import RulesError, clip
from ..model.notation import deal_from_json, deal_to_line
from ..model.play import Position, Run
from ..model.rules import EARLY, HOYLE, MODERN, PARLETT, Ruleset, Source
from ..model.settlement import DealSettlement, settle
from ..model.sources import PEEL
from ..model.table import ChoiceKind, compile_rules
from .encoding import DecodedDeal, SymbolicDeal, SymbolicPosition, SymbolicStep, all_of, any_of
from .prover import (
    Counterexample,
    FinalCondition,
    Found,
    Outcome,
    Status,
    StepCondition,
    TheoremResult,
    Workspace,
    safe_interrupts,
)
from .semantics import PlaySemantics
from .settlement_encoding import SymbolicSettlement
from .vacuity import Frame, Guard, Premise, in_run

CardTest = Callable[[SymbolicDeal, Card], z3.BoolRef]
"""Whether a card belongs to a set that depends on the deal (e.g. "just below a dead card")."""
ConcreteCardTest = Callable[[Deal | None, Card, int, int], bool]
"""The same set on a concrete deal: ``(deal, card, dead mask, turn-up)``."""


@dataclass(frozen=True)
class Theorem:
    name: str
    statement: str
    source: Source | None
    check: Callable[[Workspace], Outcome]
    not_for: Callable[[Ruleset], str | None] = lambda _rules: None
    """Why the theorem says nothing under a ruleset (it is left out of the catalogue), or
    None."""


def _eight_pools(rules: Ruleset) -> str | None:
    """The claim counts the eight pools of the board."""
    if len(compile_rules(rules).compartments) != 8:
        return "it counts the eight pools, and this ruleset's board has " \
            f"{len(compile_rules(rules).compartments)} (option pools)"
    return None


def _no_pope(rules: Ruleset) -> str | None:
    """The claim is about the Pope, which a board without a Pope compartment does not have."""
    if Compartment.POPE not in compile_rules(rules).compartments:
        return "it is about the Pope, and this ruleset has none (its 9♦ is a plain card)"
    return None


def _no_trumps(rules: Ruleset) -> str | None:
    """The claim is about trumps, which a ruleset without a turn-up does not have."""
    if not compile_rules(rules).turns_up:
        return "it is about trumps, and this ruleset turns up no card (it has no trumps)"
    return None


def _has_deuces(rules: Ruleset) -> str | None:
    """The claim is Spinado's, whose pack has no deuces (so nothing lies above an ace)."""
    if any(rules.table.pack >> make_card(suit, Rank.TWO) & 1 for suit in range(4)):
        return "it is about a pack without deuces (Spinado's), and this pack has them"
    return None


def _no_pope_in_lieu(rules: Ruleset) -> str | None:
    """The claim is about the Pope played in lieu of a stop (option ``pope_in_lieu``)."""
    if compile_rules(rules).choice(ChoiceKind.IN_LIEU) is None:
        return "it is about the Pope played in lieu of a stop (option pope_in_lieu)"
    return None


def _no_pope_or_trumps(rules: Ruleset) -> str | None:
    return _no_pope(rules) or _no_trumps(rules)


# Families of one-step theorems.

def _refute_by_line(ws: Workspace, bad: Callable[[SymbolicDeal, SymbolicPosition, SymbolicStep],
                                                   z3.BoolRef],
                    concrete: Callable[[Deal, list[Run]], bool], what: str) -> Outcome:
    found = ws.search_line(bad)
    if found is None:
        return Outcome(Status.UNKNOWN,
                       f"{ws.one_step_method()}: the one-step check fails, but no line from the "
                       f"outset within {ws.max_depth} leads reaches such a position")
    example = ws.replay(found, concrete)
    return Outcome(Status.REFUTED,
                   f"z3: bounded search from the outset found a line of {len(found.leads)} "
                   f"lead(s), {found.players} players, replayed through the rules model",
                   example, (f"{what} on the last lead of the line",))


def _one_step(ws: Workspace, bad: Callable[[SymbolicDeal, SymbolicPosition, SymbolicStep],
                                            z3.BoolRef],
              concrete: Callable[[Deal, list[Run]], bool], what: str) -> Outcome:
    if all(ws.check_step(p, bad) == z3.unsat for p in ws.players):
        return Outcome(Status.PROVED, ws.one_step_method())
    return _refute_by_line(ws, bad, concrete, what)


def always_stops(cards: CardTest, concrete: ConcreteCardTest) -> Callable[[Workspace], Outcome]:
    """Every card in the set ends the run it is played in."""
    def check(ws: Workspace) -> Outcome:
        def bad(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
            return any_of([z3.And(cards(deal, c), step.goes_on[c]) for c in deal.cards])

        def seen(deal: Deal, runs: list[Run]) -> bool:
            return any(concrete(deal, c, deal.dead, deal.turnup) for c in runs[-1].cards[:-1])
        return _one_step(ws, bad, seen, "the run went on past such a card")
    return check


def never_led_to(cards: CardTest, concrete: ConcreteCardTest) -> Callable[[Workspace], Outcome]:
    """No card in the set is ever played except as a lead."""
    def check(ws: Workspace) -> Outcome:
        def bad(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
            return any_of([z3.And(cards(deal, c), step.run[c], z3.Not(step.lead[c]))
                        for c in deal.cards])

        def seen(deal: Deal, runs: list[Run]) -> bool:
            return any(concrete(deal, c, deal.dead, deal.turnup) for c in runs[-1].cards[1:])
        return _one_step(ws, bad, seen, "such a card was led to")
    return check


def check_pope_player_leads(ws: Workspace) -> Outcome:
    """Whenever the Pope is played other than as a lead, its player leads next (or is out)."""
    def bad(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
        after = step.after()
        return z3.And(step.run[POPE], z3.Not(step.lead[POPE]), z3.Not(after.over()),
                      any_of([z3.And(after.leader[s], z3.Not(deal.hold[POPE, s]))
                           for s in range(deal.players)]))

    def seen(deal: Deal, runs: list[Run]) -> bool:
        run = runs[-1]
        return (POPE in run.cards[1:] and run.winner is None
                and run.next_leader != deal.holder(POPE))
    return _one_step(ws, bad, seen, "the Pope was played in a run and another player leads")


def _const(test: Callable[[Card], bool]) -> tuple[CardTest, ConcreteCardTest]:
    return ((lambda _d, c: z3.BoolVal(test(c))), (lambda _d, c, _m, _t: test(c)))


KING_TEST = _const(lambda c: card_rank(c) == Rank.KING)
SEVEN_TEST = _const(lambda c: c == make_card(1, Rank.SEVEN))
POPE_TEST = _const(lambda c: c == POPE)
ACE_TEST = _const(lambda c: card_rank(c) == Rank.ACE)


def _below_dead() -> tuple[CardTest, ConcreteCardTest]:
    def symbolic(deal: SymbolicDeal, c: Card) -> z3.BoolRef:
        above = deal.table.successor[c]
        return deal.is_dead(above) if above >= 0 else z3.BoolVal(False)

    def concrete(deal: Deal | None, c: Card, dead: int, _t: int) -> bool:
        assert deal is not None
        above = compile_rules(deal.rules).successor[c]
        return above >= 0 and bool(dead >> above & 1)
    return symbolic, concrete


def _deal_played(deal: SymbolicDeal) -> z3.BoolRef:
    """The turn-up does not end the deal unplayed (the table's ``ends_deal_turnup``)."""
    ends = deal.table.ends_deal_turnup
    return z3.Not(deal.turnup[ends]) if ends in deal.turnup else z3.BoolVal(True)


def outset_turnups(rules: Ruleset, cards: Iterable[Card], target: Card) -> set[Card]:
    """The turn-ups of a played deal under which ``target`` is not on Hoyle's list."""
    table = compile_rules(rules)
    ends = table.ends_deal_turnup
    return {t for t in cards if t not in (target, ends) and table.successor[t] != target}


def _listed_unreachable(deal: SymbolicDeal, c: Card) -> z3.BoolRef:
    """Hoyle's list: the four aces, Pope, and the card next above the turn-up; no card when the
    turn-up ends the deal (the claim is about deals that are played)."""
    below = deal.table.predecessor[c]
    fixed = card_rank(c) == Rank.ACE or c == POPE
    above_turnup = deal.turnup[below] if below in deal.turnup else z3.BoolVal(False)
    return z3.And(_deal_played(deal), z3.BoolVal(True) if fixed else above_turnup)


def _listed_concrete(deal: Deal | None, c: Card, _dead: int, turnup: int) -> bool:
    assert deal is not None
    table = compile_rules(deal.rules)
    return turnup != table.ends_deal_turnup and (
        card_rank(c) == Rank.ACE or c == POPE or table.successor[turnup] == c)


# The special theorems.

def check_played_on_top(ws: Workspace) -> Outcome:
    """Fact 1 itself, by induction."""
    if all(ws.invariant_holds(p) for p in ws.players):
        return Outcome(Status.PROVED,
                       f"z3 induction: true at the outset and kept by every lead (two separate "
                       f"solver calls per player count), {ws.players_text()}")

    def bad(_d: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
        after = step.after()
        return z3.And(z3.Not(after.over()), z3.Not(after.stretch_invariant()))

    def seen(deal: Deal, runs: list[Run]) -> bool:
        played = _played(runs)
        successor = deal.rules.table.successor
        return runs[-1].winner is None and any(
            successor[c] >= 0 and deal.in_play >> successor[c] & 1
            and not played >> successor[c] & 1 for c in iter_mask(played))
    return _refute_by_line(ws, bad, seen, "a played card lies below an unplayed one")


def _deadlock_free(ws: Workspace, players: int) -> bool:
    """Every position not over has a legal lead: checked with the lead left free, in every
    well-formed position not over (as the shared step frame is)."""
    frame = ws.step_frame(players)
    solver = z3.Solver()
    solver.add(*frame.deal.constraints(), *frame.position.well_formed(),
               z3.Not(frame.position.over()),
               all_of([z3.Not(frame.step.legal(c)) for c in frame.deal.cards]))
    return bool(ws.check(solver, players, "a-legal-lead-exists") == z3.unsat)


def _two_out_failures(ws: Workspace, players: int) -> list[str]:
    """No run puts two players out, as two smaller questions than "two players out after the
    run" (that one took z3 a minute at 8 players under ``pope_in_lieu=run-continues``): at
    most one card of a run empties its player's hand, and a seat out after the run (nobody
    was before) was emptied by one of its cards in it. Two seats out would need two such
    cards, since a card has one holder. What fails, in words (empty when both hold)."""
    def two_empty(_d: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
        return z3.AtLeast(*[step.empties[c] for c in step.deal.cards], 2)

    def out_unemptied(seat: int) -> StepCondition:
        def bad(_d: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
            emptied = any_of([z3.And(step.empties[c], step.deal.hold[c, seat])
                              for c in step.deal.cards])
            return z3.And(step.after().out(seat), z3.Not(emptied))
        return bad

    failures = []
    if ws.check_step(players, two_empty, "no-run-empties-two-hands") != z3.unsat:
        failures.append("a run empties two hands")
    for seat in range(players):
        query = f"seat-{seat + 1}-out-only-by-its-card-in-the-run"
        if ws.check_step(players, out_unemptied(seat), query) != z3.unsat:
            failures.append(f"seat {seat + 1} out after a run in which no card of its emptied "
                            f"its hand")
    return failures


def check_terminates(ws: Workspace) -> Outcome:
    failures = []
    bound = 0
    for p in ws.players:
        bound = max(bound, p * ws.semantics.cards_per_player(p))
        deal = SymbolicDeal(ws.semantics, p)
        start = z3.Solver()
        start.add(*deal.constraints(), SymbolicPosition.outset(deal).over())
        if ws.check(start, p, "nobody-out-at-outset") != z3.unsat:
            failures.append(f"{p} players: a player is out before play")

        def stale(_d: SymbolicDeal, pos: SymbolicPosition, step: SymbolicStep) -> z3.BoolRef:
            return z3.Not(any_of([z3.And(step.run[c], z3.Not(pos.played[c]))
                               for c in step.deal.cards]))

        if not _deadlock_free(ws, p):
            failures.append(f"{p} players: a position not over with no legal lead")
        if ws.check_step(p, stale, "every-lead-plays-a-new-card") != z3.unsat:
            failures.append(f"{p} players: a lead that plays no new card")
        failures += [f"{p} players: {name}" for name in _two_out_failures(ws, p)]
    if failures:
        # A one-step failure is not a refutation until a line from the outset shows it.
        return Outcome(Status.UNKNOWN, "z3: one-step check fails: " + "; ".join(failures))
    return Outcome(
        Status.PROVED,
        f"{ws.one_step_method()}: nobody is out at the outset; every position not over has a "
        f"legal lead; every lead plays a new card (the count of unplayed cards is a ranking "
        f"function, at most {bound} here, so at most {bound} <= 51 leads); no run puts two "
        f"players out (at most one card of a run empties its player's hand, and a seat is out "
        f"after a run only if one of its cards in it did). Hence every line ends, within 51 "
        f"leads, with exactly one player out",
    )


def _conservation_parts() -> list[tuple[str, FinalCondition]]:
    """The books of a settlement, part by part; together they are the whole balance.

    Seats' total = dressing + turn-up award + compartments taken + card payments, and the
    board's change = dressing + (what the turn-up took) + (what play took), so the whole
    balances when each part does; each part is a much smaller problem for the solver.
    """
    def dressing(deal: SymbolicDeal, _f: SymbolicPosition, st: SymbolicSettlement) -> z3.BoolRef:
        layout = sum(st.layout[c] for c in Compartment)
        return z3.Sum(*st.dressing_net) + layout != 0

    def turnup(deal: SymbolicDeal, _f: SymbolicPosition, st: SymbolicSettlement) -> z3.BoolRef:
        taken = z3.Sum(*[st.carried[c] + st.layout[c] - st.after_turnup[c] for c in Compartment])
        return z3.Sum(*st.turnup_net) != taken

    def cards(deal: SymbolicDeal, _f: SymbolicPosition, st: SymbolicSettlement) -> z3.BoolRef:
        return z3.Sum(*st.card_net) != 0

    def compartment(comp: Compartment) -> FinalCondition:
        def bad(deal: SymbolicDeal, _f: SymbolicPosition, st: SymbolicSettlement) -> z3.BoolRef:
            taken = z3.Sum(*[st.takes[s, comp] for s in range(deal.players)])
            return z3.Or(taken != st.after_turnup[comp] - st.board_after[comp],
                         st.board_after[comp] < 0)
        return bad
    return [("dressing", dressing), ("turn-up award", turnup), ("card payments", cards)] + [
        (f"compartment {c.value}", compartment(c)) for c in Compartment]


def check_counters_conserved(ws: Workspace) -> Outcome:
    for part, bad in _conservation_parts():
        query = "books-of-" + part.replace(" ", "-")
        if any(ws.check_final(p, bad, abstract_counts=True, query=query) != z3.unsat
               for p in ws.players):
            refute = _settlement_theorem(bad, _conserved_concrete,
                                         f"the books of the {part} do not balance")
            return refute(ws)
    return Outcome(Status.PROVED,
                   f"z3: the books balance part by part (dressing, turn-up award, card payments, "
                   f"each compartment; no compartment below zero) on the settlement of every "
                   f"finished play (any cards played, one player out, any number of cards left, "
                   f"any carried-over board), {ws.players_text()}")


def _settlement_theorem(bad: Callable[[SymbolicDeal, SymbolicPosition, SymbolicSettlement],
                                      z3.BoolRef],
                        concrete: Callable[[Deal, list[Run]], bool], what: str,
                        abstract_counts: bool = False) -> Callable[[Workspace], Outcome]:
    def check(ws: Workspace) -> Outcome:
        if all(ws.check_final(p, bad, abstract_counts) == z3.unsat for p in ws.players):
            counts = " and any number of cards left in each hand" if abstract_counts else ""
            return Outcome(Status.PROVED,
                           f"z3: checked on the settlement of every finished play (any cards "
                           f"played, one player out; any carried-over board{counts}), "
                           f"{ws.players_text()}")
        found = ws.search_settled_line(bad)
        if found is None:
            return Outcome(Status.UNKNOWN, "z3: a finished play breaks it, but no line of at "
                           f"most {ws.max_depth} leads from the outset reaches one")
        example = ws.replay(found, concrete)
        return Outcome(Status.REFUTED,
                       f"z3: bounded search from the outset found a deal played out in "
                       f"{len(found.leads)} lead(s), {found.players} players, replayed and "
                       f"settled through the rules model", example, (what,))
    return check


def _played(runs: list[Run]) -> Mask:
    """Every card played along ``runs``."""
    played = 0
    for run in runs:
        played |= run.mask
    return played


def _settled(deal: Deal, runs: list[Run]) -> DealSettlement:
    """The settlement of a deal played out along ``runs``."""
    winner = runs[-1].winner
    return settle(deal, _played(runs), winner)


def _pools_taken(result: DealSettlement, seat: int) -> int:
    """How many compartments paid ``seat`` during play."""
    return len({t.payer for t in result.play
                if isinstance(t.payer, Compartment) and t.payee == seat})


def _conserved_concrete(deal: Deal, runs: list[Run]) -> bool:
    result = _settled(deal, runs)
    total = sum(result.net(s, include_dressing=True) for s in range(1, deal.players + 1))
    change = sum(result.board_after[c] - result.board_before[c] for c in Compartment)
    return total + change != 0


def _matrimony_bad(deal: SymbolicDeal, _f: SymbolicPosition,
                   settlement: SymbolicSettlement) -> z3.BoolRef:
    paid = any_of([settlement.collects(s, Compartment.MATRIMONY) for s in range(deal.players)])
    together = []
    for suit in range(4):
        king, queen = make_card(suit, Rank.KING), make_card(suit, Rank.QUEEN)
        together.append(z3.And(deal.trumps(suit), any_of([z3.And(deal.holds(king, s),
                                                                deal.holds(queen, s))
                                                        for s in range(deal.players)])))
    return z3.And(paid, z3.Not(any_of(together)))


def _matrimony_concrete(deal: Deal, runs: list[Run]) -> bool:
    result = _settled(deal, runs)
    king = deal.holder(make_card(deal.trumps, Rank.KING))
    queen = deal.holder(make_card(deal.trumps, Rank.QUEEN))
    paid = any(t.payer == Compartment.MATRIMONY for t in result.play)
    return paid and not (king == queen is not None)


def _trump_quartet(deal: SymbolicDeal, final: SymbolicPosition, seat: int) -> z3.BoolRef:
    """``seat`` was dealt and played the J, Q, K and A of trumps."""
    options = []
    for suit in range(4):
        cards = [make_card(suit, r) for r in (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)]
        options.append(z3.And(deal.trumps(suit),
                              *[z3.And(deal.holds(c, seat), final.played[c]) for c in cards]))
    return any_of(options)


def check_six_pools(ws: Workspace) -> Outcome:
    def bad(deal: SymbolicDeal, final: SymbolicPosition,
            settlement: SymbolicSettlement) -> z3.BoolRef:
        return any_of([z3.And(_trump_quartet(deal, final, s), settlement.deal_played,
                           settlement.pools_collected(s) < 6) for s in range(deal.players)])

    def seen(deal: Deal, runs: list[Run]) -> bool:
        result = _settled(deal, runs)
        trump_cards = [make_card(deal.trumps, r)
                       for r in (Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE)]
        seat = deal.holder(trump_cards[0])
        played = _played(runs)
        if seat is None or any(deal.holder(c) != seat or not played >> c & 1 for c in trump_cards):
            return False
        return _pools_taken(result, seat) < 6
    outcome = _settlement_theorem(bad, seen, "the player of J-Q-K-A collected fewer than six")(ws)
    if outcome.status is not Status.PROVED:
        return outcome
    details = list(outcome.details)
    for most in (8, 7, 6):
        def reaches(deal: SymbolicDeal, _f: SymbolicPosition, settlement: SymbolicSettlement,
                    most: int = most) -> z3.BoolRef:
            return any_of([settlement.pools_collected(s) >= most for s in range(deal.players)])
        found = ws.search_settled_line(reaches, max_depth=2)
        if found is not None:
            def shows(deal: Deal, runs: list[Run], most: int = most) -> bool:
                return _most_pools(deal, runs) >= most
            example = ws.replay(found, shows, role=f"example: one player collects {most} pools")
            details.append(f"the most pools one player can collect in one deal: {most} of 8"
                           + (" (proved: there are eight)" if most == 8 else "")
                           + f"; e.g. {_example_text(found, example)}")
            break
    return Outcome(outcome.status, outcome.method + "; the maximum by bounded search for a "
                   "deal played out within 2 leads", None, tuple(details))


def _most_pools(deal: Deal, runs: list[Run]) -> int:
    """The most pools one seat collected along ``runs`` (seats from 1, as transfers name
    them)."""
    result = _settled(deal, runs)
    return max(_pools_taken(result, s) for s in range(1, deal.players + 1))


def _example_text(found: Found, example: Counterexample) -> str:
    leads = " ".join(card_name(c) for c in found.leads)
    return f"{deal_to_line(deal_from_json(example.deal))} with leads {leads}"


def _led_to_first(ws: Workspace, players: int, target: Card, batch: list[Card]) -> Found | None:
    """A played deal z3 finds whose first lead leads to ``target``, with as much of ``batch``
    dead as can be (halving it until z3 finds one)."""
    found = None
    while batch and found is None:
        def led_to(deal: SymbolicDeal, _p: SymbolicPosition, step: SymbolicStep,
                   batch: list[Card] = batch) -> z3.BoolRef:
            return z3.And(step.run[target], z3.Not(step.lead[target]), _deal_played(deal),
                          *[deal.dead[t] for t in batch])
        found = ws.search_line(led_to, players=(players,), max_depth=1)
        if found is None:
            batch = batch[: len(batch) // 2] if len(batch) > 1 else []
    return found


def _moved(ws: Workspace, found: Found, target: Card, batch: list[Card]) -> Found | None:
    """``found``'s deal with the cards of ``batch`` moved into its dead hand, each in exchange
    for a dead card not in ``batch`` (one of ``batch`` turned up), if the rules model still
    has the same first lead lead to ``target``: a witness for those turn-ups without a search.
    None when it does not (or the model cannot play the semantics: a mutant's)."""
    lead, deal = found.leads[0], found.deal
    if not ws.semantics.is_standard or lead in batch:
        return None
    hands, dead = list(deal.hands), deal.dead
    spare = [c for c in iter_mask(dead) if c not in batch]
    for card in batch:
        if dead >> card & 1:
            continue
        if not spare:
            return None
        seat = next(s for s, hand in enumerate(hands) if hand >> card & 1)
        given = spare.pop()
        hands[seat] = hands[seat] & ~(1 << card) | 1 << given
        dead = dead & ~(1 << given) | 1 << card
    moved = DecodedDeal(tuple(hands), dead, min(batch))
    position = Position.from_deal(Deal.create(moved.hands, moved.dead, moved.turnup,
                                              ws.semantics.rules))
    if lead not in position.legal_leads():
        return None
    for run in position.outcomes(lead):
        if target in run.cards[1:]:
            return Found(found.players, moved, (lead,), runs=(run.mask,))
    return None


def _witness(ws: Workspace, players: int, target: Card, batch: list[Card],
             known: list[Found]) -> tuple[Found, Mask, bool] | None:
    """A played deal whose first lead leads to ``target`` with as much of ``batch`` dead as
    can be, replayed through the rules model; every card its first lead leads to; and whether
    z3 found it. It is one of the ``known`` deals whose first lead leads to ``target`` with
    ``batch`` moved into its dead hand (tried on the latest few), else one z3 finds
    (:func:`_led_to_first`)."""
    tried = 0
    for found in reversed(known):
        if tried == 3:
            break
        if not found.runs[0] >> target & 1:
            continue
        tried += 1
        moved = _moved(ws, found, target, batch)
        if moved is not None:
            return moved, _replayed(ws, moved, target), False
    searched = _led_to_first(ws, players, target, batch)
    return None if searched is None else (searched, _replayed(ws, searched, target), True)


def _replayed(ws: Workspace, found: Found, target: Card) -> Mask:
    """Replay ``found`` through the rules model (a :class:`ProofError` if its first lead
    does not lead to ``target``, in a played deal, as the encoding or the move said); the
    cards that lead leads to."""
    led = found.runs[0] & ~(1 << found.leads[0])
    ends = compile_rules(ws.semantics.rules).ends_deal_turnup
    ws.replay(found, lambda deal, runs: (deal.turnup != ends and target in runs[0].cards[1:]
                                         and runs[0].mask & ~(1 << runs[0].lead) == led),
              role=f"witness: {card_name(target)} is led to on the first lead")
    return led


def _cover(ws: Workspace, players: int) -> tuple[int, int, list[str]]:
    """Played deals whose first lead leads to each card but the aces and Pope, for every
    turn-up under which it is not on Hoyle's list: how many, how many of them z3 found, and
    the cards and turn-ups none was found for.

    A deal covers, for every card its first lead leads to, every turn-up in its dead hand:
    play does not depend on which dead card was turned up (the one that ends the deal is
    never among the turn-ups wanted). So a deal found for one card covers the others of its
    run too, and the search for a card asks only for its turn-ups still uncovered."""
    cards = ws.step_frame(players).deal.cards
    targets = [t for t in cards if card_rank(t) != Rank.ACE and t != POPE]
    wanted = {t: outset_turnups(ws.semantics.rules, cards, t) for t in targets}
    size = ws.semantics.dead_size(players)
    known: list[Found] = []
    searched, missing = 0, []
    for target in targets:
        while wanted[target]:
            # A deal whose dead hand holds a batch of the turn-ups still uncovered covers
            # them all.
            witness = _witness(ws, players, target, sorted(wanted[target])[:size], known)
            if witness is None:
                missing.append(f"{card_name(target)} ({players} players, turn-up "
                               f"{card_name(min(wanted[target]))})")
                break
            found, led, by_z3 = witness
            searched += by_z3
            known.append(found)
            for card in iter_mask(led):
                if card in wanted:
                    wanted[card] = {t for t in wanted[card] if not found.deal.dead >> t & 1}
    return len(known), searched, missing


def check_unreachable_at_outset(ws: Workspace) -> Outcome:
    listed = never_led_to(_listed_unreachable, _listed_concrete)(ws)
    if listed.status is not Status.PROVED:
        return listed
    # The other direction: every other card can be led to, for every turn-up of a played deal.
    missing: list[str] = []
    witnesses = searched = 0
    for p in ws.players:
        count, by_z3, uncovered = _cover(ws, p)
        witnesses += count
        searched += by_z3
        missing += uncovered
    ends = compile_rules(ws.semantics.rules).ends_deal_turnup
    played = ("" if ends is None else f" that does not end the deal ({card_name(ends)} "
              "turned up ends it unplayed, so the claim says nothing of it)")
    if missing:
        return Outcome(Status.UNKNOWN,
                       f"{listed.method}; but no first lead was found to reach "
                       + ", ".join(missing[:5]))
    return Outcome(Status.PROVED,
                   f"{listed.method} (the listed cards are never led to in a played deal); and "
                   f"every other card is led to on the first lead of some deal, for every "
                   f"turn-up{played} ({witnesses} deals, {searched} found by z3 and the "
                   f"others by moving cards of one into its dead hand, each replayed through "
                   f"the rules model and covering every turn-up in its dead hand for every card "
                   f"its first lead leads to)")


# The catalogue.

THEOREMS: Final[Mapping[str, Theorem]] = {
    t.name: t
    for t in (
        Theorem("pope-only-led",
                "The 9♦ (Pope) is never played except as a lead.",
                Source(HOYLE, "can only be played when the holder has the lead"),
                never_led_to(*POPE_TEST), _no_pope),
        Theorem("kings-are-stops",
                "Every King ends the run it is played in.",
                Source(EARLY, "The four kings, and the seven of diamonds, are always fixed stops",
                       f"also {MODERN}: \"The four Kings are stop cards\""),
                always_stops(*KING_TEST)),
        Theorem("seven-of-diamonds-stop",
                "The 7♦ always ends the run it is played in.",
                Source(MODERN, "in the diamond suit the 7 is as well, because the ♦8 has been "
                       "removed from the pack"),
                always_stops(*SEVEN_TEST)),
        Theorem("below-dead-is-stop",
                "The card just below any card of the dead hand ends the run it is played in.",
                Source(EARLY, "if the ten of spades be turned up, the nine becomes a stop"),
                always_stops(*_below_dead())),
        Theorem("unreachable-at-outset",
                "In a deal that is played (not ended unplayed by its turn-up), knowing only the "
                "turn-up, the cards known never to be led to are exactly the four aces, Pope "
                "and the card next above the turn-up.",
                Source(HOYLE, "At the outset, the only known cards which cannot be led to are "
                       "the four aces, Pope"),
                check_unreachable_at_outset, _no_pope_or_trumps),
        Theorem("terminates",
                "Every line of play ends, within 51 leads, with exactly one player out.",
                Source(MODERN, "In this way the game continues until one of the players has "
                       "played all his cards"),
                check_terminates),
        Theorem("counters-conserved",
                "No counter is created or lost by a deal's settlement (dressing, turn-up award, "
                "play), and no compartment pays out more than it holds.",
                None,
                check_counters_conserved),
        Theorem("six-of-eight-pools",
                "A player who holds and plays the J, Q, K and A of trumps collects from (at "
                "least) six of the eight pools.",
                Source(PARLETT, "play J-Q-K-A of trumps, therefore, col[l]ects from six of the "
                       "eight"),
                check_six_pools, _eight_pools),
        Theorem("matrimony-needs-one-hand",
                "Matrimony is never paid when the K and Q of trumps are in different hands or "
                "either is dead.",
                Source(HOYLE, "Should knave and queen, or queen and king of trumps fall from the "
                       "same hand"),
                _settlement_theorem(_matrimony_bad, _matrimony_concrete,
                                    "Matrimony was paid with K and Q in different hands"),
                _no_trumps),
        Theorem("aces-are-stops",
                "Every ace ends the run it is played in.",
                Source(PARLETT, "Aces are low, and are necessarily stops because there are no "
                       "Deuces", section="Spinado"),
                always_stops(*ACE_TEST), _has_deuces),
        Theorem("pope-in-lieu-player-leads",
                "Whenever the Pope is played other than as a lead (in lieu of a stop), its "
                "player leads next, unless he has gone out.",
                Source(PEEL, "The holder of Pope may play it in lieu of the ten of spades, and "
                       "then continue with his knave of that suit", section="Looking at the "
                       "Spare Hand"),
                check_pope_player_leads, _no_pope_in_lieu),
        Theorem("played-on-top",
                "In every position reached by play, the played cards of each stretch (the "
                "cards between two that can never be played) are its top part; so whichever "
                "card of a stretch is led, the run ends at the same card (solver Fact 1).",
                None,
                check_played_on_top),
    )
}


def _apart(deal: SymbolicDeal, _f: SymbolicPosition, _st: SymbolicSettlement) -> z3.BoolRef:
    """The K and Q of trumps are not in one hand (the premise of matrimony-needs-one-hand)."""
    return z3.Not(any_of([z3.And(deal.trumps(suit), any_of([
        z3.And(deal.holds(make_card(suit, Rank.KING), s),
               deal.holds(make_card(suit, Rank.QUEEN), s)) for s in range(deal.players)]))
        for suit in range(4)]))


def _quartet_played(deal: SymbolicDeal, final: SymbolicPosition,
                    _st: SymbolicSettlement) -> z3.BoolRef:
    return any_of([_trump_quartet(deal, final, s) for s in range(deal.players)])


_ONE_LEAD = (Frame.DEAL, Frame.LEAD)
PREMISES: Final[Mapping[str, Premise]] = {
    "pope-only-led": Premise(_ONE_LEAD, "Pope is played", in_run(POPE_TEST[0])),
    "kings-are-stops": Premise(_ONE_LEAD, "a King is played", in_run(KING_TEST[0])),
    "seven-of-diamonds-stop": Premise(_ONE_LEAD, "the 7♦ is played", in_run(SEVEN_TEST[0])),
    "below-dead-is-stop": Premise(_ONE_LEAD, "a card just below a dead card is played",
                                  in_run(_below_dead()[0])),
    "unreachable-at-outset": Premise(_ONE_LEAD, "a listed card is played",
                                     in_run(_listed_unreachable)),
    "terminates": Premise(_ONE_LEAD),
    "counters-conserved": Premise((Frame.DEAL, Frame.FINISHED)),
    "six-of-eight-pools": Premise((Frame.DEAL, Frame.FINISHED),
                                  "a player holds and plays the J, Q, K and A of trumps",
                                  final=_quartet_played),
    "matrimony-needs-one-hand": Premise((Frame.DEAL, Frame.FINISHED),
                                        "the K and Q of trumps are not in one hand",
                                        final=_apart),
    "aces-are-stops": Premise(_ONE_LEAD, "an ace is played", in_run(ACE_TEST[0])),
    "pope-in-lieu-player-leads": Premise(
        _ONE_LEAD, "the Pope is played other than as a lead",
        lambda _d, _p, step: z3.And(step.run[POPE], z3.Not(step.lead[POPE]))),
    "played-on-top": Premise(_ONE_LEAD, "a position satisfies the invariant",
                             lambda _d, position, _s: position.stretch_invariant()),
}
"""What each theorem quantifies over, and the premise its claim is conditioned on: both are
checked satisfiable, for every player count, before it is reported proved."""


def _vetted(guard: Guard, name: str, outcome: Outcome) -> Outcome:
    """``outcome``, unless it is a proof whose premise has no model for some player count
    (then vacuous); a frame with no model raises :class:`ProofError`."""
    if outcome.status is not Status.PROVED:
        return outcome
    premise = PREMISES[name]
    failed = guard.premise_fails(premise)
    if failed:
        counts = ", ".join(str(p) for p in failed)
        return Outcome(Status.VACUOUS, f"{outcome.method}; but its premise ({premise.what}) "
                       f"is impossible for {counts} players, so the proof says nothing",
                       None, outcome.details)
    frames = ", ".join(f.value for f in premise.frames)
    checked = f"premise ({premise.what}) and " if premise.what else ""
    validated = guard.translation()
    shapes = guard.shapes()
    return Outcome(outcome.status, outcome.method, outcome.counterexample, (
        *outcome.details, f"not vacuous: {checked}frames ({frames}) each have a model, "
        f"{guard.ws.players_text()}", *([shapes] if shapes else []),
        *([f"the encoding equals the model on every small deal of a window (before this "
           f"run's first proof): {validated}"] if validated else [])))


_FRAMES: Final = ("frames", 3)
"""The shared work of checking every frame of the run's theorems (3-8 players) before any."""


@functools.lru_cache(maxsize=4)
def shared_workspace(semantics: PlaySemantics) -> Workspace:
    """One workspace per semantics, so that theorems proved one call at a time share encodings."""
    return Workspace(semantics)


def _checked_arguments(semantics: object, names: object, workspace: object,
                       ) -> tuple[PlaySemantics, list[str]]:
    """The semantics and the theorems' names, after refusing arguments of the wrong type: a
    ruleset's name (``get_ruleset`` reads it), one name not in a list (its letters are not
    theorems), a workspace of another semantics (it would prove another game's theorems)."""
    if isinstance(semantics, PlaySemantics):
        sem = semantics
    elif isinstance(semantics, Ruleset):
        sem = PlaySemantics.of(semantics)
    else:
        hint = (f" ({clip(f'get_ruleset({semantics!r})')} gives one)"
                if isinstance(semantics, str) else "")
        raise RulesError(f"prove takes a Ruleset or a PlaySemantics{hint}, not "
                         f"{type(semantics).__name__}")
    if names is None:
        chosen = [name for name, theorem in THEOREMS.items()
                  if theorem.not_for(sem.rules) is None]
    elif isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
        raise RulesError(f"names must be a list of theorem names (like ['kings-are-stops']), "
                         f"not {type(names).__name__}")
    else:
        chosen = list(names)
        for name in chosen:
            if not isinstance(name, str):
                raise RulesError(f"a theorem's name is a string, not {type(name).__name__}")
    if workspace is not None and (not isinstance(workspace, Workspace)
                                  or workspace.semantics != sem):
        raise RulesError("workspace must be a Workspace of the same semantics (or None)")
    return sem, chosen


def prove(semantics: PlaySemantics | Ruleset, names: Iterable[str] | None = None,
          workspace: Workspace | None = None) -> list[TheoremResult]:
    """Prove or refute the named theorems (all by default) under a ruleset or a mutant;
    ``names`` is a list of theorem names, ``workspace`` one of the same semantics."""
    sem, chosen = _checked_arguments(semantics, names, workspace)
    for name in chosen:
        if name not in THEOREMS:
            raise RulesError(f"unknown theorem {clip(name)!r} (known: {', '.join(THEOREMS)})")
        reason = THEOREMS[name].not_for(sem.rules)
        if reason is not None:
            raise RulesError(f"theorem {name} does not apply to {sem.rules.name}: {reason}")
    ws = workspace if workspace is not None else shared_workspace(sem)
    results = []
    guard = Guard(ws)
    try:
        with safe_interrupts():
            # The frames first, each with a time limit: an empty one is reported at once,
            # where the proofs in it might run for minutes before the guard saw it.
            ws.shared(_FRAMES, lambda: guard.frames_first(PREMISES[n] for n in chosen))
            for name in chosen:
                theorem = THEOREMS[name]
                ws.start_theorem(name)
                ws.rests_on(_FRAMES)
                start = time.perf_counter()
                outcome = _vetted(guard, name, theorem.check(ws))
                seconds = ws.theorem_seconds(time.perf_counter() - start)
                results.append(TheoremResult(theorem.name, theorem.statement, theorem.source,
                                             outcome.status, outcome.method,
                                             outcome.counterexample, seconds, outcome.details,
                                             ws.used_shared()))
    except BaseException as exc:
        # Interrupted (Ctrl-C) or failed mid-way, a shared workspace may hold half-built
        # encodings: the next call starts afresh rather than trust them.
        if workspace is None:
            shared_workspace.cache_clear()
        if isinstance(exc, ctypes.ArgumentError) and "KeyboardInterrupt" in str(exc):
            raise KeyboardInterrupt from None  # Ctrl-C inside z3's argument conversion
        raise
    return results


__all__ = ["THEOREMS", "Theorem", "prove"]
