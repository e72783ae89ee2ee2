"""What one seat knows at one point of play: its view of a deal, as exact per-card constraints.

A seat sees its own hand, the turn-up (where the ruleset turns one up), every card played and
by whom, the board and the hand sizes; the dealer also sees the dead hand where the ruleset
lets him (``spare_hand=dealer-sees``). The play reveals more (``seat.inference``): a run that
stopped short shows its next card is dead, a lead under a lowest-card rule shows cards its
leader did not hold, and a player going out shows who holds the exempt Pope. Every such fact
is a constraint on one card: the set of places it may be. :func:`knowledge` gathers them, then
narrows each card to the places where some deal of the right hand sizes puts it (by exact
counting), so ``places`` is exact: a card may be at a place if and only if some deal
consistent with everything seen puts it there.

**Inside a run.** A bot deciding at a choice inside a run (Spinado's Spin, Peel's Pope in lieu
of a stop) calls :func:`knowledge_at_choice` with the line so far, the lead and the
:class:`~popejoan_solver.model.play.Choice` node it stands at (from ``Game.run_tree``). The
knowledge then includes what the run has shown so far (the lead, the cards before the choice
with who played them and, for a Pope in lieu, that the run stopped); its position is the one
*before* the lead, so every sampled deal is a position from which replaying the lead reaches
the same choice node (the same chooser and kind after the same cards played by the same seats:
``seat.inference.reproduces``). Any seat may be asked: while the play waits for the chooser,
every seat knows the chooser holds the choice's card (as in OpenSpiel, where whose turn it is
is public). A choice that was declined leaves no trace in a finished run.

A position :class:`Deal` given with played cards and no line is read without the order of
play: exact when the order tells nothing more (the lead rule ``any``, no choices inside runs,
the deal not over in an ambiguous way); otherwise :class:`ViewError` asks for the record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..model.arguments import check_seat
from ..model.board import Board
from ..model.cards import Card, Mask, card_name, iter_mask, union
from ..model.deal import Deal, check_deal
from ..model.errors import IllegalPlayError, PopeJoanError, clip
from ..model.play import Choice, Game, Position, Run, StopReason, outcomes
from ..model.rules import Ruleset
from ..model.settlement import apply_to_board, compartments_taken, turnup_award
from ..model.table import LeadId, compile_rules
from .counting import can_place, group_cards
from .inference import (
    Step,
    common_prefix,
    dead_evidence,
    dead_text,
    exempt_places,
    lead_excludes,
    reproduces,
)
from .line import read_line, turnup_ends_deal


class ViewError(PopeJoanError):
    """A view that cannot be computed exactly from what was given (e.g. no line of play)."""


@dataclass(frozen=True)
class Inference:
    """One thing the seat knows beyond what it sees, with its reason."""

    card: Card
    places: Mask
    """Bit ``i``: the card may be with seat ``i + 1`` by this inference; bit ``n``: dead."""
    rule: str
    """The rule it rests on (an option ``name=value``, or ``runs climb``)."""
    text: str

    def to_json(self, players: int) -> dict[str, object]:
        return {"card": card_name(self.card), "places": places_json(self.places, players),
                "rule": self.rule, "text": self.text}


def places_json(places: Mask, players: int) -> list[int | str]:
    """A location mask as JSON: seats from 1, ``"dead"`` for the dead hand."""
    return [p + 1 if p < players else "dead" for p in iter_mask(places)]


@dataclass(frozen=True)
class Knowledge:
    """What one seat knows at one point of play. ``seat``, ``leader`` and ``winner`` count
    from 1; the per-seat tuples and location masks hold seat ``i + 1`` at index (bit) ``i``,
    the dead hand at ``players``."""

    seat: int
    rules: Ruleset
    players: int
    own: Mask
    turnup: Card | None
    """None where the ruleset shows no turn-up (Spinado)."""
    played: tuple[Mask, ...]
    leader: int
    board: Board
    hand_sizes: tuple[int, ...]
    dead_size: int
    hidden: Mask
    """The cards whose place the seat does not know for certain."""
    places: tuple[Mask, ...]
    """Per location (seats, then ``players`` = the dead hand): hidden cards that may be there."""
    need: tuple[int, ...]
    """How many hidden cards each location holds (0 for the seat itself)."""
    known_dead: Mask
    inferences: tuple[Inference, ...]
    line: tuple[Run, ...]
    known_held: tuple[Mask, ...] = ()
    """Cards of other seats' hands the seat knows for certain, per seat (its own: ``own``)."""
    deal_board: Board | None = None
    """The board of the position deals drawn (:mod:`seat.sampling`): the input deal's own
    board (None: the ruleset's dressing) when no line was played from it, else ``board``."""
    winner: int | None = None
    """The seat that went out, once the deal is over."""
    pending: tuple[Card, ...] = ()
    """At a choice inside a run: the cards of the run so far (its lead first)."""
    turnup_ended: bool = False
    """The turn-up ended the deal unplayed (the Pope under ``pope_turnup=ends-deal``)."""

    @property
    def over(self) -> bool:
        """No lead is left: a seat went out, or the turn-up ended the deal unplayed."""
        return self.winner is not None or self.turnup_ended

    @property
    def played_mask(self) -> Mask:
        return union(self.played)

    def allowed(self, card: Card) -> Mask:
        """The locations a hidden card may be in."""
        return sum(1 << loc for loc, mask in enumerate(self.places) if mask >> card & 1)


