"""The ``epimc`` bot: PIMC with the seat's next lead deferred to its information set."""

from __future__ import annotations

import pytest

from popejoan_solver.bots.base import BotError, LeadRequest
from popejoan_solver.bots.deferred import EpimcBot
from popejoan_solver.bots.driver import decision_rng, play_deal
from popejoan_solver.bots.pimc import PimcBot
from popejoan_solver.bots.registry import make_bot
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import knowledge


def _request(players: int, index: int, runs: int) -> LeadRequest:
    deal = deal_random(players, 23, get_ruleset("hoyle-modernized"), index)
    played = play_deal(deal, [make_bot("hoyle")] * players, 1)
    line = played.runs[:runs]
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    k = knowledge(deal, position.leader, line)
    return LeadRequest(k, tuple(position.legal_leads()), decision_rng(2, str(index), k.seat, 0))


@pytest.mark.parametrize(("players", "index", "runs"), [(4, 0, 0), (4, 1, 3), (3, 2, 2),
                                                        (6, 3, 4)])
def test_deferring_never_raises_a_lead_above_its_pimc_mean(players: int, index: int,
                                                          runs: int) -> None:
    """Choosing the next lead once per information set instead of once per deal can only
    lower a lead's mean (a max of sums is at most the sum of maxima), and leads it does not
    defer keep their pimc means exactly."""
    request = _request(players, index, runs)
    top = 3
    pimc = PimcBot("pimc:samples=12", samples=12)
    epimc = EpimcBot("epimc:samples=12", samples=12, top=top)
    fresh = LeadRequest(request.knowledge, request.legal, decision_rng(2, str(index),
                                                                       request.knowledge.seat, 0))
    plain = {c: t / 12 for c, t in pimc.lead_totals(fresh).items()}
    deferred = epimc.lead_means(request)
    lowered = [c for c in plain if deferred[c] < plain[c] - 1e-9]
    assert all(deferred[c] <= plain[c] + 1e-9 for c in plain)
    ranked = sorted(plain, key=lambda c: (-plain[c], request.legal.index(c)))
    assert all(deferred[c] == pytest.approx(plain[c]) for c in ranked[top:])
    assert len(lowered) <= top


def test_epimc_lowers_some_lead_somewhere() -> None:
    """The deferral is not idle: over a few early positions it changes some lead's mean (else
    the bot would be pimc under another name)."""
    changed = 0
    for index in range(4):
        request = _request(4, index, 0)
        pimc = PimcBot("pimc:samples=12", samples=12)
        fresh = LeadRequest(request.knowledge, request.legal,
                            decision_rng(2, str(index), request.knowledge.seat, 0))
        plain = {c: t / 12 for c, t in pimc.lead_totals(fresh).items()}
        deferred = EpimcBot("epimc", samples=12).lead_means(request)
        changed += any(deferred[c] < plain[c] - 1e-9 for c in plain)
    assert changed


@pytest.mark.parametrize("spec", ["epimc:samples=4", "epimc:samples=100,time=0.02,top=2",
                                  "epimc:samples=4,infer=hoyle"])
def test_epimc_plays_whole_deals_reproducibly(spec: str) -> None:
    deal = deal_random(4, 31, get_ruleset("parlett"), 1)
    bots = [make_bot(spec), make_bot("random"), make_bot(spec), make_bot("hoyle")]
    first = play_deal(deal, bots, 4, "1")
    if "time" not in spec:  # a timed decision depends on the clock
        assert play_deal(deal, [make_bot(b.name) for b in bots], 4, "1").runs == first.runs


def test_epimc_options() -> None:
    with pytest.raises(BotError, match="unknown option"):
        make_bot("epimc:model=maxn")  # the paranoid model only
    with pytest.raises(BotError, match="top"):
        make_bot("epimc:top=0")
    with pytest.raises(BotError, match="unknown option"):
        make_bot("epimc:sees=dead")
    bot = make_bot("epimc:samples=8,top=2")
    assert isinstance(bot, EpimcBot)
    assert (bot.samples, bot.top) == (8, 2)
