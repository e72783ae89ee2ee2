"""The Python API checks its arguments at the boundary: every bad argument to every public
function (the package's ``__all__``, ``Position.from_deal``, the deal's own constructor and
``dataclasses.replace``) is a :class:`PopeJoanError`, never an ``IndexError``,
``AttributeError``, ``TypeError`` or ``OverflowError``, and never a silent answer about a
deal that cannot be (docs/contract.md, "The Python API").

The calls go through ``popejoan_solver`` typed as ``Any``: they are wrong on purpose.
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import popejoan_solver
from popejoan_solver import (
    advise,
    analyse_stops,
    deal_from_line,
    deal_random,
    hoyle_dead_hand,
    parse_deal_text,
)
from popejoan_solver.bots.driver import decision_rng
from popejoan_solver.cli.inputs import read_deal
from popejoan_solver.model.cards import POPE, iter_mask
from popejoan_solver.model.deal import Deal, position_deal, validate
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.record import Play
from popejoan_solver.model.rules import RULESETS, get_ruleset
from popejoan_solver.model.settlement import best_without_going_out, net
from popejoan_solver.seat import knowledge, sample_deals

api: Any = popejoan_solver
R = dataclasses.replace
D = api.hoyle_dead_hand()
"""Hoyle's dead-hand deal: four players, eleven cards each, seven dead, K♣ turned up."""


def played_from(deal: Deal, leads: int, seed: int = 1, keep: int = 0,
                ) -> tuple[Deal, list[Run]]:
    """The position after up to ``leads`` random runs from ``deal`` (fewer if the deal would
    end, or fewer than ``keep`` cards be left in the hands), as a deal with its played cards,
    and the runs."""
    rng = random.Random(seed)
    position = Position.from_deal(deal)
    line: list[Run] = []
    for _ in range(leads):
        runs = [run for lead in position.legal_leads() for run in position.outcomes(lead)]
        if not runs:
            break
        run = rng.choice(runs)
        after = position.after(run)
        left = sum(after.game.held(after.played, s).bit_count()
                   for s in range(1, deal.players + 1))
        if after.is_over or left < keep:
            break
        position = after
        line.append(run)
    return position_deal(deal, position, deal.board), line


P = played_from(D, 3)[0]
"""A position of Hoyle's deal three runs in."""


def _card(name: str) -> int:
    return int(api.parse_card(name))


def _moved(deal: Deal, card: int, seat: int) -> Deal:
    """``deal`` with ``card`` taken from the hand that holds it into hand ``seat`` (0-based)."""
    bit = 1 << card
    return R(deal, hands=tuple((h & ~bit) | (bit if s == seat else 0)
                               for s, h in enumerate(deal.hands)))


def only_seat_4_played() -> Deal:
    """Hoyle's deal with one card of seat 4 played and seat 4 to lead: eldest never led."""
    card = 1 << min(iter_mask(D.hands[3]))
    return Deal((*D.hands[:3], D.hands[3] & ~card), D.dead, D.turnup, D.rules, None,
                (0, 0, 0, card), 4)


def pope_turned_up() -> Deal:
    """The position ``P`` with the Pope moved to the dead hand and turned up, under
    early-hoyle, whose Pope turned up ends the deal unplayed: no card can have been played."""
    off = ~(1 << POPE)
    return Deal(tuple(h & off for h in P.hands), P.dead | 1 << POPE, POPE,
                get_ruleset("early-hoyle"), None, tuple(p & off for p in P.played), P.leader)