def view(deal: Deal, seat: int, line: Sequence[Run | str] | str = ()) -> Knowledge:
    """What seat ``seat`` (numbered from 1, as in every public interface) knows after
    ``line``: :func:`knowledge` for the Python API (``from popejoan_solver import view``).
    ``line`` holds runs or steps (``"3C"``, ``"8S+9D@9S"``), or is one string of steps as
    ``view --line`` takes; wrong types are a :class:`ViewError`, bad steps name the step."""
    check_deal(deal, "deal must be a Deal", ViewError)
    check_seat(seat, deal.players, ViewError)
    if isinstance(line, str):
        line = line.split()
    elif isinstance(line, bytes | bytearray) or not isinstance(line, Sequence):
        raise ViewError(f"line must be a list of runs or steps (like ['3C', '8S+9D@9S']) or "
                        f"one string of steps, not of type {type(line).__name__}")
    return knowledge(deal, seat, read_line(deal, line))


def knowledge(deal: Deal, seat: int, line: Sequence[Run] = (), *,
              revealed: Mask = 0) -> Knowledge:
    """What ``seat`` (from 1) knows after ``line`` (runs played from ``deal``, each one of its
    lead's outcomes). Raises :class:`IllegalPlayError` for a run the deal cannot produce.
    ``revealed``: cards the seat is shown where they are in ``deal`` (a bot given partial
    sight, ``pimc:sees=dead``); the play's own evidence is added as usual."""
    index = _seat_index(deal, seat)
    return _build(deal, index, _steps(deal, line), tuple(line), None, revealed)


def knowledge_at_choice(deal: Deal, seat: int, line: Sequence[Run], lead: Card,
                        choice: Choice, *, revealed: Mask = 0) -> Knowledge:
    """What ``seat`` knows at ``choice``, a choice node of the run tree of ``lead`` played
    after ``line``, while the play waits for the chooser (so every seat knows the chooser holds
    the choice's card); the position (and sampled deals) are those before the lead.
    ``revealed`` as for :func:`knowledge`."""
    index = _seat_index(deal, seat)
    steps = _steps(deal, line)
    position = _replay(deal, line)
    if position.is_over or turnup_ends_deal(deal) or lead not in position.legal_leads():
        raise IllegalPlayError(f"{card_name(lead)} is not a lead of this position")
    partial = common_prefix(choice)
    step = Step(position.leader, position.played, lead, None, partial, choice)
    if not reproduces(position.game, step):
        raise IllegalPlayError("the choice is not one of this lead's run tree")
    return _build(deal, index, [*steps, step], tuple(line), partial, revealed)


