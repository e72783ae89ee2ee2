"""Finding deals with a property: SAT candidates, exact checks, learned clauses.

python-sat encodes who holds each card (one place per card, hand sizes by cardinality
constraints, ``--hold``/``--dead``) and the property's necessary conditions. Each candidate is
checked exactly (the solver, or a search over lines); a failed candidate adds a clause that
rules out every deal the same reason rules out, not just itself:

* a Matrimony property fails with a *line of play*; the clause forbids every deal in which that
  line is still legal and still ends the same way (the holders of the cards it plays, the dead
  cards its runs stop at, the cards its leads must not be below, the trump suit);
* ``forced-win`` fails with the opponents' strategy, which is not a line; the clause forbids the
  deal under every relabelling of clubs, hearts and spades (play treats them alike) and with
  any of its dead cards turned up (play does not depend on the turn-up);
* ``first-lead-out`` is encoded exactly, for any seat, so its candidates never fail.

A turn-up that ends the deal (Pope, early-hoyle) leaves it unplayed: it has matrimony-never-paid
(K and Q of trumps in one hand) and no other property. Once a deal is found, every deal with the
same hands is ruled out: another turn-up is not a new deal.

When the SAT solver runs out of candidates the search space is exhausted: "no such deal" is
then a proof, provided no candidate was left undecided by a time limit.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ..model.arguments import check_time_limit, is_whole, refuse_member, shown
from ..model.board import Compartment
from ..model.cards import (
    PACK,
    Card,
    CardSet,
    Mask,
    card_name,
    card_suit,
    check_mask,
    format_cards,
    iter_mask,
    make_card,
)
from ..model.deal import MAX_PLAYERS, MIN_PLAYERS, Deal
from ..model.errors import DealError, PopeJoanError, clip
from ..model.notation import deal_to_json
from ..model.play import Game, Run
from ..model.rules import Ruleset
from ..model.table import LeadId, RuleTable, Taker, compile_rules
from ..search.api import forced_win
from .lines import LineSearchTimeoutError, Verdict, find_line
from .sat import solve_interruptibly
from .support import require_forced_runs

MAX_COUNT: Final = 1_000
"""The most deals one ``find`` looks for: every deal found is kept, and blocked in the SAT
instance, until the end, so the count bounds the memory (2,000 deals of 3 players peaked at
375 MB; without a bound it grew about 4 MB a second)."""


class QueryError(PopeJoanError):
    """A find query that cannot be run: a time limit or a count out of range."""


class Property(StrEnum):
    FORCED_WIN = "forced-win"
    MATRIMONY_NEVER_PAID = "matrimony-never-paid"
    MATRIMONY_ALWAYS_PAID = "matrimony-always-paid"
    FIRST_LEAD_OUT = "first-lead-out"

    @classmethod
    def _missing_(cls, value: object) -> Property:
        refuse_member(cls, value, QueryError)


DESCRIPTIONS: Mapping[Property, str] = {
    Property.FORCED_WIN: "the seat can force going out first whatever the others do",
    Property.MATRIMONY_NEVER_PAID: "the K and Q of trumps are in one hand, yet no line of play "
                                   "pays Matrimony",
    Property.MATRIMONY_ALWAYS_PAID: "every line of play pays Matrimony",
    Property.FIRST_LEAD_OUT: "the seat goes out on the run of the very first lead",
}


@dataclass(frozen=True)
class FindQuery:
    """What to look for. ``seat`` and the keys of ``hold`` are seats, from 1; masks are card
    sets."""

    prop: Property
    rules: Ruleset
    players: int
    seat: int = 1
    hold: Mapping[int, Mask] = field(default_factory=dict)
    dead: Mask = 0
    count: int = 1
    seed: int = 0
    time_limit: float | None = None


@dataclass(frozen=True)
class FindStats:
    candidates: int
    learned_clauses: int
    undecided: int
    exhausted: bool
    timed_out: bool
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"candidates": self.candidates, "learned_clauses": self.learned_clauses,
                "undecided": self.undecided, "exhausted": self.exhausted,
                "timed_out": self.timed_out, "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class Lemma:
    """A clause the search added after an exact check of a candidate deal, and why."""

    clause: tuple[int, ...]
    deal: Deal
    verdict: str
    """``lacks the property``, ``has the property`` (found: the same hands are ruled out) or
    ``undecided``."""
    line: tuple[dict[str, object], ...] = ()
    """The line of play that shows a Matrimony property fails (the clause is its literals)."""


@dataclass(frozen=True)
class FindFormula:
    """Every clause the SAT solver was given: the encoding, then the lemmas in order; with
    the variables' names (for a DIMACS certificate)."""

    clauses: tuple[tuple[int, ...], ...]
    lemmas: tuple[Lemma, ...]
    names: Mapping[int, str]
    deal_clauses: int = 0
    """How many of the first clauses are the deal alone (the dealing, ``--hold``, ``--dead``),
    before the property's: a certificate's satisfiable companion."""


