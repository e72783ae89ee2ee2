"""The dealing frame against the model's deal shapes: the deals the encodings quantify over are
exactly the deals the rules model deals.

Every proof of ``prove`` is about the deals its dealing frame (:meth:`SymbolicDeal.constraints`)
admits. A frame stricter than the model leaves deals out of every proof (a theorem "proved"
that the model breaks on them); a looser one lets refutations and vacuity checks rest on deals
that do not exist. :func:`check_deal_shapes` compares the frame, for each player count, with a
second statement of the shapes written from the model's own definitions, in its own terms:
:func:`model_shapes` states :func:`~popejoan_solver.model.structure.check_structure` (the
ruleset's pack partitioned between the hands and the dead hand, the turn-up in the dead hand,
no hand empty) and the ruleset's dealing that :func:`~popejoan_solver.model.deal.deal_warnings`
checks (``RuleTable.cards_per_player``, ``RuleTable.dead_hand_size``, the stock's least size),
bit by bit over all 52 cards as the model's masks are, its counts as linear integer sums. Two
solver queries, both unsatisfiable when the sets are equal:

- the model's shapes and *not* the frame: a deal the model deals and the encoding leaves out;
- the frame and *not* the model's shapes: a deal the encoding admits and the model refuses.

Either model is decoded into a deal and run through the model (:class:`Deal` and
:func:`deal_warnings`), which says what is wrong with it. Then the frame is shown to admit
deals with every card in every place (each seat, the dead hand), each decoded and dealt by
the model with no warning: witnesses the model confirms, not the solver's word alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import z3

from ..model.cards import NUM_CARDS, Card, card_name, format_cards
from ..model.deal import Deal, deal_warnings
from ..model.errors import PopeJoanError
from ..model.rules import DeadHandRule, Ruleset
from .encoding import (
    FALSE,
    DecodedDeal,
    SymbolicDeal,
    all_of,
    any_of,
    mask_term,
    negated,
    read_mask,
)


class ShapeError(RuntimeError):
    """The dealing frame and the model's deal shapes differ (a bug of the tool)."""


def _count(bits: Sequence[z3.BoolRef]) -> z3.ArithRef:
    """How many of ``bits`` hold, as a linear integer sum (the frame counts by pseudo-Boolean
    constraints instead)."""
    return z3.Sum([z3.If(b, 1, 0) for b in bits if not z3.is_false(b)])


@dataclass(frozen=True)
class DealMasks:
    """A deal as the model writes it, bit by bit: for each hand, the dead hand and the
    turn-up, one term per card of the whole 52-card set (``FALSE`` where the frame has no
    variable: a card out of its pack is in no place)."""

    hands: tuple[tuple[z3.BoolRef, ...], ...]
    dead: tuple[z3.BoolRef, ...]
    turnup: tuple[z3.BoolRef, ...]
    reader: tuple[tuple[z3.BitVecRef, ...], z3.BitVecRef, z3.BitVecRef]
    """The same as 64-bit terms, to read a model's deal in one evaluation each."""

    @classmethod
    def of(cls, deal: SymbolicDeal) -> DealMasks:
        def bits(var: Callable[[Card], z3.BoolRef | None]) -> tuple[z3.BoolRef, ...]:
            return tuple(FALSE if (v := var(c)) is None else v for c in range(NUM_CARDS))

        hands = tuple(bits(lambda c, s=s: deal.hold.get((c, s)))  # type: ignore[misc]
                      for s in range(deal.players))
        reader = (tuple(mask_term({c: deal.hold[c, s] for c in deal.cards})
                        for s in range(deal.players)),
                  mask_term(deal.dead), mask_term(deal.turnup))
        return cls(hands, bits(deal.dead.get), bits(deal.turnup.get), reader)

    def decode(self, model: z3.ModelRef) -> DecodedDeal:
        hands, dead, turnup = self.reader
        return DecodedDeal(tuple(read_mask(model, h) for h in hands), read_mask(model, dead),
                           read_mask(model, turnup).bit_length() - 1)