def _replay(deal: Deal, line: Sequence[Run]) -> Position:
    position = Position.from_deal(deal)
    if line and turnup_ends_deal(deal):
        raise IllegalPlayError(f"run 1 of the line is not a play of this deal: the turn-up "
                               f"{card_name(deal.turnup)} ended it unplayed")
    for index, run in enumerate(line):
        if position.is_over or run.leader != position.leader:
            raise IllegalPlayError(f"run {index + 1} of the line is not a play of this deal")
        if run not in position.outcomes(run.lead):
            raise IllegalPlayError(f"run {index + 1} ({run.step}) is not a play of this deal")
        position = position.after(run)
    return position


def _seat_index(deal: Deal, seat: int) -> int:
    """``seat`` (from 1) checked, as its 0-based index into the masks built here."""
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise ViewError(f"seat must be a whole number from 1, not {clip(repr(seat))}")
    if not 0 < seat <= deal.players:
        raise ViewError(f"seat must be from 1 to {deal.players}, not {seat}")
    return seat - 1


def _steps(deal: Deal, line: Sequence[Run]) -> list[Step]:
    """The observed leads of ``line``, checked against the deal."""
    if deal.played:
        _check_unordered(deal)
    steps: list[Step] = []
    position = Position.from_deal(deal)
    _replay(deal, line)
    for run in line:
        steps.append(Step(position.leader, position.played, run.lead, run))
        position = position.after(run)
    return steps


def _check_unordered(deal: Deal) -> None:
    """Refuse a position given without its line where the order of play would tell more."""
    table = compile_rules(deal.rules)
    why = None
    if table.lead is not LeadId.ANY:
        why = f"under lead={deal.rules.lead.value} each lead tells what its leader did not hold"
    elif table.choice_points:
        why = f"under {table.choice_points[0].option} a choice may have ended a run"
    else:
        game = Game.from_deal(deal)
        played = deal.played_mask
        winner = game.winner(played)
        if winner is not None and any(game.stop_reason(c, played) is StopReason.DEAD
                               for c in iter_mask(deal.played[winner - 1])):
            why = "the deal is over and its last run is not known"
    if why is not None:
        raise ViewError(f"this position needs its line of play to be viewed exactly ({why}): "
                        "give the record of the deal (popejoan view RECORD --after K)")


def _public(deal: Deal, seat: int, position: Position) -> tuple[Card | None, Mask]:
    """The turn-up if shown, and the dead cards the seat sees."""
    table = compile_rules(deal.rules)
    turnup = deal.turnup if table.turns_up else None
    dead = deal.dead if table.dealer_sees_dead_hand and seat == deal.players - 1 else 0
    return turnup, dead | (1 << turnup if turnup is not None else 0)


def _board(deal: Deal, position: Position) -> Board:
    """The board as it stands: as given for a position; for a fresh deal dressed and after the
    turn-up award; then after the compartments taken by the line."""
    start = deal.board_or_dressed
    if deal.is_fresh:
        start = apply_to_board(start, turnup_award(deal, start).transfers)
    game = position.game
    taken_before = compartments_taken(game, start, deal.played_mask)
    return apply_to_board(start, [t for t in compartments_taken(game, start, position.played)
                                  if t not in taken_before])


def _build(deal: Deal, seat: int, steps: list[Step], line: tuple[Run, ...],
           partial: tuple[Card, ...] | None, revealed: Mask = 0) -> Knowledge:
    """The knowledge of the seat of 0-based index ``seat`` (the private helpers below take
    that index: it is a bit of the location masks)."""
    position = _replay(deal, line)
    game = position.game
    n = deal.players
    played = position.played
    turnup, seen_dead = _public(deal, seat, position)
    own = game.dealt[seat] & ~played
    inferences: list[Inference] = []
    allowed = _raw_allowed(deal, seat, steps, position, seen_dead, inferences)
    for card in allowed:
        if revealed >> card & 1:  # shown: at its place in the deal
            holder = game.holder_index[card]
            allowed[card] = 1 << (holder if holder >= 0 else n)
    allowed = _narrow(allowed, _sizes(game, played, n, deal.dead), seat, seen_dead, inferences)
    return _assemble(deal, seat, position, line, partial, turnup, own, allowed, inferences)