@dataclass(frozen=True)
class FindResult:
    deals: tuple[Deal, ...]
    stats: FindStats
    formula: FindFormula | None = None

    @property
    def proved_none(self) -> bool:
        """No deal has the property: the space is exhausted with nothing left undecided."""
        return not self.deals and self.stats.exhausted and not self.stats.undecided

    def to_json(self) -> dict[str, Any]:
        return {"deals": [deal_to_json(d) for d in self.deals], "stats": self.stats.to_json()}


class DealEncoding:
    """The deal as SAT variables named through an :class:`IDPool`. An encoding internal to
    ``find``: its methods take a seat's 0-based index (the variables' names count from 1)."""

    def __init__(self, rules: Ruleset, players: int) -> None:
        # python-sat is loaded on first use, so that importing the package stays quick
        from pysat.card import CardEnc, EncType
        from pysat.formula import IDPool

        self.rules = rules
        self.players = players
        self.pool = IDPool()
        self.table = compile_rules(rules)
        self.cards = list(iter_mask(self.table.pack))
        self.clauses: list[list[int]] = []
        self.aux_names: dict[int, str] = {}
        """The cardinality encodings' own variables, named after their constraint."""
        n = self.table.cards_per_player(players)
        for c in self.cards:
            places = [self.holds(c, s) for s in range(players)] + [self.dead(c)]
            self._add(CardEnc.equals(places, 1, vpool=self.pool, encoding=EncType.pairwise),
                      f"one-place[{card_name(c)}]")
            self.clauses.append([-self.turnup(c), self.dead(c)])
        for s in range(players):
            held = [self.holds(c, s) for c in self.cards]
            self._add(CardEnc.equals(held, n, vpool=self.pool, encoding=EncType.seqcounter),
                      f"hand-size[{s + 1}]")
        dead = [self.dead(c) for c in self.cards]
        self._add(CardEnc.equals(dead, self.table.dead_hand_size(players), vpool=self.pool,
                                 encoding=EncType.seqcounter), "dead-size")
        turned = [self.turnup(c) for c in self.cards]
        self._add(CardEnc.equals(turned, 1, vpool=self.pool, encoding=EncType.seqcounter),
                  "one-turnup")
        for suit in range(4):  # trumps[suit] <-> the turn-up is of that suit
            in_suit = [self.turnup(c) for c in self.cards if card_suit(c) == suit]
            self.clauses.append([-self.trumps(suit), *in_suit])
            self.clauses += [[self.trumps(suit), -t] for t in in_suit]
        self.ends = compile_rules(rules).ends_deal_turnup
        """The turn-up that ends the deal unplayed (early-hoyle, cassell), or None."""

    def _add(self, formula: Any, what: str) -> None:
        """Add a cardinality constraint's clauses; its new variables (the pool's ids that
        name nothing) are named ``counter[WHAT].K``."""
        fresh = sorted({abs(lit) for clause in formula.clauses for lit in clause}
                       - set(self.pool.id2obj) - set(self.aux_names))
        self.aux_names.update({v: f"counter[{what}].{k}" for k, v in enumerate(fresh, 1)})
        self.clauses += formula.clauses

    def names(self) -> dict[int, str]:
        """Every variable's name (a DIMACS certificate's variable map)."""
        return {**{int(v): str(k) for k, v in self.pool.obj2id.items()}, **self.aux_names}

    def holds(self, card: Card, seat: int) -> int:
        return int(self.pool.id(f"holds[{card_name(card)},{seat + 1}]"))

    def dead(self, card: Card) -> int:
        return int(self.pool.id(f"dead[{card_name(card)}]"))

    def turnup(self, card: Card) -> int:
        return int(self.pool.id(f"turnup[{card_name(card)}]"))

    def trumps(self, suit: int) -> int:
        return int(self.pool.id(f"trumps[{'CDHS'[suit]}]"))

    def decode(self, model: list[int]) -> Deal:
        true = {v for v in model if v > 0}
        hands = [0] * self.players
        dead = 0
        turnup = -1
        for c in self.cards:
            for s in range(self.players):
                if self.holds(c, s) in true:
                    hands[s] |= 1 << c
            if self.dead(c) in true:
                dead |= 1 << c
            if self.turnup(c) in true:
                turnup = c
        return Deal.create(tuple(hands), dead, turnup, self.rules)

    def played(self) -> list[int]:
        """Literals true exactly when the deal is played (its turn-up does not end it)."""
        return [] if self.ends is None else [-self.turnup(self.ends)]

    def deal_literals(self, deal: Deal, suit_map: Mapping[int, int] | None = None) -> list[int]:
        """Literals fixing who holds each card (relabelled by ``suit_map``), turn-up left free."""
        remap = suit_map or {}

        def moved(c: Card) -> Card:
            return make_card(remap.get(card_suit(c), card_suit(c)), c % 13)
        lits = []
        for c in self.cards:
            seat = deal.holder(c)
            lits.append(self.dead(moved(c)) if seat is None
                        else self.holds(moved(c), seat - 1))
        return lits


