"""The lead rule and the successor, through every implementation, against the rule texts.

The same positions go through the rules model (``legal_leads``, ``Game.forced_run``), the
compiled table, the Python engine's slot tables (``SlotGame.lead_generator``, fact 2's
``up[s] & ~played``), the C core (its ``lead_values`` over every legal lead, and the ``up``
table it is handed), the z3 step (``SymbolicStep``) and the SAT encoding of ``find``
(``lead_literals``, ``successor_chains``). Each is compared with the answer written here from
the texts of docs/rules.md, not with another backend's output:

* a suit climbs ace, two, ..., king with the ace low ("cards rank A 2 3 ... K"), and from the
  two to the king, then the ace, with the ace high (Parlett: "Ace is high");
* the 8♦ is out of the pack ("The eight of diamonds must first be taken from the pack"), and
  Spinado strips the four deuces too; a run stops when the next card is out of the pack, in
  the dead hand, at the top of the suit, or when a player has played his last card;
* ``any``: "leads any card he pleases"; ``lowest-of-suit``: "it may be of any suit, but must be
  the lowest he has of it"; ``lowest-in-hand``: "his lowest card" (by rank, any suit on a tie).

Positions come from random lines of every named ruleset and of the pairwise variant matrix, for
three to eight players, so that ace high and low, Kings, the 7♦, the dead hand and the stock,
and every lead option are met; the test checks that each of those corners was reached.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
import z3

from popejoan_solver.logic.encoding import SymbolicDeal, SymbolicPosition, SymbolicStep
from popejoan_solver.logic.find import DealEncoding, lead_literals, successor_chains
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.model.cards import Card, Mask, Rank, Suit, iter_mask, make_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.leads import legal_leads
from popejoan_solver.model.play import Game, Position
from popejoan_solver.model.rules import (
    RULESETS,
    AceRank,
    DeadHandRule,
    GameKind,
    LeadRule,
    Ruleset,
    variant_matrix,
)
from popejoan_solver.model.settlement import best_without_going_out
from popejoan_solver.model.table import compile_rules
from popejoan_solver.search import fast
from popejoan_solver.search.fast import FastEngine
from popejoan_solver.search.slots import SlotGame

RULES = list(dict.fromkeys([*RULESETS.values(), *variant_matrix()]))
EIGHT_OF_DIAMONDS = make_card(Suit.DIAMONDS, Rank.EIGHT)
SEVEN_OF_DIAMONDS = make_card(Suit.DIAMONDS, Rank.SEVEN)


# The rule texts, written out (no backend read).

def text_order(rules: Ruleset) -> list[int]:
    """A suit's ranks from the bottom up: A 2 ... K, or 2 ... K A with the ace high."""
    ranks = list(Rank)
    return ranks[1:] + ranks[:1] if rules.ace is AceRank.HIGH else ranks


def text_in_pack(rules: Ruleset, card: Card) -> bool:
    """The 8♦ is out; Spinado strips the deuces too."""
    deuce = card % 13 == Rank.TWO
    return card != EIGHT_OF_DIAMONDS and not (rules.game is GameKind.SPINADO and deuce)


