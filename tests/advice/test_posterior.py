"""The posterior over a seat's consistent deals: exact against brute force where the deals can
be listed, the uniform model's posterior is the uniform draw, and the bot that uses it."""

from __future__ import annotations

import functools
import math

import pytest

from popejoan_solver.advice.maxims import maxim_lead
from popejoan_solver.advice.opponents import (
    Hoyle,
    ModelError,
    Uniform,
    evidence,
    make_model,
)
from popejoan_solver.advice.posterior import card_places, posterior, resample
from popejoan_solver.bots.base import BotError, LeadRequest
from popejoan_solver.bots.driver import decision_rng, play_deal
from popejoan_solver.bots.registry import make_bot
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position, Run, StopReason
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import Knowledge, all_deals, count_deals, knowledge, sample_deals


def _position(rules: str, players: int, seed: int, index: int, runs: int,
              bot: str = "hoyle") -> tuple[Deal, tuple[Run, ...], Knowledge]:
    deal = deal_random(players, seed, get_ruleset(rules), index)
    played = play_deal(deal, [make_bot(bot) for _ in range(players)], 3)
    line = played.runs[:runs]
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    return deal, line, knowledge(deal, position.leader, line)


@functools.cache
def _late(rules: str, players: int, seed: int, index: int) -> Knowledge:
    """The latest view in the deal whose consistent deals are between 20 and 8,000 (found
    once a session: several tests ask for the same deal's, and ``Knowledge`` is frozen)."""
    deal = deal_random(players, seed, get_ruleset(rules), index)
    played = play_deal(deal, [make_bot("hoyle") for _ in range(players)], 3)
    for runs in range(len(played.runs) - 1, 0, -1):
        _, _, k = _position(rules, players, seed, index, runs)
        if 20 <= count_deals(k) <= 8000 and evidence(k.line, k.seat, k.turnup, k.rules):
            return k
    raise AssertionError("no enumerable view with evidence in this deal")


def _brute(k: Knowledge, follow: float) -> dict[tuple[int, ...], float]:
    """Every consistent deal's posterior under the Hoyle model, by replaying it from the
    start: each leader's hand and legal leads from the game, the maxims asked afresh (once
    for each question: thousands of deals ask the same few, and ``maxim_lead`` is pure)."""
    raw = {}
    advice: dict[tuple[object, ...], int] = {}
    for deal in all_deals(k, 10_000):
        start = deal.at_outset()
        position = Position.from_deal(start)
        gone = 1 << start.turnup
        value = 1.0
        for run in k.line:
            if run.leader != k.seat:
                hand = position.game.held(position.played, run.leader)
                legal = position.legal_leads()
                question = (start.rules, hand, gone, tuple(legal))
                if question not in advice:
                    advice[question] = maxim_lead(start.rules, hand, gone, legal)[0]
                advised = advice[question]
                if len(legal) > 1:
                    value *= follow if run.lead == advised else (1 - follow) / (len(legal) - 1)
            position = position.after(run)
            gone = position.played | (gone & start.dead)
            above = start.rules.table.successor[run.stop_card]
            if run.reason is StopReason.DEAD:
                assert start.dead >> above & 1
                gone |= 1 << above
        raw[deal.hands] = value
    total = sum(raw.values())
    return {hands: v / total for hands, v in raw.items()}


CASES = [pytest.param("hoyle-modernized", 3, 5, 0, marks=pytest.mark.slow),
         ("hoyle-modernized", 3, 5, 3), ("parlett", 3, 5, 3),
         pytest.param("parlett", 3, 5, 4, marks=pytest.mark.slow)]
"""Deals (rules, players, seed, index) with a late view of a few thousand consistent deals or
fewer (at 4 players and more they stay in the tens of thousands)."""