def _necessary(enc: DealEncoding, query: FindQuery) -> None:
    """Add the property's necessary conditions (exact for first-lead-out).

    A deal whose turn-up ends it is not played: nobody goes out and Matrimony is not paid, so
    it has matrimony-never-paid (given K and Q of trumps in one hand) and no other property.
    """
    rules = query.rules
    if query.prop is not Property.MATRIMONY_NEVER_PAID:
        enc.clauses += [[lit] for lit in enc.played()]
    if query.prop is Property.MATRIMONY_ALWAYS_PAID and _matrimony_divided(enc.table):
        # Both cards of Matrimony must be played, by anyone (pairs=divided): neither is dead.
        for suit in range(4):
            enc.clauses += [[-enc.trumps(suit), -enc.dead(card)]
                            for card in _matrimony_cards(enc.table, suit)]
    elif query.prop in (Property.MATRIMONY_NEVER_PAID, Property.MATRIMONY_ALWAYS_PAID):
        # The cards of Matrimony (the table's award: K and Q of trumps) dealt to one player.
        together = []
        for suit in range(4):
            pair = _matrimony_cards(enc.table, suit)
            for s in range(enc.players):
                both = enc.pool.id(f"matrimony-in[{'CDHS'[suit]},{s + 1}]")
                enc.clauses += [[-both, enc.trumps(suit)],
                                *([-both, enc.holds(card, s)] for card in pair)]
                together.append(both)
        enc.clauses.append(together)
    if query.prop is Property.FIRST_LEAD_OUT:
        _first_lead_out(enc, query.seat - 1, rules)