def text_next(rules: Ruleset, card: Card) -> Card | None:
    """The card just above ``card`` in its suit (in the pack or not), None at the top."""
    order = text_order(rules)
    i = order.index(Rank(card % 13))
    return make_card(card // 13, order[i + 1]) if i + 1 < len(order) else None


def text_leads(rules: Ruleset, held: Mask) -> set[Card]:
    """The cards of ``held`` the lead rule allows."""
    height = {rank: i for i, rank in enumerate(text_order(rules))}
    cards = list(iter_mask(held))
    if rules.lead is LeadRule.ANY:
        return set(cards)
    if rules.lead is LeadRule.LOWEST_OF_SUIT:
        return {c for c in cards if all(height[Rank(c % 13)] <= height[Rank(d % 13)]
                                         for d in cards if d // 13 == c // 13)}
    low = min(height[Rank(c % 13)] for c in cards)
    return {c for c in cards if height[Rank(c % 13)] == low}


def text_climb(rules: Ruleset, deal: Deal, played: Mask, lead: Card) -> list[Card]:
    """The cards a lead forces, every choice declined, ignoring who goes out: up the suit while
    the next card is in the pack, held by a player and not played."""
    cards = [lead]
    while True:
        above = text_next(rules, cards[-1])
        if (above is None or not text_in_pack(rules, above) or deal.holder(above) is None
                or played >> above & 1):
            return cards
        cards.append(above)


def text_run(rules: Ruleset, deal: Deal, played: Mask,
             lead: Card) -> tuple[list[Card], int | None]:
    """The climb cut where a player plays his last card; and who leads next (a seat, from 1;
    None: he is out)."""
    done = played
    climb = text_climb(rules, deal, played, lead)
    for i, card in enumerate(climb):
        done |= 1 << card
        seat = deal.holder(card)
        assert seat is not None
        if not deal.dealt_hand(seat - 1) & ~done:
            return climb[:i + 1], None
    return climb, deal.holder(climb[-1])


# The positions.

@dataclass(frozen=True)
class Spot:
    deal: Deal
    played: Mask
    leader: int

    @property
    def held(self) -> Mask:
        return self.deal.dealt_hand(self.leader - 1) & ~self.played


def spots(rules: Ruleset, players: int, seed: int) -> Iterator[Spot]:
    """Every position of one random line of a random deal."""
    deal = deal_random(players, seed, rules)
    if not Position.from_deal(deal).legal_leads():
        return  # a turn-up that ends the deal
    rng = random.Random(f"{rules.name}/{players}/{seed}")
    position = Position.from_deal(deal)
    while not position.is_over:
        yield Spot(deal, position.played, position.leader)
        _, position = position.play(rng.choice(position.legal_leads()))


def all_spots() -> Iterator[tuple[Ruleset, Spot]]:
    for k, rules in enumerate(RULES):
        for players in (3 + k % 6, 8 - k % 6):
            for spot in spots(rules, players, k):
                yield rules, spot


def forced(rules: Ruleset) -> bool:
    """No choice inside a run (no Spin, no Pope in lieu): one run per lead."""
    return not compile_rules(rules).choice_points


# The tests.

def test_the_table_and_the_model_follow_the_texts() -> None:
    """The table's successor, order and pack, and the model's leads and runs."""
    corners: set[str] = set()
    for rules, spot in all_spots():
        table = compile_rules(rules)
        deal, played = spot.deal, spot.played
        for card in range(52):
            above = text_next(rules, card)
            assert table.successor[card] == (above if above is not None else -1)
            assert bool(table.pack >> card & 1) == text_in_pack(rules, card)
        assert set(legal_leads(rules, spot.held)) == text_leads(rules, spot.held)
        game = Game.from_deal(deal)
        for lead in text_leads(rules, spot.held):
            cards, next_leader = text_run(rules, deal, played, lead)
            if forced(rules):
                run = game.forced_run(played, spot.leader, lead)
                assert (list(run.cards), run.next_leader) == (cards, next_leader)
            else:
                declined = [r for r in Position(game, played, spot.leader).outcomes(lead)
                            if r.chosen is None]
                assert [list(r.cards) for r in declined] == [cards]
            corners |= _corners(rules, deal, played, cards, next_leader)
    assert corners >= {"ace-high K->A", "top: K", "top: A (ace high)", "7D stop",
                       "dead-hand stop", "out", "lead any", "lead lowest-of-suit",
                       "lead lowest-in-hand", "spinado", "stock"}


def _corners(rules: Ruleset, deal: Deal, played: Mask, cards: list[Card],
             next_leader: int | None) -> set[str]:
    """The corners of the rules a run shows."""
    found = {f"lead {rules.lead.value}"}
    found |= {"spinado"} if rules.game is GameKind.SPINADO else set()
    found |= {"stock"} if rules.dead_hand is DeadHandRule.STOCK and deal.dead else set()
    for low, high in itertools.pairwise(cards):
        if low % 13 == Rank.KING and high % 13 == Rank.ACE:
            found.add("ace-high K->A")
    if next_leader is None:
        return found | {"out"}
    top, above = cards[-1], text_next(rules, cards[-1])
    if above is None:
        found.add("top: A (ace high)" if top % 13 == Rank.ACE else "top: K")
    elif top == SEVEN_OF_DIAMONDS:
        found.add("7D stop")
    elif deal.dead >> above & 1:
        found.add("dead-hand stop")
    return found


def test_the_python_engine_follows_the_texts() -> None:
    """The slot tables: the lead generator, and fact 2's run ``up[s] & ~played``."""
    for rules, spot in all_spots():
        game = Game.from_deal(spot.deal)
        slots = SlotGame(game, spot.deal.board_or_dressed)
        leads = slots.lead_generator()(slots.to_slots(spot.played), spot.leader - 1)
        assert {slots.card_of[s] for s in leads} == text_leads(rules, spot.held)
        for lead in text_leads(rules, spot.held):
            climb = text_climb(rules, spot.deal, spot.played, lead)
            run = slots.up[slots.slot_of[lead]] & ~slots.to_slots(spot.played)
            assert run == slots.to_slots(sum(1 << c for c in climb))


@pytest.mark.skipif(fast._core is None, reason="the compiled core is not built")
def test_the_c_core_follows_the_texts() -> None:
    """The C core's leads (``lead_values`` values every legal lead) near the end of a deal,
    where its search is quick; its runs climb the ``up`` table checked above."""
    checked = set()
    for k, rules in enumerate(RULES):
        players = 3 + k % 6
        line = list(spots(rules, players, k))
        if not line:
            continue
        left = [sum((s.deal.dealt_hand(t) & ~s.played).bit_count() for t in range(players))
                for s in line]
        # the first position with 14 cards or fewer left in hand (the core's search is quick)
        spot = next((s for s, n in zip(line, left, strict=True) if n <= 14), line[-1])
        game = Game.from_deal(spot.deal)
        board = spot.deal.board_or_dressed
        engine = FastEngine(game, board, compiled=True)
        staying = best_without_going_out(game, board, spot.leader)
        found = engine.lead_values(spot.played, spot.leader, False, staying)
        assert found is not None
        assert set(found[0]) == text_leads(rules, spot.held)
        checked.add(rules.name)
    assert checked >= set(RULESETS) - {"early-hoyle"}  # its line may be a Pope turned up


def _z3_fixed(sym: SymbolicDeal, position: SymbolicPosition, spot: Spot) -> list[z3.BoolRef]:
    deal = spot.deal
    fixed = []
    for c in sym.cards:
        fixed += [sym.hold[c, s] == (deal.holder(c) == s + 1) for s in range(sym.players)]
        fixed += [sym.dead[c] == bool(deal.dead >> c & 1), sym.turnup[c] == (c == deal.turnup)]
        fixed.append(position.played[c] == bool(spot.played >> c & 1))
    fixed += [v == (s + 1 == spot.leader) for s, v in enumerate(position.leader)]
    return fixed


def test_the_z3_step_follows_the_texts() -> None:
    """The z3 step: which leads it allows, and (one run per lead) the run and the next
    leader; a few positions of each named ruleset and of the matrix's ``lowest-in-hand``."""
    chosen = list(dict.fromkeys([*RULESETS.values(),
                                 *(r for r in RULES if r.lead is LeadRule.LOWEST_IN_HAND)]))
    assert {r.lead for r in chosen} == set(LeadRule)
    assert {r.ace for r in chosen} == set(AceRank)
    for k, rules in enumerate(chosen[:len(RULESETS) + 2]):
        players = 3 + k % 6
        sym = SymbolicDeal(PlaySemantics.of(rules), players, "v")
        position = SymbolicPosition.fresh(sym, "p")
        step = SymbolicStep(position, "s")
        after = step.after()
        solver = z3.Solver()
        solver.add(*step.constraints)
        for spot in list(spots(rules, players, k))[::4]:
            fixed = _z3_fixed(sym, position, spot)
            for lead in iter_mask(spot.held):
                result = solver.check(*fixed, step.lead[lead])
                assert (result == z3.sat) == (lead in text_leads(rules, spot.held))
                if result != z3.sat or not forced(rules):
                    continue
                model = solver.model()
                cards, next_leader = text_run(rules, spot.deal, spot.played, lead)
                assert step.decode_run(model) == sum(1 << c for c in cards)
                if next_leader is not None:
                    assert after.decode_leader(model) == next_leader - 1  # z3's seats: from 0


def test_the_sat_encoding_follows_the_texts() -> None:
    """``find``'s SAT encoding: a lead's literals hold exactly when the texts allow it, and
    its chains climb each suit in the texts' order."""
    for k, rules in enumerate(RULES):
        players = 3 + k % 6
        enc = DealEncoding(rules, players)
        chains = successor_chains(compile_rules(rules).successor)
        assert sorted(chains) == sorted([make_card(suit, rank) for rank in text_order(rules)]
                                        for suit in range(4))
        for spot in spots(rules, players, k):
            for lead in iter_mask(spot.held):
                literals = lead_literals(enc, rules, lead, spot.leader - 1, spot.played)
                holds = {enc.holds(c, seat - 1) for c in range(52)
                         if (seat := spot.deal.holder(c)) is not None}
                allowed = all(-lit not in holds for lit in literals)
                assert allowed == (lead in text_leads(rules, spot.held))