@pytest.mark.parametrize(("rules", "players", "seed", "index"), CASES)
def test_exact_posterior_is_the_brute_force_one(rules: str, players: int, seed: int,
                                                index: int) -> None:
    k = _late(rules, players, seed, index)
    post = posterior(k, Hoyle(0.6), limit=8000)
    assert post.exact
    assert len(post.deals) == count_deals(k)
    brute = _brute(k, 0.6)
    assert len(brute) == len(post.deals)
    for deal, weight in zip(post.deals, post.weights, strict=True):
        assert weight == pytest.approx(brute[deal.hands], rel=1e-9, abs=1e-15)
    assert max(post.weights) > min(post.weights)  # the leads did tell something
    places = card_places(post, k)
    for card, row in places.items():
        assert sum(row) == pytest.approx(1.0)
        for loc, p in enumerate(row):
            held = sum(w for hands, w in brute.items()
                       if (loc < k.players and hands[loc] >> card & 1)
                       or (loc == k.players and not any(h >> card & 1 for h in hands)))
            assert p == pytest.approx(held, abs=1e-9)


def test_uniform_model_is_the_uniform_draw() -> None:
    k = _late("hoyle-modernized", 3, 5, 0)
    exact = posterior(k, Uniform(), limit=8000)
    assert list(exact.deals) == all_deals(k, 10_000)
    assert exact.weights == pytest.approx([1 / len(exact.deals)] * len(exact.deals))
    _, _, early = _position("hoyle-modernized", 4, 7, 2, 3)
    drawn = posterior(early, Uniform(), draws=50, seed=9)
    assert not drawn.exact
    assert list(drawn.deals) == sample_deals(early, 50, 9)
    assert drawn.ess == pytest.approx(50)


def test_importance_weights_approach_the_exact_posterior() -> None:
    """Drawn and weighed (the list refused by a low limit), the marginals come near the exact
    ones; the effective sample size says how near."""
    k = _late("hoyle-modernized", 3, 5, 0)
    exact = card_places(posterior(k, Hoyle(0.6), limit=8000), k)
    drawn = posterior(k, Hoyle(0.6), draws=6000, seed=4, limit=1)
    assert not drawn.exact
    assert 50 < drawn.ess < 6000
    approx = card_places(drawn, k)
    worst = max(abs(a - b) for card in exact for a, b in zip(exact[card], approx[card],
                                                               strict=True))
    assert worst < 4 / math.sqrt(drawn.ess)


def test_resample_is_seeded_and_follows_the_weights() -> None:
    k = _late("parlett", 3, 5, 3)
    post = posterior(k, Hoyle(0.8))
    first = resample(post, 400, 1)
    assert first == resample(post, 400, 1)
    best = max(range(len(post.deals)), key=post.weights.__getitem__)
    share = sum(d.hands == post.deals[best].hands for d in first) / 400
    assert share == pytest.approx(post.weights[best], abs=0.08)


def test_models_by_name() -> None:
    assert isinstance(make_model("uniform"), Uniform)
    assert make_model("HOYLE") == Hoyle()
    assert make_model("hoyle:0.7").probability  # type: ignore[truthy-function]
    for bad in ("hoyle:1", "hoyle:x", "softmax", "uniform:2"):
        with pytest.raises(ModelError):
            make_model(bad)
    with pytest.raises(BotError, match="opponent model"):
        make_bot("pimc:infer=oracle")
    with pytest.raises(BotError, match="pool"):
        make_bot("pimc:pool=4")


def test_pimc_infer_uniform_decides_as_pimc() -> None:
    deal, line, k = _position("hoyle-modernized", 4, 11, 1, 4)
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    legal = tuple(position.legal_leads())
    for index in range(3):
        request = LeadRequest(k, legal, decision_rng(5, "1", k.seat, index))
        again = LeadRequest(k, legal, decision_rng(5, "1", k.seat, index))
        plain = make_bot("pimc:samples=6").lead_totals(request)  # type: ignore[attr-defined]
        inferred = make_bot("pimc:samples=6,infer=uniform").lead_totals(  # type: ignore[attr-defined]
            again)
        assert plain == inferred


@pytest.mark.parametrize("spec", ["pimc:samples=4,infer=hoyle",
                                  "pimc:samples=4,infer=hoyle:0.7,pool=4"])
def test_pimc_infer_plays_whole_deals_reproducibly(spec: str) -> None:
    deal = deal_random(4, 13, get_ruleset("parlett"), 2)
    bots = [make_bot(spec), make_bot("hoyle"), make_bot(spec), make_bot("random")]
    first = play_deal(deal, bots, 4, "2")
    again = play_deal(deal, [make_bot(b.name) for b in bots], 4, "2")
    assert first.runs == again.runs
