"""Bots: legal, reproducible, blind to what their seat cannot see; the registry's errors."""

from __future__ import annotations

import pytest

from popejoan_solver.advice.maxims import maxim_lead
from popejoan_solver.bots.base import BotError, LeadRequest
from popejoan_solver.bots.driver import decision_rng, play_deal, play_session, session_record
from popejoan_solver.bots.registry import make_bot, split_bots
from popejoan_solver.model.cards import card_name
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.play import Position
from popejoan_solver.model.referee import replay
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge, sample_deals
from popejoan_solver.studies.hoyle_maxims import hoyle_advice

FAIR = ("random", "lowest", "hoyle", "pimc:samples=4")
"""The bots that see only their seat's view (every one but the cheat)."""

CASES = [("hoyle-modernized", 4, 1, FAIR[:3]), ("parlett", 5, 2, FAIR[:3]),
         ("spinado", 3, 3, FAIR[:3]), ("peel+pope_in_lieu=run-continues", 6, 4, (*FAIR, "cheat")),
         ("britannica", 8, 6, (*FAIR, "cheat")), ("spinado", 7, 6, (*FAIR, "cheat"))]
"""The searching bots (pimc, cheat) where a search is quick: 6 players and more."""


def _line(played: object) -> list[str]:
    return [" ".join(card_name(c) for c in run.cards) for run in played.runs]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("rules", "players", "index", "specs"), CASES)
def test_every_bot_plays_legally_and_reproducibly(rules: str, players: int, index: int,
                                                   specs: tuple[str, ...]) -> None:
    """Every bot's deal is refereed legal, to the values the driver gave; played again from the
    same seed, the same line."""
    ruleset = get_ruleset(rules)
    deal = deal_random(players, 21, ruleset, index)
    bots = [make_bot(specs[s % len(specs)], 7) for s in range(players)]
    first = play_deal(deal, bots, 7, "0")
    again = play_deal(deal, [make_bot(b.name, 7) for b in bots], 7, "0")
    assert _line(first) == _line(again)
    result = replay(session_record([first], [b.name for b in bots]))
    assert result.error is None
    assert result.deals[0].values == first.values
    assert sum(first.values) + first.board_after.total() == 0  # a fresh board: all dressed


def test_a_session_carries_the_board_and_the_referee_agrees() -> None:
    rules = get_ruleset("hoyle-modernized")
    bots = [make_bot(s, 3) for s in ("hoyle", "random", "lowest")]
    played = play_session(rules, 3, 5, 0, 4, bots, 3)
    result = replay(session_record(played, ["a", "b", "c"]))
    assert result.error is None
    assert [d.values for d in result.deals] == [p.values for p in played]
    # Counters are conserved: what the players won the board lost, over the session.
    assert sum(result.totals) + played[-1].board_after.total() == 0


def _decide(spec: str, deal_line: object, seat: int, line: tuple[object, ...]) -> object:
    k = knowledge(deal_line, seat, line)  # type: ignore[arg-type]
    position = Position.from_deal(deal_line)  # type: ignore[arg-type]
    for run in line:
        position = position.after(run)  # type: ignore[arg-type]
    request = LeadRequest(k, tuple(position.legal_leads()), decision_rng(1, "0", seat, 3))
    return make_bot(spec, 1).lead(request)


@pytest.mark.parametrize("spec", FAIR)
def test_a_fair_bot_does_not_see_hidden_cards(spec: str) -> None:
    """Two true deals the seat cannot tell apart (a deal drawn from its own view, after the
    same runs) get the same decision from every bot but the cheat."""
    rules = get_ruleset("hoyle-modernized")
    deal = deal_random(6, 33, rules, 0)
    first = play_deal(deal, [make_bot("lowest") for _ in range(6)], 0)
    line = first.runs[:3]
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    seat = position.leader
    view = knowledge(deal, seat, line)
    others = [d.at_outset() for d in sample_deals(view, 3, 9)]
    decided = {_decide(spec, deal, seat, line)}
    for other in others:
        if knowledge(other, seat, line) == view:
            decided.add(_decide(spec, other, seat, line))
    assert len(decided) == 1


def test_hoyle_bot_is_the_first_lead_study_at_the_first_lead() -> None:
    rules = get_ruleset("hoyle-modernized")
    for index in range(40):
        deal = deal_random(4, 8, rules, index)
        k = knowledge(deal, 1)
        request = LeadRequest(k, tuple(Position.from_deal(deal).legal_leads()),
                              decision_rng(0, "", 1, 0))
        assert make_bot("hoyle").lead(request) == hoyle_advice(deal)[0]