# Calls that today's code answered without a word, or failed on with another error.
BAD_CALLS: list[tuple[str, Callable[[], object]]] = [
    # A Deal built directly or by dataclasses.replace is checked as the notation is.
    ("replace(deal, leader=3)", lambda: R(D, leader=3)),
    ("solve(replace(deal, leader=3))", lambda: api.solve(R(D, leader=3), time_limit=0.1)),
    ("replace(deal, turnup=0): not dead", lambda: R(D, turnup=0)),
    ("replace(deal, turnup=-1)", lambda: R(D, turnup=-1)),
    ("replace(deal, turnup=52)", lambda: R(D, turnup=52)),
    ("replace(deal, turnup='KC')", lambda: R(D, turnup="KC")),
    ("replace(deal, turnup=True)", lambda: R(D, turnup=True)),
    ("a hand holding another seat's card", lambda: R(D, hands=(D.hands[0] | D.hands[1],
                                                                *D.hands[1:]))),
    ("a card moved out of the dead hand",
     lambda: R(D, dead=D.dead & ~(1 << _card("JD")))),
    ("replace(deal, hands=())", lambda: R(D, hands=())),
    ("replace(deal, hands=5)", lambda: R(D, hands=5)),
    ("replace(deal, hands=None)", lambda: R(D, hands=None)),
    ("a hand of -1", lambda: R(D, hands=(-1, *D.hands[1:]))),
    ("a hand of 'AC'", lambda: R(D, hands=("AC", *D.hands[1:]))),
    ("a hand past 52 cards", lambda: R(D, hands=(D.hands[0] | 1 << 60, *D.hands[1:]))),
    ("a hand with the 8D", lambda: R(D, hands=(D.hands[0] | 1 << _card("8D"),
                                                *D.hands[1:]))),
    ("replace(deal, dead=0)", lambda: R(D, dead=0)),
    ("replace(deal, dead=-1)", lambda: R(D, dead=-1)),
    ("replace(deal, dead=1.5)", lambda: R(D, dead=1.5)),
    ("replace(deal, rules='peel')", lambda: R(D, rules="peel")),
    ("replace(deal, rules=None)", lambda: R(D, rules=None)),
    ("replace(deal, board=5)", lambda: R(D, board=5)),
    ("replace(deal, board={})", lambda: R(D, board={})),
    ("a board compartment the ruleset lacks",
     lambda: R(api.deal_random(4, 1, "spinado"), board=api.Board(pope=3))),
    ("replace(deal, played=(1,))", lambda: R(D, played=(1,))),
    ("replace(deal, played=5)", lambda: R(D, played=5)),
    ("replace(deal, leader=True)", lambda: R(D, leader=True)),
    ("replace(deal, leader=-1)", lambda: R(D, leader=-1)),
    ("replace(deal, leader=0)", lambda: R(D, leader=0)),
    ("replace(deal, leader=5)", lambda: R(D, leader=5)),
    ("replace(deal, leader=1.0)", lambda: R(D, leader=1.0)),
    ("Deal(...) with a position play cannot reach", lambda: only_seat_4_played()),
    ("a position with seat 1 to lead where no line leaves it the lead", lambda: R(P, leader=1)),
    ("a position played after a Pope turn-up that ends the deal", lambda: pope_turned_up()),
    ("Deal.create(5, 0, 0)", lambda: api.Deal.create(5, 0, 0)),
    ("deal.with_rules('peel')", lambda: D.with_rules("peel")),
    ("deal_random(4, 1, board=5)", lambda: api.deal_random(4, 1, board=5)),
    # solve
    ("solve(time_limit=10**400)", lambda: api.solve(D, time_limit=10**400)),
    ("solve(with_line='no')", lambda: api.solve(D, with_line="no", time_limit=0.1)),
    ("solve(with_line=None)", lambda: api.solve(D, with_line=None, time_limit=0.1)),
    ("solve(with_line=1)", lambda: api.solve(D, with_line=1, time_limit=0.1)),
    # advise
    ("advise(time_limit=10**400)", lambda: api.advise(D, 1, time_limit=10**400, samples=2)),
    # card_name, parse_card, CardSet
    ("card_name(-1)", lambda: api.card_name(-1)),
    ("card_name(52)", lambda: api.card_name(52)),
    ("card_name('KS')", lambda: api.card_name("KS")),
    ("card_name(True)", lambda: api.card_name(True)),
    ("card_name(None)", lambda: api.card_name(None)),
    ("card_name(1.0)", lambda: api.card_name(1.0)),
    ("parse_card(5)", lambda: api.parse_card(5)),
    ("parse_card(None)", lambda: api.parse_card(None)),
    ("parse_card(b'KS')", lambda: api.parse_card(b"KS")),
    ("CardSet('x')", lambda: api.CardSet("x")),
    ("CardSet(True)", lambda: api.CardSet(True)),
    ("CardSet.parse(5)", lambda: api.CardSet.parse(5)),
    # prove
    ("prove('parlett')", lambda: api.prove("parlett")),
    ("prove(5)", lambda: api.prove(5)),
    ("prove(None)", lambda: api.prove(None)),
    ("prove(rules, 5)", lambda: api.prove(get_ruleset("parlett"), 5)),
    ("prove(rules, [5])", lambda: api.prove(get_ruleset("parlett"), [5])),
    ("prove(rules, workspace='x')",
     lambda: api.prove(get_ruleset("parlett"), ["kings-are-stops"], "x")),
    # find_deals and its query
    ("find_deals(None)", lambda: api.find_deals(None)),
    ("find_deals('forced-win')", lambda: api.find_deals("forced-win")),
    ("FindQuery with a property's name",
     lambda: api.find_deals(api.FindQuery("forced-win", get_ruleset("parlett"), 4))),
    ("FindQuery with a ruleset's name",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, "parlett", 4))),
    ("FindQuery(players=4.0)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"),
                                          4.0))),
    ("FindQuery(seat=True)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          True))),
    ("FindQuery(count=True)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          count=True))),
    ("FindQuery(hold=5)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          hold=5))),
    ("FindQuery(hold={0: 'KH'})",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          hold={0: "KH"}))),
    ("FindQuery(dead=-1)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          dead=-1))),
    ("FindQuery(time_limit=10**400)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          time_limit=10**400))),
    ("FindQuery holding a two under Spinado",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("spinado"), 4,
                                          hold={0: 1 << _card("2C")}, time_limit=5))),
    ("Property('forced-wins')", lambda: api.Property("forced-wins")),
    # the notation and the deal's warnings
    ("deal_to_line(None)", lambda: api.deal_to_line(None)),
    ("deal_to_line('x | y ^KC')", lambda: api.deal_to_line("x | y ^KC")),
    ("deal_to_json(None)", lambda: api.deal_to_json(None)),
    ("deal_warnings(None)", lambda: api.deal_warnings(None)),
    # settle: the winner is a seat from 1, None (or -1, as before None) for none
    ("settle(None, 0, -1)", lambda: api.settle(None, 0, -1)),
    ("settle(deal, 'x', -1)", lambda: api.settle(D, "x", -1)),
    ("settle(deal, -1, -1)", lambda: api.settle(D, -1, -1)),
    ("settle(deal, 0, 7)", lambda: api.settle(D, 0, 7)),
    ("settle(deal, 0, True)", lambda: api.settle(D, 0, True)),
    ("settle(deal, 0, -5)", lambda: api.settle(D, 0, -5)),
    ("settle(deal, 0, 0): no seat 0", lambda: api.settle(D, 0, 0)),
    ("settle(deal, 0, 1): seat 1 has not gone out", lambda: api.settle(D, 0, 1)),
    ("settle(deal, every card, 1): every seat is out", lambda: api.settle(D, D.in_play, 1)),
    ("settle(deal, a dead card, -1)", lambda: api.settle(D, 1 << D.turnup, -1)),
    ("settle(position, less than it played, -1)", lambda: api.settle(P, 0, -1)),
    # the deal's play and views of it
    ("Position.from_deal(None)", lambda: api.Position.from_deal(None)),
    ("Position.from_deal('x | y ^KC')", lambda: api.Position.from_deal("x | y ^KC")),
    ("Game.from_deal(5)", lambda: api.Game.from_deal(5)),
    ("Game.holder(52)", lambda: api.Game.from_deal(D).holder(52)),
    ("view(deal, 1, [a Run of no cards])",
     lambda: api.view(D, 1, [api.Run(1, (), (), api.StopReason.TOP, 1, None)])),
    ("view(deal, 1, [a Run led with 'x'])",
     lambda: api.view(D, 1, [api.Run(1, ("x",), (1,), api.StopReason.TOP, 1, None)])),
    ("Position.play('x')", lambda: api.Position.from_deal(D).play("x")),
    ("Position.outcomes(None)", lambda: api.Position.from_deal(D).outcomes(None)),
    ("Position.after(None)", lambda: api.Position.from_deal(D).after(None)),
    ("ruleset.with_options(5)", lambda: api.get_ruleset("parlett").with_options(5)),
    ("ruleset.with_options({5: 'high'})",
     lambda: api.get_ruleset("parlett").with_options({5: "high"})),
    ("View('dealer')", lambda: api.View("dealer")),
    ("Compartment('kitty')", lambda: api.Compartment("kitty")),
]