def _first_lead_out(enc: DealEncoding, seat: int, rules: Ruleset) -> None:
    """Exactly: eldest legally leads the bottom of an unbroken stretch of one chain of the
    table's successor (a suit), the seat's whole hand lies in it up to its top, and no other
    whole hand lies in it below its top."""
    choices = []
    for order in successor_chains(enc.table.successor):
        for i, j in itertools.combinations_with_replacement(range(len(order)), 2):
            span = order[i:j + 1]
            if any(c not in enc.cards for c in span) or (seat != 0 and i == j):
                continue  # the run cannot pass the absent 8♦; eldest leads, the seat is out
            pick = enc.pool.id(f"first-run[{card_name(order[i])}-{card_name(order[j])}]")
            choices.append(pick)
            enc.clauses.append([-pick, enc.holds(order[i], 0)])
            enc.clauses += [[-pick, lit] for lit in lead_literals(enc, rules, order[i], 0, 0)]
            enc.clauses.append([-pick, enc.holds(order[j], seat)])
            enc.clauses += [[-pick, -enc.dead(c)] for c in span]
            enc.clauses += [[-pick, -enc.holds(c, seat)] for c in enc.cards if c not in span]
            below_top = set(span[:-1])
            for other in range(enc.players):
                if other != seat:
                    enc.clauses.append([-pick] + [enc.holds(c, other) for c in enc.cards
                                                  if c not in below_top])
    enc.clauses.append(choices)


def successor_chains(successor: tuple[int, ...]) -> list[list[Card]]:
    """The table's successor as chains, bottom first (the suits, for the real rules; the
    absent 8♦ included), in the order of their bottom cards."""
    has_below = {above for above in successor if above >= 0}
    chains = []
    for bottom in range(len(successor)):
        if bottom in has_below:
            continue
        chain = [bottom]
        while successor[chain[-1]] >= 0 and len(chain) <= len(successor):
            chain.append(successor[chain[-1]])
        chains.append(chain)
    return chains


def lead_literals(enc: DealEncoding, rules: Ruleset, lead: Card, leader: int,
                   played: Mask) -> list[int]:
    """Literals that make ``lead`` legal for ``leader`` (who holds it) once ``played`` is out,
    by the table's lead rule and order."""
    table = compile_rules(rules)
    if table.lead is LeadId.ANY:
        return []
    key = table.order_key
    lits = []
    for d in enc.cards:
        if played >> d & 1 or key[d] >= key[lead]:
            continue
        if table.lead is LeadId.LOWEST_OF_SUIT and card_suit(d) != card_suit(lead):
            continue
        lits.append(-enc.holds(d, leader))
    return lits


def _line_literals(enc: DealEncoding, deal: Deal, runs: list[Run]) -> list[int]:
    """Literals true of ``deal`` under which ``runs`` is still a legal line ending the same way."""
    rules = deal.rules
    lits = {enc.trumps(deal.trumps), *enc.played()}  # a line is played only in a played deal
    played = 0
    for run in runs:
        for card, seat in zip(run.cards, run.seats, strict=True):
            lits.add(enc.holds(card, seat - 1))
        lits.update(lead_literals(enc, rules, run.lead, run.leader - 1, played))
        above = enc.table.successor[run.stop_card]
        if run.winner is None and above >= 0 and deal.dead >> above & 1:
            lits.add(enc.dead(above))
        played |= run.mask
    return sorted(lits)


def _matrimony_cards(table: RuleTable, trumps: int) -> tuple[Card, ...]:
    """The cards whose play pays Matrimony when ``trumps`` is trumps, read from the table's
    awards (none if the board has no Matrimony)."""
    award = table.award_of(Compartment.MATRIMONY, trumps)
    return award.cards if award is not None else ()


def _matrimony_divided(table: RuleTable) -> bool:
    """Whether Matrimony is paid when its cards are played by different players (the table's
    award taker: ``pairs=divided``)."""
    award = table.award_of(Compartment.MATRIMONY, 0)
    return award is not None and award.taker is Taker.DIVIDED


def _matrimony_goal(deal: Deal, want_paid: bool) -> Any:
    both = sum(1 << card for card in _matrimony_cards(compile_rules(deal.rules), deal.trumps))

    def goal(played: Mask, winner: int | None) -> Verdict:
        if both and played & both == both:
            return Verdict.REACHED if want_paid else Verdict.FAILED
        if winner is not None:
            return Verdict.FAILED if want_paid else Verdict.REACHED
        return Verdict.OPEN
    return goal