def test_maxims_respect_a_lead_rule() -> None:
    """Under Parlett's lowest of a suit, the advised card is always a legal lead."""
    rules = get_ruleset("parlett")
    for index in range(40):
        deal = deal_random(4, 9, rules, index)
        legal = Position.from_deal(deal).legal_leads()
        assert maxim_lead(rules, deal.hands[0], 1 << deal.turnup, legal)[0] in legal


def test_pimc_takes_the_best_mean_lead_of_its_samples() -> None:
    """pimc's lead is one whose mean value over its samples is the best (checked by solving
    the same samples here)."""
    from popejoan_solver.search.api import solve
    from popejoan_solver.seat import sample_deals

    deal = deal_random(6, 4, get_ruleset("hoyle-modernized"), 2)
    k = knowledge(deal, 1)
    legal = tuple(Position.from_deal(deal).legal_leads())
    rng = decision_rng(5, "x", 1, 0)
    chosen = make_bot("pimc:samples=6").lead(LeadRequest(k, legal, rng))
    seed = decision_rng(5, "x", 1, 0).getrandbits(62)
    totals = dict.fromkeys(legal, 0)
    for sample in sample_deals(k, 6, seed):
        for lead in solve(sample, seats=[1], with_line=False).leads:
            totals[lead.card] += lead.guaranteed.lower
    assert totals[chosen] == max(totals.values())


@pytest.mark.parametrize(("spec", "message"), [
    ("alphazero", "unknown bot"),
    ("pimc:samples=0", "samples is a whole number"),
    ("pimc:samples=many", "samples is a whole number"),
    ("pimc:model=oracle", "model is one of"),
    ("pimc:time=-1", "number of seconds"),
    ("pimc:depth=3", "unknown option"),
    ("random:samples=3", "unknown option"),
    ("hoyle:peek=maybe", "yes or no"),
    ("cheat:peek", "unknown option"),
    ("pimc:samples=3,samples=4", "given twice"),
])
def test_bad_specs_are_one_line(spec: str, message: str) -> None:
    with pytest.raises(BotError, match=message) as caught:
        make_bot(spec)
    assert "\n" not in str(caught.value)


def test_split_bots() -> None:
    assert split_bots("pimc:samples=16,peek,hoyle,random") == ["pimc:samples=16,peek",
                                                                "hoyle", "random"]
    assert split_bots("pimc,peek") == ["pimc:peek"]
    with pytest.raises(BotError, match="twice"):
        split_bots("hoyle,hoyle")
    with pytest.raises(BotError, match="names no bot"):
        split_bots(" , ")


def test_ismcts_without_openspiel_is_one_line() -> None:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        with pytest.raises(BotError, match="openspiel"):
            make_bot("ismcts")
    else:  # installed: the registry hands the spec to the adapter's bot
        assert make_bot("ismcts").name == "ismcts"


def test_a_timed_pimc_decision_draws_in_batches_and_stays_legal() -> None:
    from popejoan_solver.bots.pimc import BATCH, drawn_deals

    deal = deal_random(6, 4, get_ruleset("hoyle-modernized"), 3)
    k = knowledge(deal, 1)
    drawn = list(drawn_deals(k, BATCH + 3, 11, True))
    assert len(drawn) == BATCH + 3
    assert all(knowledge(d.at_outset(), 1) == k for d in drawn[:3])
    legal = tuple(Position.from_deal(deal).legal_leads())
    card = make_bot("pimc:samples=500,time=0.01").lead(
        LeadRequest(k, legal, decision_rng(0, "", 1, 0)))
    assert card in legal


def test_one_bot_in_two_spellings_is_named_twice() -> None:
    """``match --bots lowest,LOWEST`` played lowest against itself as two contestants (the
    standings then print 'lowest - LOWEST +0.000'); names are case-blind everywhere else."""
    with pytest.raises(PopeJoanError, match="twice"):
        split_bots("lowest,LOWEST")


def test_an_empty_spec_is_malformed() -> None:
    """``--bots random,,lowest`` (a typo: a spec left out) ran as two bots; docs/bots.md says a
    malformed spec is one error line."""
    with pytest.raises(PopeJoanError):
        split_bots("random,,lowest")