def _sizes(game: Game, played: Mask, n: int, dead: Mask) -> tuple[int, ...]:
    return (*((game.dealt[i] & ~played).bit_count() for i in range(n)), dead.bit_count())


def _raw_allowed(deal: Deal, seat: int, steps: list[Step], position: Position, seen_dead: Mask,
                 inferences: list[Inference]) -> dict[Card, Mask]:
    """Each unseen card's places by the play's evidence, before counting narrows them."""
    game, played, n = position.game, position.played, deal.players
    winner = game.winner(played)
    everywhere = ((1 << (n + 1)) - 1) & ~(1 << seat)
    unseen = deal.rules.table.pack & ~played & ~game.dealt[seat] & ~seen_dead
    out = None if winner is None else winner - 1
    third = next(s for s in range(n) if s not in (seat, out))
    allowed: dict[Card, Mask] = {}
    shown = _partial_players(steps[-1]) if steps and steps[-1].choice is not None else {}
    for card in iter_mask(unseen):
        if card in shown:  # played in the run under way, before the choice: seen
            allowed[card] = 1 << (shown[card] - 1)
            continue
        if card in _choice_card(deal, steps):  # the table waits for the card's holder
            chooser, option = _choice_card(deal, steps)[card]
            allowed[card] = 1 << (chooser - 1)
            inferences.append(Inference(card, 1 << (chooser - 1), option,
                                        f"seat {chooser} holds {card_name(card)}: the "
                                        f"play waits for its choice ({option})"))
            continue
        places = everywhere
        for step in steps:
            led = step.leader - 1
            if led != seat and places >> led & 1 and lead_excludes(deal.rules, step.lead, card):
                places &= ~(1 << led)
                inferences.append(Inference(
                    card, everywhere & ~(1 << led), f"lead={deal.rules.lead.value}",
                    f"seat {step.leader} held no {card_name(card)}: it led "
                    f"{card_name(step.lead)}"))
        if game.holder_index[card] < 0:
            places = _dead_check(deal, steps, position, card, third, places, inferences)
        exempt = game.table.exempt_card
        if winner is not None and card == exempt:
            found = exempt_places(game, played, winner, card)
            places &= found
            inferences.append(Inference(card, found, "pope_exemption=true",
                                        f"{card_name(card)}: "
                                        f"{_exempt_text(found, n)}"))
        allowed[card] = places
    return allowed


def _choice_card(deal: Deal, steps: list[Step]) -> dict[Card, tuple[int, str]]:
    """At a choice under way: its card (the rule table's choice point), with its chooser (a
    seat, from 1)."""
    if not steps or steps[-1].choice is None:
        return {}
    choice = steps[-1].choice
    point = compile_rules(deal.rules).choice(choice.kind)
    return {point.card: (choice.chooser, point.option)} if point is not None else {}


def _partial_players(step: Step) -> dict[Card, int]:
    """Who played each card of a run under way (the seat saw them played; seats from 1)."""
    assert step.choice is not None
    run = outcomes(step.choice)[0]
    return dict(zip(run.cards[:len(step.partial)], run.seats, strict=False))


def _exempt_text(found: Mask, n: int) -> str:
    if found == 1 << n:
        return "every player with cards left paid the one out, so it is dead"
    seats = ", ".join(str(s + 1) for s in iter_mask(found))
    return f"seat {seats} did not pay the one out: it holds the exempt card"


