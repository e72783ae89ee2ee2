"""Partial sight (``pimc:sees=dead``, ``pimc:sees=hands``): each bot sees exactly what it says."""

from __future__ import annotations

import pytest

from popejoan_solver.bots.base import BotError, LeadRequest
from popejoan_solver.bots.driver import decision_rng, play_deal
from popejoan_solver.bots.registry import make_bot
from popejoan_solver.bots.sight import revealed_cards
from popejoan_solver.model.cards import Card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position, Run
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.seat import Knowledge, knowledge, sample_deals


def _start(players: int = 4, index: int = 2) -> tuple[Deal, tuple[Run, ...], int]:
    """A deal and a few runs of it, and the seat then on lead."""
    deal = deal_random(players, 41, get_ruleset("hoyle-modernized"), index)
    played = play_deal(deal, [make_bot("lowest") for _ in range(players)], 0)
    line = played.runs[:2]
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    return deal, line, position.leader


def _view(deal: Deal, seat: int, line: tuple[Run, ...], sees: str | None) -> Knowledge:
    return knowledge(deal, seat, line, revealed=revealed_cards(deal, seat, sees))


def _lead(spec: str, deal: Deal, seat: int, line: tuple[Run, ...]) -> Card:
    bot = make_bot(spec)
    position = Position.from_deal(deal)
    for run in line:
        position = position.after(run)
    view = _view(deal, seat, line, getattr(bot, "sees", None))
    request = LeadRequest(view, tuple(position.legal_leads()), decision_rng(1, "0", seat, 2))
    return bot.lead(request)


def _moved(deal: Deal, seat: int, line: tuple[Run, ...], same_dead: bool) -> list[Deal]:
    """Deals the plain seat cannot tell from ``deal``: with the same dead hand, or another."""
    plain = knowledge(deal, seat, line)
    source = _view(deal, seat, line, "dead") if same_dead else plain
    found = []
    for other in sample_deals(source, 60, 5):
        start = other.at_outset()
        if knowledge(start, seat, line) != plain or start == deal:
            continue
        if (start.dead == deal.dead) == same_dead:
            found.append(start)
    return found


def test_sees_dead_knows_the_dead_hand_and_nothing_of_the_hands() -> None:
    deal, line, seat = _start()
    view = _view(deal, seat, line, "dead")
    assert view.known_dead & deal.dead == deal.dead
    assert view.need[deal.players] == 0
    assert not any(view.known_held)  # not one card of another hand is shown (none was inferred)
    for other in _moved(deal, seat, line, same_dead=True)[:3]:
        assert _view(other, seat, line, "dead") == view  # the hands' split is not seen


def test_sees_hands_knows_every_card() -> None:
    deal, line, seat = _start()
    view = _view(deal, seat, line, "hands")
    assert view.hidden == 0
    for s in range(deal.players):
        if s != seat - 1:
            assert view.known_held[s] == deal.hands[s] & ~view.played_mask


def test_a_sighted_bot_uses_only_what_it_is_shown() -> None:
    """The hidden card matters: moved between deals the seat cannot tell apart, it changes the
    decision of the bot that sees it (the cheat, or ``sees=hands``) but never that of a bot not
    shown it (``sees=dead`` when the dead hand is the same)."""
    deal, line, seat = _start(3, 5)
    same = _moved(deal, seat, line, same_dead=True)
    assert same
    spec = "pimc:samples=6,sees=dead"
    assert len({_lead(spec, d, seat, line) for d in [deal, *same[:4]]}) == 1
    hands = {_lead("pimc:samples=2,sees=hands", d, seat, line)
             for d in [deal, *_moved(deal, seat, line, same_dead=False)[:6]]}
    assert len(hands) > 1  # it does see (else the test could not fail)


@pytest.mark.parametrize("index", [0, 1])
def test_sees_hands_decides_as_the_cheat(index: int) -> None:
    """Shown every hand, the sampler's one consistent deal is the true one: the cheat's
    decisions, lead by lead and choice by choice, on whole deals."""
    deal = deal_random(4, 9, get_ruleset("peel"), index)
    cheat = play_deal(deal, [make_bot("cheat")] * 4, 3)
    sighted = play_deal(deal, [make_bot("pimc:samples=2,sees=hands")] * 4, 3)
    assert sighted.runs == cheat.runs


def test_bad_sight_is_one_line() -> None:
    with pytest.raises(BotError, match="sees is one of"):
        make_bot("pimc:sees=all")


class _Recorder:
    """A bot shown the dead hand that leads its lowest card and keeps what it was handed."""

    name = "recorder"
    sees_all = False
    peeks = False
    sees = "dead"

    def __init__(self) -> None:
        self.seen: list[LeadRequest] = []

    def lead(self, request: LeadRequest) -> Card:
        self.seen.append(request)
        return request.legal[0]

    def choose(self, request: object) -> int:
        return 0


def test_the_driver_hands_a_sighted_bot_its_view_and_no_truth() -> None:
    deal = deal_random(4, 17, get_ruleset("hoyle-modernized"), 1)
    bot = _Recorder()
    played = play_deal(deal, [bot, make_bot("lowest"), bot, make_bot("lowest")], 2)
    assert bot.seen
    for request in bot.seen:
        k = request.knowledge
        assert request.truth is None
        line = played.runs[:len(k.line)]
        assert k == knowledge(deal, k.seat, line, revealed=deal.dead)
        assert k.known_dead & deal.dead == deal.dead