def model_shapes(rules: Ruleset, masks: DealMasks) -> list[tuple[str, z3.BoolRef]]:
    """The model's deal shapes over ``masks``, each with what it says: the structure
    (:func:`check_structure`: the places' union is the ruleset's pack, no two places share
    a card, the turn-up one card of the dead hand, no hand empty) and the ruleset's dealing
    (:func:`deal_warnings`: each hand ``cards_per_player``, the dead hand the rest, or a
    stock of at least ``stock_size``)."""
    players = len(masks.hands)
    places = [*masks.hands, masks.dead]
    shapes = [("every card of the pack dealt, and no other card",
               all_of([any_of([p[c] for p in places]) if rules.table.pack >> c & 1
                       else negated(any_of([p[c] for p in places])) for c in range(NUM_CARDS)]))]
    shapes += [(f"no card in two places ({_place_name(a, players)} and "
                f"{_place_name(b, players)})",
                all_of([negated(all_of([places[a][c], places[b][c]]))
                        for c in range(NUM_CARDS)]))
               for a in range(len(places)) for b in range(a + 1, len(places))]
    shapes += [("one turn-up", _count(masks.turnup) == 1),
               ("the turn-up in the dead hand",
                all_of([any_of([negated(masks.turnup[c]), masks.dead[c]])
                        for c in range(NUM_CARDS)]))]
    shapes += [(f"hand {s + 1} not empty", any_of(list(masks.hands[s])))
               for s in range(players)]
    want = rules.table.cards_per_player(players)
    shapes += [(f"hand {s + 1} of {want} cards", _count(masks.hands[s]) == want)
               for s in range(players)]
    dead = _count(masks.dead)
    shapes.append((f"a dead hand of {rules.table.dead_hand_size(players)} cards",
                   dead == rules.table.dead_hand_size(players)))
    if rules.dead_hand is DeadHandRule.STOCK:
        shapes.append((f"a stock of at least {rules.stock_size} cards", dead >= rules.stock_size))
    return shapes


def _place_name(index: int, players: int) -> str:
    return "the dead hand" if index == players else f"hand {index + 1}"


def refusal(rules: Ruleset, decoded: DecodedDeal) -> str | None:
    """What the rules model says against ``decoded`` (None: it deals such a deal)."""
    try:
        deal = Deal.create(decoded.hands, decoded.dead, decoded.turnup, rules)
    except PopeJoanError as exc:
        return str(exc)
    warnings = deal_warnings(deal)
    return "; ".join(warnings) if warnings else None


def describe(decoded: DecodedDeal) -> str:
    """``decoded`` in one line: the hands, the dead hand, the turn-up."""
    turnup = card_name(decoded.turnup) if decoded.turnup >= 0 else "none"
    hands = " / ".join(format_cards(h) or "-" for h in decoded.hands)
    return f"hands {hands}, dead {format_cards(decoded.dead) or '-'}, turn-up {turnup}"


@dataclass(frozen=True)
class ShapeReport:
    """What :func:`check_deal_shapes` compared, per player count."""

    players: tuple[int, ...]
    witnesses: int
    """Deals of the frame decoded and dealt by the model (every card in every place), for
    all the player counts."""

    def summary(self) -> str:
        return (f"the dealing frame admits exactly the model's deals, {self.players[0]}-"
                f"{self.players[-1]} players (model and not frame: unsat; frame and not "
                f"model: unsat; {self.witnesses} deals of the frame, every card in every "
                f"place, each dealt by the model)")


Check = Callable[[z3.Solver], z3.CheckSatResult]


def _default_check(solver: z3.Solver) -> z3.CheckSatResult:
    return solver.check()


SHAPE_SECONDS = 20.0
"""The time limit of each symbolic query (each takes well under a second)."""


def check_deal_shapes(rules: Ruleset, deal: SymbolicDeal, check: Check = _default_check,
                      seconds: float = SHAPE_SECONDS) -> int:
    """Raise :class:`ShapeError` unless ``deal``'s frame admits exactly the deals of
    ``rules`` for its player count; the number of witness deals checked.

    "Model and not frame" is asked first: an empty frame (which z3 can take minutes to
    refute, a pigeonhole count) then fails at once, with a deal of the model it leaves out;
    the other query is still asked, for a second of time at most, so that a frame both looser
    and stricter shows both deals.
    """
    masks = DealMasks.of(deal)
    frame = deal.constraints()
    shapes = model_shapes(rules, masks)
    where = f"{rules.name}, {deal.players} players"
    queries = [("leaves out a deal the rules model deals",
                [*[s for _, s in shapes], z3.Not(z3.And(frame))]),
               ("admits a deal the rules model does not deal",
                [*frame, z3.Not(z3.And([s for _, s in shapes]))])]
    found: list[str] = []
    for what, assertions in queries:
        solver = z3.Solver()
        solver.set("timeout", max(1, round((1.0 if found else seconds) * 1000)))
        solver.add(*assertions)
        result = check(solver)
        if result == z3.unknown and not found:
            raise ShapeError(f"whether the encoding's dealing frame {what} was not decided "
                             f"within {seconds:g} s ({where})")
        if result == z3.sat:
            found.append(_counterexample(f"the encoding's dealing frame {what}", rules,
                                         shapes, masks, solver, where))
    if found:
        raise ShapeError("; and ".join(found))
    return _witnesses(rules, deal.cards, deal.players, _z3_admit(deal, masks, frame, check),
                      where)