# Calls refused before these checks (kept so that every public function is in one table).
STILL_REFUSED: list[tuple[str, Callable[[], object]]] = [
    ("solve(None)", lambda: api.solve(None)),
    ("solve(time_limit=inf)", lambda: api.solve(D, time_limit=float("inf"))),
    ("solve(time_limit=0)", lambda: api.solve(D, time_limit=0)),
    ("solve(time_limit=True)", lambda: api.solve(D, time_limit=True)),
    ("solve(engine='x')", lambda: api.solve(D, engine="x", time_limit=0.1)),
    ("solve(seats=[0])", lambda: api.solve(D, seats=[0])),
    ("solve(seats=[1, 1])", lambda: api.solve(D, seats=[1, 1])),
    ("solve(line_seat=True)", lambda: api.solve(D, line_seat=True)),
    ("solve(threads=0)", lambda: api.solve(D, threads=0)),
    ("solve(tt_entries=0)", lambda: api.solve(D, tt_entries=0)),
    ("solve(engine=['fast'])", lambda: api.solve(D, engine=["fast"], time_limit=0.1)),
    ("solve(seats=[1.0])", lambda: api.solve(D, seats=[1.0], time_limit=0.1)),
    ("prove(rules, 'kings-are-stops')",
     lambda: api.prove(get_ruleset("parlett"), "kings-are-stops")),
    ("view(None, 1)", lambda: api.view(None, 1)),
    ("view(deal, 0)", lambda: api.view(D, 0)),
    ("view(deal, True)", lambda: api.view(D, True)),
    ("view(deal, 1, 5)", lambda: api.view(D, 1, 5)),
    ("view(deal, 1, ['ZZ'])", lambda: api.view(D, 1, ["ZZ"])),
    ("advise(None, 1)", lambda: api.advise(None, 1)),
    ("advise(deal, 0)", lambda: api.advise(D, 0)),
    ("advise(samples=True)", lambda: api.advise(D, 1, samples=True)),
    ("advise(exact='no')", lambda: api.advise(D, 1, exact="no")),
    ("advise(model=5)", lambda: api.advise(D, 1, model=5)),
    ("advise(time_limit=nan)", lambda: api.advise(D, 1, time_limit=float("nan"))),
    ("advise(workers=0)", lambda: api.advise(D, 1, workers=0)),
    ("analyse_stops(None)", lambda: api.analyse_stops(None)),
    ("analyse_stops(deal, 'player')", lambda: api.analyse_stops(D, "player")),
    ("deal_random(4.0, 1)", lambda: api.deal_random(4.0, 1)),
    ("deal_random(4, True)", lambda: api.deal_random(4, True)),
    ("deal_random(4, 1, rules=5)", lambda: api.deal_random(4, 1, 5)),
    ("deal_from_json(5)", lambda: api.deal_from_json(5)),
    ("deal_from_line(None)", lambda: api.deal_from_line(None)),
    ("parse_deal_text(b'x')", lambda: api.parse_deal_text(b"x | y ^2S")),
    ("parse_card('ZZ')", lambda: api.parse_card("ZZ")),
    ("CardSet(-1)", lambda: api.CardSet(-1)),
    ("get_ruleset(None)", lambda: api.get_ruleset(None)),
    ("get_ruleset('nope')", lambda: api.get_ruleset("nope")),
    ("prove(rules, ['no-such-theorem'])",
     lambda: api.prove(get_ruleset("parlett"), ["no-such-theorem"])),
    ("Board(pope=-1)", lambda: api.Board(pope=-1)),
    ("Board(pope=True)", lambda: api.Board(pope=True)),
    ("FindQuery(count=0)",
     lambda: api.find_deals(api.FindQuery(api.Property.FORCED_WIN, get_ruleset("parlett"), 4,
                                          count=0))),
]