def _unplayed(deal: Deal) -> bool:
    """The deal's turn-up ends it before play (a Pope turn-up under early-hoyle, cassell)."""
    return deal.turnup == compile_rules(deal.rules).ends_deal_turnup


def _first_lead_out_holds(deal: Deal, seat: int) -> bool:
    game = Game.from_deal(deal)
    return not _unplayed(deal) and any(game.forced_run(0, 1, lead).winner == seat
                                       for lead in game.legal_leads(0, 1))


def _validate(query: FindQuery) -> None:
    """Refuse a query whose answer would be wrong or meaningless rather than run it.

    A card outside the pack (the 8♦) would be a variable no clause constrains, so the
    constraint on it would be dropped without a word; cards placed twice or too many for a
    hand would make every "no such deal" a proof of nothing the user meant to ask.
    """
    _check_types(query)
    if not MIN_PLAYERS <= query.players <= MAX_PLAYERS:
        raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                        f"not {query.players}")
    if not 0 < query.seat <= query.players:
        raise DealError(f"seat must be from 1 to {query.players}, not {query.seat}")
    check_time_limit(query.time_limit)
    if query.prop is not Property.FORCED_WIN:  # the search engines read the choices
        require_forced_runs(query.rules, f"find {query.prop.value}")
    if not 1 <= query.count <= MAX_COUNT:
        raise QueryError(f"--count must be from 1 to {MAX_COUNT:,}, not {query.count}")
    hand = query.rules.table.cards_per_player(query.players)
    placed = 0
    for seat, mask in sorted(query.hold.items()):
        if not 0 < seat <= query.players:
            raise DealError(f"--hold names seat {seat}, but there are {query.players} "
                            "players")
        _check_in_pack(mask, f"--hold {seat}", query.rules)
        if mask.bit_count() > hand:
            raise DealError(f"--hold {seat}: {mask.bit_count()} cards, but a hand of "
                            f"{query.players} players has {hand}")
        if mask & placed:
            raise DealError(f"--hold: {format_cards(mask & placed)} held by two seats")
        placed |= mask
    _check_in_pack(query.dead, "--dead", query.rules)
    size = query.rules.table.dead_hand_size(query.players)
    if query.dead.bit_count() > size:
        raise DealError(f"--dead: {query.dead.bit_count()} cards, but the dead hand of "
                        f"{query.players} players has {size}")
    if query.dead & placed:
        raise DealError(f"{format_cards(query.dead & placed)} both held (--hold) and dead "
                        "(--dead)")


def _check_types(query: object) -> None:
    """Refuse a query that is not a :class:`FindQuery`, or one whose fields are of the wrong
    type (a property's name, a ruleset's name, ``True`` for a count, a seat in a string)."""
    if not isinstance(query, FindQuery):
        raise QueryError(f"find_deals takes a FindQuery, not {type(query).__name__}")
    if not isinstance(query.prop, Property):
        raise QueryError(f"prop must be a Property (Property({query.prop!r}) reads its name), "
                         f"not {type(query.prop).__name__}"[:200])
    if not isinstance(query.rules, Ruleset):
        raise QueryError(f"rules must be a Ruleset (get_ruleset(name) gives one), not "
                         f"{shown(query.rules)}")
    for name in ("players", "seat", "count", "seed"):  # their ranges are checked after
        value = getattr(query, name)
        if not is_whole(value):
            raise QueryError(f"{name} must be a whole number, not {shown(value)}")
    if not isinstance(query.hold, Mapping):
        raise QueryError(f"hold must be a mapping of seats (from 1) to card masks, not "
                         f"{type(query.hold).__name__}")
    for seat, mask in query.hold.items():
        if not is_whole(seat):
            raise QueryError(f"a seat of hold is a whole number (from 1), not {shown(seat)}")
        check_mask(mask, f"hold[{seat}]")
    check_mask(query.dead, "dead")