def _counterexample(what: str, rules: Ruleset, shapes: Sequence[tuple[str, z3.BoolRef]],
                    masks: DealMasks, solver: z3.Solver, where: str) -> str:
    """The message of a difference found: the deal decoded, what the model says of it, and
    the shapes it breaks."""
    model = solver.model()
    decoded = masks.decode(model)
    broken = [name for name, term in shapes
              if z3.is_false(model.eval(term, model_completion=True))]
    said = refusal(rules, decoded)
    verdict = f"the model: {said}" if said else "the model deals it"
    return (f"{what} ({where}): {describe(decoded)}; {verdict}"
            + (f"; it breaks: {', '.join(broken)}" if broken else ""))


Admit = Callable[[dict[Card, int], Card], DecodedDeal | None]
"""A frame asked for one whole deal (each card's place, ``players`` for the dead hand, and
the turn-up): the deal of its model, decoded, or None when it has none."""


def _witnesses(rules: Ruleset, cards: Sequence[Card], players: int, admit: Admit,
               where: str) -> int:
    """Deals of the frame, each decoded and dealt by the model, until every card has been in
    every place (each seat, the dead hand); how many were asked for.

    Each query fixes a whole deal of the model's shape: a turn-up of its own (the next card
    of the pack), every other card put where it has not been yet while that place has room.
    Which cards can be the turn-up is left to the symbolic queries (every card of the dead
    hand can: the frame and the model's shapes agree on every deal)."""
    room = [rules.table.cards_per_player(players)] * players + [rules.table.dead_hand_size(players)]
    seen: set[tuple[Card, int]] = set()
    asked = 0
    for turnup in cards:
        if asked and len(seen) == len(cards) * (players + 1):
            break
        asked += 1
        placed = _placement(cards, turnup, room, seen)
        target = DecodedDeal(tuple(sum(1 << c for c, p in placed.items() if p == s)
                                   for s in range(players)),
                             sum(1 << c for c, p in placed.items() if p == players), turnup)
        said = refusal(rules, target)
        if said is not None:  # the placement is built to the model's shape: our own bug
            raise ShapeError(f"a witness deal is not one the model deals ({where}): "
                             f"{describe(target)}; the model: {said}")
        decoded = admit(placed, turnup)
        if decoded is None:
            raise ShapeError(f"the encoding's dealing frame leaves out a deal the rules model "
                             f"deals ({where}): {describe(target)}")
        said = refusal(rules, decoded)
        if said is not None or decoded != target:
            raise ShapeError(f"a deal of the encoding's dealing frame is not the one asked "
                             f"for, or one the rules model does not deal ({where}): "
                             f"{describe(decoded)}; the model: {said or 'deals it'}")
        seen |= set(placed.items())
    missing = {(c, p) for c in cards for p in range(players + 1)} - seen
    if missing:  # the placement's own bug, not the frame's
        c, p = min(missing)
        raise ShapeError(f"the witnesses never put {card_name(c)} in "
                         f"{_place_name(p, players)} ({where})")
    return asked


def _z3_admit(deal: SymbolicDeal, masks: DealMasks, frame: list[z3.BoolRef],
              check: Check) -> Admit:
    """:data:`Admit` for the z3 frame."""
    solver = z3.Solver()
    solver.add(*frame)

    def admit(placed: dict[Card, int], turnup: Card) -> DecodedDeal | None:
        wanted = [deal.turnup[c] if c == turnup else z3.Not(deal.turnup[c]) for c in deal.cards]
        wanted += [deal.dead[c] if p == deal.players else deal.hold[c, p]
                   for c, p in placed.items()]
        solver.push()
        try:
            solver.add(*wanted)
            return masks.decode(solver.model()) if check(solver) == z3.sat else None
        finally:
            solver.pop()
    return admit


def _placement(cards: Sequence[Card], turnup: Card, room: Sequence[int],
               seen: set[tuple[Card, int]]) -> dict[Card, int]:
    """A place for every card (``len(room) - 1``: the dead hand): the turn-up dead, every
    other card (from the one after the turn-up on) where it has not been yet while that
    place has room, else where there is room."""
    left = list(room)
    placed = {turnup: len(room) - 1}
    left[-1] -= 1
    start = cards.index(turnup)
    for c in [*cards[start + 1:], *cards[:start]]:  # each card early in the order in turn
        free = [p for p in range(len(room)) if left[p] > 0]
        fresh = [p for p in free if (c, p) not in seen]
        place = (fresh or free)[(c + turnup) % len(fresh or free)]
        placed[c] = place
        left[place] -= 1
    return placed


__all__ = ["DealMasks", "ShapeError", "ShapeReport", "check_deal_shapes", "model_shapes",
           "refusal"]