@pytest.mark.parametrize(("call", "function"), BAD_CALLS, ids=[c for c, _ in BAD_CALLS])
def test_a_bad_argument_is_a_popejoan_error(call: str, function: Callable[[], object]) -> None:
    with pytest.raises(PopeJoanError):
        function()


@pytest.mark.parametrize(("call", "function"), STILL_REFUSED,
                         ids=[c for c, _ in STILL_REFUSED])
def test_a_bad_argument_stays_a_popejoan_error(call: str,
                                               function: Callable[[], object]) -> None:
    with pytest.raises(PopeJoanError):
        function()


def test_every_public_function_is_in_a_table() -> None:
    """A public function added to ``__all__`` gets its bad calls here too."""
    named = " ".join(call for call, _ in [*BAD_CALLS, *STILL_REFUSED])
    functions = [name for name in api.__all__
                 if callable(getattr(api, name)) and not isinstance(getattr(api, name), type)]
    assert [name for name in functions if f"{name}(" not in named
            and name != "hoyle_dead_hand"] == []


@pytest.mark.parametrize(("make", "message"), [
    (lambda: R(D, leader=3), "position cannot arise in play: with no card played, eldest"),
    (lambda: R(D, turnup=0), "the turn-up AC is not in the dead hand"),
    (lambda: R(D, hands=(D.hands[0] | D.hands[1], *D.hands[1:])), "is dealt twice"),
    (lambda: R(D, rules="peel"), "rules must be a Ruleset"),
    (lambda: R(D, leader=True), "leader must be a whole number"),
    (lambda: api.card_name(-1), "a card must be a card index from 0 to 51"),
    (lambda: api.solve(D, time_limit=10**400), "must be a finite number of seconds"),
    (lambda: api.solve(D, with_line="no"), "with_line must be True or False, not 'no'"),
    (lambda: api.prove("parlett"), r"get_ruleset\('parlett'\)"),
    (only_seat_4_played, "eldest \\(seat 1\\) leads first, but has played no card"),
    (pope_turned_up, "the turn-up 9D ends the deal unplayed under early-hoyle"),
    (lambda: R(P, leader=1), "no sequence of legal leads plays these cards and leaves seat 1"),
    (lambda: R(D, hands=(-1, *D.hands[1:])), "hand 1 must be a set of cards"),
])
def test_the_message_names_the_fault(make: Callable[[], object], message: str) -> None:
    """The message is the command line's where the command line has one (the deal's checks
    are the notation's) and names the argument otherwise."""
    with pytest.raises(PopeJoanError, match=message):
        make()