def _check_in_pack(mask: Mask, what: str, rules: Ruleset | None = None) -> None:
    """Every card of ``mask`` in the ruleset's pack (Spinado's has no twos either; without a
    ruleset, the Pope Joan pack)."""
    pack = rules.table.pack if rules is not None else PACK
    if mask & ~pack:
        without = "the 8♦ and the twos are" if pack != PACK else "the 8♦ is"
        game = "Spinado" if pack != PACK else "Pope Joan"
        raise DealError(f"{what}: {format_cards(mask & ~pack)} is not in the {game} "
                        f"pack ({without} taken out)")


FindProgress = Callable[[int, int, int], None]
"""Told, after each candidate is checked, the deals found, the count asked for and the
candidates checked."""


def _query_encoding(query: FindQuery) -> tuple[DealEncoding, int]:
    """The query's formula: the dealing with ``hold`` and ``dead`` (its first clauses, how
    many is the second value), then the property's necessary conditions."""
    enc = DealEncoding(query.rules, query.players)
    for seat, mask in query.hold.items():
        enc.clauses += [[enc.holds(c, seat - 1)] for c in iter_mask(mask)]
    enc.clauses += [[enc.dead(c)] for c in iter_mask(query.dead)]
    deal_clauses = len(enc.clauses)
    _necessary(enc, query)
    return enc, deal_clauses


def find_deals(query: FindQuery, progress: FindProgress | None = None) -> FindResult:
    """Deals with the property, each verified exactly before it is returned.

    Ctrl-C raises KeyboardInterrupt within a fraction of a second, the SAT solver included.
    """
    _validate(query)
    started = time.monotonic()
    deadline = started + query.time_limit if query.time_limit is not None else None
    enc, deal_clauses = _query_encoding(query)
    rng = random.Random(f"popejoan-find:{query.seed}")
    found: list[Deal] = []
    lemmas: list[Lemma] = []
    candidates = learned = undecided = 0
    exhausted = timed_out = False
    from pysat.solvers import Solver

    if progress is not None:
        progress(0, query.count, 0)
    with Solver(name="glucose4", bootstrap_with=enc.clauses) as sat:
        top = enc.pool.top
        sat.set_phases([v if rng.random() < 0.5 else -v for v in range(1, top + 1)])
        while len(found) < query.count:
            if deadline is not None and time.monotonic() > deadline:
                timed_out = True
                break
            answer = solve_interruptibly(sat, deadline)
            if answer is None:
                timed_out = True
                break
            if not answer:
                exhausted = True
                break
            model = sat.get_model()
            assert model is not None
            deal = enc.decode(model)
            candidates += 1
            verdict, clauses, line = _check(enc, query, deal, deadline)
            if verdict is None:
                undecided += 1
            elif verdict:
                found.append(deal)
            else:
                learned += len(clauses)
            why = {None: "undecided", True: "has the property"}.get(verdict,
                                                                    "lacks the property")
            shown = tuple(run.to_json() for run in line or ())
            for clause in clauses:
                sat.add_clause(clause)
                lemmas.append(Lemma(tuple(clause), deal, why, shown))
            if progress is not None:
                progress(len(found), query.count, candidates)
    stats = FindStats(candidates, learned, undecided, exhausted, timed_out,
                      time.monotonic() - started)
    formula = FindFormula(tuple(tuple(c) for c in enc.clauses), tuple(lemmas), enc.names(),
                          deal_clauses)
    return FindResult(tuple(found), stats, formula)


def _block(enc: DealEncoding, deal: Deal) -> list[int]:
    """The clause ruling out this one deal, turn-up included (a failed or undecided one)."""
    return [-lit for lit in enc.deal_literals(deal)] + [-enc.turnup(deal.turnup)]


def _same_deal(enc: DealEncoding, deal: Deal) -> list[int]:
    """The clause ruling out every deal the same as a found one: every seat holds the same
    cards (so the dead hand is the same too), whatever the turn-up."""
    return [-lit for lit in enc.deal_literals(deal)]