def _dead_check(deal: Deal, steps: list[Step], position: Position, card: Card, third: int,
                places: Mask, inferences: list[Inference]) -> Mask:
    """Narrow a dead card's places to the dead hand if the play shows it is dead."""
    n = deal.players
    game = position.game
    index = dead_evidence(game, steps, card, third)
    if index is not None:
        rule, text = dead_text(card, steps[index], index, deal.rules)
        inferences.append(Inference(card, 1 << n, rule, text))
        return places & 1 << n
    below = deal.rules.table.predecessor[card]
    if below >= 0 and deal.played_mask >> below & 1:
        inferences.append(Inference(card, 1 << n, "runs climb",
                                    f"{card_name(card)} is dead: {card_name(below)} was played "
                                    f"and the run it was in did not go on to it"))
        return places & 1 << n
    return places


def _narrow(allowed: dict[Card, Mask], sizes: tuple[int, ...], seat: int, seen_dead: Mask,
            inferences: list[Inference]) -> dict[Card, Mask]:
    """Each card's places narrowed to those some deal of the right hand sizes uses (exact)."""
    n = len(sizes) - 1
    while True:  # a place with no room left is no place (a card known elsewhere takes room)
        known = [0] * n + [seen_dead]
        for card, places in allowed.items():
            if places & (places - 1) == 0:
                known[places.bit_length() - 1] |= 1 << card
        need = [sizes[loc] - known[loc].bit_count() for loc in range(n + 1)]
        need[seat] = 0
        room = sum(1 << loc for loc in range(n + 1) if need[loc] > 0)
        narrowed = {c: p & room if p & (p - 1) else p for c, p in allowed.items()}
        if narrowed == allowed:
            break
        allowed = narrowed
    hidden = [(c, p) for c, p in allowed.items() if p & (p - 1)]
    groups = group_cards(hidden)
    result = dict(allowed)
    for index, group in enumerate(groups):
        exact = 0
        for loc in iter_mask(group.places):
            if can_place(groups, index, loc, need):
                exact |= 1 << loc
        if exact != group.places:
            for card in group.cards:
                result[card] = exact
                inferences.append(Inference(card, exact, "hand sizes",
                                            f"{card_name(card)}: by the hand sizes it can only "
                                            f"be {_where(exact, n)}"))
    return result


def _where(places: Mask, n: int) -> str:
    return " or ".join("dead" if p == n else f"with seat {p + 1}" for p in iter_mask(places))


def _assemble(deal: Deal, seat: int, position: Position, line: tuple[Run, ...],
              partial: tuple[Card, ...] | None, turnup: Card | None, own: Mask,
              allowed: dict[Card, Mask], inferences: list[Inference]) -> Knowledge:
    n = deal.players
    game, played = position.game, position.played
    places = [0] * (n + 1)
    known = [0] * (n + 1)
    for card, where in allowed.items():
        if where & (where - 1) == 0:
            known[where.bit_length() - 1] |= 1 << card
        else:
            for loc in iter_mask(where):
                places[loc] |= 1 << card
    turn_mask = 1 << turnup if turnup is not None else 0
    seen_dead = _public(deal, seat, position)[1]
    known_dead = known[n] | seen_dead | turn_mask
    sizes = _sizes(game, played, n, deal.dead)
    need = [sizes[loc] - known[loc].bit_count() for loc in range(n)]
    need[seat] = 0
    need.append(sizes[n] - known_dead.bit_count())
    hidden = 0
    for mask in places:
        hidden |= mask
    winner = game.winner(played)
    return Knowledge(
        seat=seat + 1, rules=deal.rules, players=n, own=own, turnup=turnup,
        played=tuple(game.dealt[s] & played for s in range(n)), leader=position.leader,
        board=_board(deal, position), hand_sizes=sizes[:n], dead_size=sizes[n],
        hidden=hidden, places=tuple(places), need=tuple(need), known_dead=known_dead,
        inferences=tuple(i for i in inferences if not played >> i.card & 1),
        line=line, known_held=tuple(known[s] for s in range(n)),
        deal_board=deal.board if not line else _board(deal, position),
        winner=winner,
        pending=partial or (), turnup_ended=turnup_ends_deal(deal))