def test_the_deal_and_the_notation_say_the_same() -> None:
    """The error from a Deal built by hand is the one the notation gives for the same deal:
    both are the deal's own check."""
    bad = (D.hands[0] | D.hands[1], *D.hands[1:])
    with pytest.raises(PopeJoanError) as direct:
        R(D, hands=bad)
    with pytest.raises(PopeJoanError) as written:
        api.deal_from_json({"hands": [str(api.CardSet(m)) for m in bad],
                            "dead": str(api.CardSet(D.dead)), "turnup": "KC"})
    assert str(direct.value) == str(written.value)


def test_a_valid_deal_is_built_as_before() -> None:
    """Lists become tuples (a deal is hashable), a played tuple with no card is a fresh deal,
    and ``replace`` with valid fields gives the deal the notation reads."""
    listed = api.Deal(list(D.hands), D.dead, D.turnup, D.rules)
    assert listed == D
    assert hash(listed) == hash(D)
    assert R(D, played=(0, 0, 0, 0)) == D
    assert R(D, played=(0, 0, 0, 0)).is_fresh
    other = next(c for c in iter_mask(D.dead) if c != D.turnup)
    assert R(D, turnup=other) == api.deal_from_line(
        api.deal_to_line(D).replace(f"^{api.card_name(D.turnup)}", f"^{api.card_name(other)}"))
    assert R(P, board=api.Board()) == P.with_board(api.Board())


def test_reached_keeps_the_cheap_checks() -> None:
    """The trusted constructor skips only the reachability search: a card dealt twice, a
    turn-up outside the dead hand or a fresh deal with seat 3 to lead is still refused."""
    with pytest.raises(PopeJoanError, match="dealt twice"):
        Deal.reached((D.hands[0] | D.hands[1], *D.hands[1:]), D.dead, D.turnup, D.rules,
                     None, (), 0)
    with pytest.raises(PopeJoanError, match="not in the dead hand"):
        Deal.reached(D.hands, D.dead, 0, D.rules, None, (), 0)
    with pytest.raises(PopeJoanError, match="eldest"):
        Deal.reached(D.hands, D.dead, D.turnup, D.rules, None, (), 2)


@pytest.mark.parametrize("rules", list(RULESETS))
def test_the_positions_built_without_the_search_are_reachable(rules: str) -> None:
    """The hot paths build positions without the reachability search (Deal.reached): the
    positions play reaches, and a seat's samples there. Each passes the full check."""
    for index in range(3):
        deal = api.deal_random(4, 11, rules, index)
        position, line = played_from(deal, 3, seed=index)
        validate(position)
        for sample in sample_deals(knowledge(deal, position.leader, line), 20, index):
            validate(sample)


# --------------------------------------------------------------------------- hypothesis

SMALL = [played_from(api.deal_random(4, seed, rules), 40, seed, keep=12)[0]
         for rules in ("hoyle-modernized", "britannica", "spinado", "peel")
         for seed in range(2)]
"""Positions late in play (about a dozen cards left in the hands), solved in milliseconds."""


@st.composite
def replacements(draw: st.DrawFn) -> tuple[Deal, dict[str, Any]]:
    """A late position and fields to replace in it: cards moved between places, a seat to
    lead, a turn-up, a ruleset, a board; well-formed or not."""
    deal = draw(st.sampled_from(SMALL))
    n = deal.players
    field = draw(st.sampled_from(["move", "leader", "turnup", "rules", "board", "raw"]))
    if field == "move":
        places = [*deal.hands, deal.dead, *(deal.played or (0,) * n)]
        card = draw(st.sampled_from(list(iter_mask(deal.rules.table.pack))))
        to = draw(st.integers(0, len(places) - 1))
        bit = 1 << card
        moved = [(p & ~bit) | (bit if i == to else 0) for i, p in enumerate(places)]
        return deal, {"hands": tuple(moved[:n]), "dead": moved[n],
                      "played": tuple(moved[n + 1:])}
    if field == "leader":
        return deal, {"leader": draw(st.integers(-2, 9) | st.booleans() | st.just(1.0))}
    if field == "turnup":
        return deal, {"turnup": draw(st.sampled_from(list(iter_mask(deal.dead)))
                                     | st.integers(-2, 55) | st.just("KC"))}
    if field == "rules":
        return deal, {"rules": draw(st.sampled_from([get_ruleset(r) for r in RULESETS])
                                    | st.sampled_from(list(RULESETS)))}
    if field == "board":
        return deal, {"board": draw(st.none() | st.builds(api.Board, pope=st.integers(0, 9),
                                                          game=st.integers(0, 9))
                                    | st.just(5))}
    name = draw(st.sampled_from(["hands", "dead", "played"]))
    value = draw(st.integers(-1, (1 << 53)) | st.tuples(*[st.integers(0, 1 << 52)] * n)
                 | st.none())
    return deal, {name: value}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(replacements())