Checked = tuple[bool | None, list[list[int]], list[Run] | None]
"""Has the property (None: undecided), the clauses to add, the line that shows it fails."""


def _check(enc: DealEncoding, query: FindQuery, deal: Deal,
           deadline: float | None) -> Checked:
    """Verify a candidate: (has the property, clauses to add, line); None when undecided."""
    verdict, clauses, line = _verify(enc, query, deal, deadline)
    return verdict, [_same_deal(enc, deal)] if verdict else clauses, line


def _verify(enc: DealEncoding, query: FindQuery, deal: Deal,
            deadline: float | None) -> Checked:
    """The exact check of one candidate, the clauses a failed one teaches, and for a
    Matrimony property the line of play that shows it fails."""
    prop = query.prop
    remaining = None if deadline is None else max(0.01, deadline - time.monotonic())
    if _unplayed(deal):  # nobody goes out, Matrimony is not paid (see _necessary)
        ok = prop is Property.MATRIMONY_NEVER_PAID and _pair_in_one_hand(deal)
        return ok, [_block(enc, deal)], None
    if prop is Property.FIRST_LEAD_OUT:
        return _first_lead_out_holds(deal, query.seat), [_block(enc, deal)], None
    if prop is Property.FORCED_WIN:
        value = forced_win(deal, query.seat, time_limit=remaining)
        if not value.is_exact:
            return None, [_block(enc, deal)], None
        if value.lower:
            return True, [], None
        return False, _symmetric_blocks(enc, deal, query), None
    game = Game.from_deal(deal)
    want_paid = prop is Property.MATRIMONY_NEVER_PAID  # look for the line that refutes it
    try:
        line = find_line(game, 0, 1, _matrimony_goal(deal, want_paid), deadline)
    except LineSearchTimeoutError:
        return None, [_block(enc, deal)], None
    if line is None:
        return True, [], None
    return False, [[-lit for lit in _line_literals(enc, deal, line)]], line


def _pair_in_one_hand(deal: Deal) -> bool:
    """The cards of Matrimony (K and Q of trumps) were dealt to one player."""
    pair = _matrimony_cards(compile_rules(deal.rules), deal.trumps)
    holders = {deal.holder(card) for card in pair}
    return len(holders) == 1 and None not in holders


def _symmetric_blocks(enc: DealEncoding, deal: Deal, query: FindQuery) -> list[list[int]]:
    """Clauses blocking the deal under every relabelling of clubs, hearts and spades."""
    clauses = []
    pinned = bool(query.hold or query.dead)
    perms = [(0, 2, 3)] if pinned else list(itertools.permutations((0, 2, 3)))
    for perm in perms:
        mapping = dict(zip((0, 2, 3), perm, strict=True))
        clauses.append([-lit for lit in enc.deal_literals(deal, mapping)])
    return clauses


def parse_hold(text: str, players: int) -> tuple[int, Mask]:
    """``SEAT:CARDS`` to the seat (from 1) and a mask of cards in the pack."""
    seat_text, sep, cards = text.partition(":")
    seat_text = seat_text.strip()
    if not sep or not seat_text.isascii() or not seat_text.isdigit():
        raise DealError(f"--hold wants SEAT:CARDS, like 1:QH,KH, not {clip(text)!r}")
    seat = int(seat_text)
    if not 0 < seat <= players:
        raise DealError(f"--hold names seat {seat}, but there are {players} players")
    mask = CardSet.parse(cards.replace(",", " ")).mask
    if not mask:
        raise DealError(f"--hold {clip(text)!r} names no cards (write SEAT:CARDS, like 1:QH,KH)")
    _check_in_pack(mask, f"--hold {seat}")
    return seat, mask


__all__ = ["DESCRIPTIONS", "FindQuery", "FindResult", "FindStats", "Property", "QueryError",
           "find_deals", "parse_hold"]