def test_a_replaced_deal_is_refused_or_solves_consistently(
        case: tuple[Deal, dict[str, Any]]) -> None:
    """``dataclasses.replace`` of a valid deal either raises a PopeJoanError or gives a deal
    the notation reads back as itself (so the command line would analyse the same deal) and
    that both engines solve alike."""
    deal, changes = case
    try:
        changed = R(deal, **changes)
    except PopeJoanError:
        return
    assert api.deal_from_line(api.deal_to_line(changed)) == changed
    fast = api.solve(changed, with_line=False, threads=1)
    reference = api.solve(changed, with_line=False, threads=1, engine="reference")
    assert fast.seats == reference.seats


@pytest.mark.parametrize("limit", [math.nan, math.inf, 0.0, -1.0])
def test_the_python_api_refuses_a_time_limit_that_is_no_limit(limit: float) -> None:
    # NaN never runs out: from Python (not only through the parser) it was an unbounded solve.
    from popejoan_solver.search import forced_win, solve
    deal = read_deal(None)
    with pytest.raises(PopeJoanError, match="time-limit"):
        solve(deal, time_limit=limit)
    with pytest.raises(PopeJoanError, match="time-limit"):
        forced_win(deal, 1, time_limit=limit)


API_WRONG_TYPES = [
    ("deal_random(4.0, 1)", lambda: deal_random(4.0, 1)),  # type: ignore[arg-type]
    ("deal_random(4, 1.0)", lambda: deal_random(4, 1.0)),  # type: ignore[arg-type]
    ("deal_random(4, None)", lambda: deal_random(4, None)),  # type: ignore[arg-type]
    ("deal_random(4, True)", lambda: deal_random(4, True)),
    ("deal_random(4, 1, index=-1)", lambda: deal_random(4, 1, index=-1)),
    ("deal_random(4, 1, rules=5)", lambda: deal_random(4, 1, 5)),  # type: ignore[arg-type]
    ("get_ruleset(None)", lambda: get_ruleset(None)),  # type: ignore[arg-type]
    ("get_ruleset(5)", lambda: get_ruleset(5)),  # type: ignore[arg-type]
    ("analyse_stops(None)", lambda: analyse_stops(None)),  # type: ignore[arg-type]
    ("analyse_stops('deal')", lambda: analyse_stops("deal")),  # type: ignore[arg-type]
    ("analyse_stops(deal, 'player')",
     lambda: analyse_stops(hoyle_dead_hand(), "player")),  # type: ignore[arg-type]
    ("deal_from_line(None)", lambda: deal_from_line(None)),  # type: ignore[arg-type]
    ("parse_deal_text(b'...')", lambda: parse_deal_text(b"x | y ^2S")),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("call", "function"), API_WRONG_TYPES, ids=[c for c, _ in API_WRONG_TYPES])
def test_python_api_wrong_types_are_bad_input(call: str, function: Callable[[], object]) -> None:
    """From Python, a wrong type (None, a number for a ruleset name, a float player count, a
    float, None or True as a seed) is a PopeJoanError, never an AttributeError, a TypeError or
    silently another deal."""
    with pytest.raises(PopeJoanError):
        function()


def test_python_api_still_takes_what_it_documents() -> None:
    """A ruleset may be named; string seeds and negative seeds stay (they are documented)."""
    assert deal_random(4, 1, "peel") == deal_random(4, 1, get_ruleset("peel"))
    assert deal_random(4, "club night").players == 4
    assert deal_random(4, -1).players == 4


@pytest.mark.parametrize(("name", "value"), [("samples", True), ("samples", 1.5),
                                             ("seed", None), ("seed", "7"), ("workers", True)])
def test_advise_refuses_arguments_of_the_wrong_type(name: str, value: object) -> None:
    """A bool, float, None or string where ``advise`` takes a whole number is one PopeJoanError,
    never a run with True taken as 1 or an unseeded draw."""
    with pytest.raises(PopeJoanError, match=name):
        advise(deal_random(4, 1), 1, **{name: value})  # type: ignore[arg-type]


SOLVE_WRONG_TYPES = [
    ("seats=[True]", {"seats": [True]}),  # was solved as seat 1, reported as seat True
    ("seats=1", {"seats": 1}),  # TypeError
    ("seats='1'", {"seats": "1"}),  # TypeError
    ("seats=[1.0]", {"seats": [1.0]}),  # TypeError
    ("time_limit=True", {"seats": [1], "time_limit": True}),  # was taken as 1 second
    ("tt_entries=True", {"seats": [1], "tt_entries": True}),  # was a table of one entry
    ("threads=True", {"seats": [1], "threads": True}),  # was one thread
    ("line_seat=True", {"seats": [1], "line_seat": True}),
    ("seats=[1, 1]", {"seats": [1, 1]}),  # was solved and reported twice
    ("threads=1.5", {"seats": [1], "threads": 1.5}),
]


@pytest.mark.parametrize(("call", "kwargs"), SOLVE_WRONG_TYPES,
                         ids=[c for c, _ in SOLVE_WRONG_TYPES])
def test_solve_refuses_wrong_argument_types(call: str, kwargs: dict[str, object]) -> None:
    from popejoan_solver import hoyle_dead_hand, solve

    with pytest.raises(PopeJoanError):
        solve(hoyle_dead_hand(), **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("call", [
    "solve(None)",
    "advise(None, 1)", "advise(deal, 1, line=5)"])
def test_solve_and_advise_refuse_what_is_not_a_deal_or_line(call: str) -> None:
    from popejoan_solver import advise, hoyle_dead_hand, solve

    calls: dict[str, Callable[[], object]] = {
        "solve(None)": lambda: solve(None),  # type: ignore[arg-type]
        "advise(None, 1)": lambda: advise(None, 1, samples=1),  # type: ignore[arg-type]
        "advise(deal, 1, line=5)":
            lambda: advise(hoyle_dead_hand(), 1, samples=1, line=5)}  # type: ignore[arg-type]
    with pytest.raises(PopeJoanError):
        calls[call]()


# ----------------------------------------------------------------------- seats from 1

def _first_run_with_another_leader() -> tuple[Deal, Run, Run]:
    """The position of Hoyle's deal where a seat other than eldest first leads (after one
    run), the run that put it on lead and that seat's first lead's run."""
    position = Position.from_deal(D)
    for lead in position.legal_leads():
        run, after = position.play(lead)
        if after.leader not in (None, 1) and not after.is_over:
            deal = position_deal(D, after, D.board)
            return deal, run, after.play(after.legal_leads()[0])[0]
    raise AssertionError("every first lead of Hoyle's deal leaves eldest on lead")


def test_the_public_api_counts_seats_from_1() -> None:
    """A position led by a seat other than eldest: ``Deal.leader``, ``Position.leader``, the
    runs' seats, the solution, the view and the settlement's parties all name it by its
    number from 1, the same number as the JSON (whose seats always counted from 1)."""
    deal, first, second = _first_run_with_another_leader()
    seat = deal.leader
    assert 2 <= seat <= deal.players
    assert first.leader == 1
    assert first.next_leader == seat == first.leader_after
    assert (first.to_json()["seat"], first.to_json()["next_leader"]) == (1, seat)
    assert api.deal_to_json(deal)["to_lead"] == seat
    assert api.deal_from_line(api.deal_to_line(deal)).leader == seat
    assert Position.from_deal(deal).leader == seat
    assert second.leader == seat == second.seats[0] == second.to_json()["seat"]
    assert list(second.seats) == second.to_json()["played_by"]
    assert all(1 <= s <= deal.players for s in second.seats)
    assert all(D.holder(c) == s for c, s in zip(second.cards, second.seats, strict=True))
    solution = api.solve(deal, with_line=True, threads=1)
    assert solution.leader == seat == solution.to_json()["leader"]
    assert [s.seat for s in solution.seats] == list(range(1, deal.players + 1))
    assert solution.line[0].run.leader == seat
    k = api.view(deal, seat)
    assert (k.seat, k.leader, k.winner) == (seat, seat, None)
    end = Position.from_deal(deal)
    while not end.is_over:
        end = end.play(end.legal_leads()[0])[1]
    assert end.winner is not None
    assert 1 <= end.winner <= deal.players
    assert not end.game.held(end.played, end.winner)
    settled = api.settle(deal, end.played, end.winner)
    paid = [*settled.turnup, *settled.play]
    assert {t.payee for t in paid if t.kind is api.TransferKind.GAME} == {end.winner}
    for t in (*settled.dressing, *paid):
        data = t.to_json()
        for party, shown in ((t.payer, data["from"]), (t.payee, data["to"])):
            assert shown == (party.value if isinstance(party, api.Compartment) else party)
    assert deal.board is None  # dressed: every counter on the board came from the seats
    assert sum(settled.net(s, include_dressing=True)
               for s in range(1, deal.players + 1)) == -settled.board_after.total()


def _game() -> Any:
    return api.Game.from_deal(D)


_LEAD = min(iter_mask(D.hands[0]))
_KIND = api.TransferKind.GAME
SEAT_ZERO_OR_PAST: list[tuple[str, Callable[[], object]]] = [
    ("Deal(leader=0)", lambda: Deal(D.hands, D.dead, D.turnup, D.rules, None, (), 0)),
    ("Deal.create(leader=0)", lambda: Deal.create(D.hands, D.dead, D.turnup, leader=0)),
    ("Deal.create(leader=5)", lambda: Deal.create(D.hands, D.dead, D.turnup, leader=5)),
    ("replace(position, leader=0)", lambda: R(P, leader=0)),
    ("Position(game, 0, 0)", lambda: api.Position(_game(), 0, 0)),
    ("Position(game, 0, 5)", lambda: api.Position(_game(), 0, 5)),
    ("Run(leader=0)", lambda: api.Run(0, (_LEAD,), (1,), api.StopReason.TOP, 1, None)),
    ("Run(next_leader=0)", lambda: api.Run(1, (_LEAD,), (1,), api.StopReason.TOP, 0, None)),
    ("Run(winner=0)", lambda: api.Run(1, (_LEAD,), (1,), api.StopReason.OUT, None, 0)),
    ("game.legal_leads(0, 0)", lambda: _game().legal_leads(0, 0)),
    ("game.legal_leads(0, 5)", lambda: _game().legal_leads(0, 5)),
    ("game.run(0, 0, lead)", lambda: _game().run(0, 0, _LEAD)),
    ("game.runs(0, 0, lead)", lambda: _game().runs(0, 0, _LEAD)),
    ("game.run_tree(0, 0, lead)", lambda: _game().run_tree(0, 0, _LEAD)),
    ("game.forced_run(0, 0, lead)", lambda: _game().forced_run(0, 0, _LEAD)),
    ("game.forced_run(0, 5, lead)", lambda: _game().forced_run(0, 5, _LEAD)),
    ("game.held(0, 0)", lambda: _game().held(0, 0)),
    ("Transfer(payer=0)", lambda: api.Transfer(0, api.Compartment.POPE, 1, "x", _KIND)),
    ("Transfer(payee=0)", lambda: api.Transfer(api.Compartment.GAME, 0, 1, "x", _KIND)),
    ("net(transfers, 0)", lambda: net([], 0)),
    ("settle(deal, 0, 0)", lambda: api.settle(D, 0, 0)),
    ("settle(deal, every card of seat 1, 5)", lambda: api.settle(D, D.hands[0], 5)),
    ("FindQuery(seat=0)", lambda: api.find_deals(api.FindQuery(
        api.Property.FIRST_LEAD_OUT, get_ruleset("parlett"), 4, 0))),
    ("FindQuery(seat=5)", lambda: api.find_deals(api.FindQuery(
        api.Property.FIRST_LEAD_OUT, get_ruleset("parlett"), 4, 5))),
    ("FindQuery(hold={0: ...})", lambda: api.find_deals(api.FindQuery(
        api.Property.FIRST_LEAD_OUT, get_ruleset("parlett"), 4, 1, {0: 1 << _LEAD}))),
    ("FindQuery(hold={5: ...})", lambda: api.find_deals(api.FindQuery(
        api.Property.FIRST_LEAD_OUT, get_ruleset("parlett"), 4, 1, {5: 1 << _LEAD}))),
    ("view(deal, 0)", lambda: api.view(D, 0)),
    ("view(deal, 5)", lambda: api.view(D, 5)),
    ("knowledge(deal, 0)", lambda: knowledge(D, 0)),
    ("Play(0, card)", lambda: Play(0, _LEAD)),
    ("solve(seats=[0])", lambda: api.solve(D, seats=[0])),
    ("advise(deal, 0)", lambda: api.advise(D, 0, samples=1)),
    ("best_without_going_out(game, board, 0)",
     lambda: best_without_going_out(_game(), D.board_or_dressed, 0)),
    ("decision_rng(seed, label, 0, 0)", lambda: decision_rng(1, "", 0, 0)),
]


@pytest.mark.parametrize(("call", "function"), SEAT_ZERO_OR_PAST,
                         ids=[c for c, _ in SEAT_ZERO_OR_PAST])
def test_a_seat_0_or_past_the_table_is_refused(call: str, function: Callable[[], object]) -> None:
    """Seats count from 1: seat 0, or one past the table, is a PopeJoanError wherever a
    public constructor or function takes a seat, so a script written for seats from 0 fails
    at its first seat 0 rather than answering for another seat."""
    with pytest.raises(PopeJoanError):
        function()
