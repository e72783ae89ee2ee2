"""What made pimc and advice cheaper changes no decision: the valued deals once each, the first
lead's search started from its mean, the decision's searches on one helper thread.

The reference here is the plain algorithm written out again: draw the deals, solve each with
``search.lead_values``, sum (what ``pimc`` did before); whole deals played by both bots must
give the same records.
"""

from __future__ import annotations

import random
import signal
import threading
import time
from collections import defaultdict
from dataclasses import dataclass

import pytest

from popejoan_solver.advice.interrupt import off_main_thread
from popejoan_solver.advice.leads import advise
from popejoan_solver.advice.valuer import GUESSES, SampleValuer
from popejoan_solver.advice.values import evaluate, option_scores
from popejoan_solver.bots.base import BotInfo, ChoiceRequest, LeadRequest
from popejoan_solver.bots.driver import play_deal
from popejoan_solver.bots.pimc import PimcBot
from popejoan_solver.model.cards import Card
from popejoan_solver.model.deal import deal_random
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.search.leads import lead_values
from popejoan_solver.seat import knowledge, sample_deals


def _copy(rng: random.Random) -> random.Random:
    twin = random.Random()
    twin.setstate(rng.getstate())
    return twin


def plain_totals(request: LeadRequest, samples: int) -> dict[Card, int]:
    """The plain pimc sum: every drawn deal solved on its own, no cache, no guess."""
    deals = sample_deals(request.knowledge, samples, request.rng.getrandbits(62))
    totals: dict[Card, int] = defaultdict(int)
    for deal in deals:
        for e in lead_values(deal, forced_win=False):
            assert e.guaranteed.is_exact
            totals[e.card] += e.guaranteed.lower
    return totals


@dataclass(frozen=True)
class PlainPimc(BotInfo):
    """pimc as it was written before the speed work (the reference of these tests)."""

    samples: int = 8

    def lead(self, request: LeadRequest) -> Card:
        if len(request.legal) == 1:
            return request.legal[0]
        totals = plain_totals(request, self.samples)
        return max(request.legal, key=lambda c: (totals[c], -request.legal.index(c)))

    def choose(self, request: ChoiceRequest) -> int:
        deals = sample_deals(request.knowledge, self.samples, request.rng.getrandbits(62))
        totals, seen = [0] * request.options, 0
        for deal in deals:
            scores = option_scores(deal, request.lead, request.cards, request.knowledge.seat)
            if scores is not None:
                seen += 1
                totals = [t + s for t, s in zip(totals, scores, strict=True)]
        if not seen:
            return request.options - 1
        return max(range(request.options), key=lambda i: (totals[i], -i))


@dataclass(frozen=True)
class Checked(PimcBot):
    """pimc that, at every lead, also sums the plain way from the same generator and checks
    that every lead's total is the same."""

    checked: list[int] | None = None

    def lead(self, request: LeadRequest) -> Card:
        if len(request.legal) > 1:
            twin = LeadRequest(request.knowledge, request.legal, _copy(request.rng))
            ours = self.lead_totals(LeadRequest(request.knowledge, request.legal,
                                                _copy(request.rng)))
            plain = plain_totals(twin, self.samples)
            assert {c: ours[c] for c in request.legal} == {c: plain[c] for c in request.legal}
            assert self.checked is not None
            self.checked.append(1)
        return super().lead(request)


CASES = [("hoyle-modernized", 4, 9, 0), ("hoyle-modernized", 5, 9, 3), ("spinado", 4, 9, 1),
         ("peel+pope_in_lieu=run-continues", 6, 13, 2)]
"""Deals whose every decision is quick, with 6 to 13 decisions each (Spin and the Pope in
lieu chosen inside runs in the last two)."""


@pytest.mark.parametrize(("rules", "players", "seed", "index"), CASES)
def test_every_leads_totals_are_the_plain_sums(rules: str, players: int, seed: int,
                                               index: int) -> None:
    """At every lead of a whole deal (late leads draw the same deal often: the cache), each
    lead's summed value equals the plain sum over the same draws."""
    checked: list[int] = []
    guesses = GUESSES[index % len(GUESSES)]  # each way of starting the searches somewhere
    bots = [Checked("pimc:samples=8", samples=8, guesses=guesses, checked=checked)
            for _ in range(players)]
    play_deal(deal_random(players, seed, get_ruleset(rules), index), bots, seed, "0")
    assert len(checked) >= 5


@pytest.mark.parametrize(("rules", "players", "seed", "index"), CASES)
def test_a_seeded_deal_plays_the_same_as_plain_pimc(rules: str, players: int, seed: int,
                                                   index: int) -> None:
    """The records of a seeded deal, every seat pimc, the same as with the plain bot
    (choices inside runs included: Spin and the Pope in lieu)."""
    deal = deal_random(players, seed, get_ruleset(rules), index)
    ours = play_deal(deal, [PimcBot("pimc:samples=8", samples=8)] * players, seed, "4")
    plain = play_deal(deal, [PlainPimc("plain")] * players, seed, "4")
    assert len(ours.decisions) >= 6
    assert ours.recorded() == plain.recorded()
    assert ours.values == plain.values


def test_a_deal_drawn_twice_is_searched_once_and_valued_the_same() -> None:
    """Late in a deal (here after all but the last run of a played deal) few cards are
    hidden and draws repeat: each distinct deal is searched once, valued as on its own."""
    deal = deal_random(4, 3, get_ruleset("hoyle-modernized"), 0)
    played = play_deal(deal, [PlainPimc("plain", samples=2)] * 4, 3, "0")
    k = knowledge(deal, 1, played.runs[:-1])
    deals = sample_deals(k, 40, 1)
    value = SampleValuer(forced_win=False)
    found = [value(d) for d in deals]
    distinct = {(d.hands, d.dead) for d in deals}
    assert value.searched == len(distinct) < len(deals)
    for d, got in zip(deals, found, strict=True):
        alone = evaluate(d, forced_win=False)
        assert got is not None
        assert alone is not None
        assert (got.cards, got.values) == (alone.cards, alone.values)


@pytest.mark.parametrize("guesses", GUESSES)
def test_guesses_change_no_value(guesses: str) -> None:
    """Deals drawn at the first lead valued with each way of starting the searches: the
    same values and forced wins as each deal solved on its own (and only the work differs)."""
    deal = deal_random(4, 8, get_ruleset("hoyle-modernized"), 1)
    deals = sample_deals(knowledge(deal, 1), 12, 3)
    value = SampleValuer(guesses=guesses)
    for d in deals:
        got = value(d)
        assert got is not None
        plain = lead_values(d)
        assert got.values == tuple(e.guaranteed.lower for e in plain)
        assert got.wins == tuple(e.forced_win.lower for e in plain)
    if guesses != "none":
        assert value.guesses()


def test_advice_is_the_plain_mean_over_its_draws() -> None:
    deal = deal_random(5, 8, get_ruleset("hoyle-modernized"), 0)
    ours = advise(deal, 1, samples=24, seed=3, workers=1)
    plain = [lead_values(d) for d in sample_deals(knowledge(deal, 1), 24, 3)]
    for i, lead in enumerate(ours.leads):
        values = [evals[i].guaranteed.lower for evals in plain]
        assert lead.mean == pytest.approx(sum(values) / len(values), abs=1e-12)
        assert lead.forced_win_rate == sum(e[i].forced_win.lower for e in plain) / 24


def test_off_main_thread_runs_elsewhere_and_stops_on_an_interrupt() -> None:
    where: list[str] = []
    assert off_main_thread(lambda stop: where.append(threading.current_thread().name)) is None
    assert where
    assert where[0] != threading.main_thread().name
    # Python work (max^n) stays on the main thread, where Ctrl-C interrupts it.
    off_main_thread(lambda stop: where.append(threading.current_thread().name), helper=False)
    assert where[1] == threading.main_thread().name

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # as Ctrl-C would, on the main thread

    stopped = threading.Event()

    def work(stop: threading.Event) -> None:
        if stop.wait(10):
            stopped.set()

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        started = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            off_main_thread(work)
        assert time.monotonic() - started < 5
        assert stopped.is_set()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_a_choices_options_valued_as_the_leads_say() -> None:
    """``evaluate_options`` (pimc's and the advice's valuation of a choice) against the lead's
    own values: where the leader chooses at the start of its lead's run (Spin), the lead's
    paranoid value, forced win and max^n value are the best of its options'."""
    from popejoan_solver.advice.values import evaluate_options
    from popejoan_solver.model.play import Choice, Game, Position
    from popejoan_solver.search.maxn import maxn_leads

    found = 0
    for index in range(60):
        deal = deal_random(4, 5, get_ruleset("spinado"), index)
        game = Game.from_deal(deal)
        position = Position(game, deal.played_mask, deal.leader)
        leads = {e.card: e for e in lead_values(deal)}
        by_maxn: dict[Card, tuple[int, ...]] | None = None
        for lead in position.legal_leads():
            tree = game.run_tree(position.played, position.leader, lead)
            if not isinstance(tree, Choice) or tree.chooser != deal.leader:
                continue
            paranoid = evaluate_options(deal, position, tree)
            maxn = evaluate_options(deal, position, tree, "maxn")
            assert paranoid is not None
            assert paranoid.wins is not None
            assert maxn is not None
            assert max(paranoid.values) == leads[lead].guaranteed.lower
            assert max(paranoid.wins) == leads[lead].forced_win.lower
            if by_maxn is None:
                by_maxn = dict(maxn_leads(deal, deal.leader))
            assert max(maxn.values) == by_maxn[lead][deal.leader - 1]
            found += 1
        if found >= 4:
            break
    assert found >= 4


@dataclass(frozen=True)
class PlainMaxn(BotInfo):
    """pimc with max^n written out: each drawn deal's leads and options by ``search.maxn``."""

    samples: int = 4

    def lead(self, request: LeadRequest) -> Card:
        from popejoan_solver.search.maxn import maxn_leads

        if len(request.legal) == 1:
            return request.legal[0]
        totals: dict[Card, int] = defaultdict(int)
        seat = request.knowledge.seat
        for deal in sample_deals(request.knowledge, self.samples, request.rng.getrandbits(62)):
            for card, values in maxn_leads(deal, seat, node_limit=2_000_000):
                totals[card] += values[seat - 1]
        return max(request.legal, key=lambda c: (totals[c], -request.legal.index(c)))

    def choose(self, request: ChoiceRequest) -> int:
        from popejoan_solver.advice.values import find_choice
        from popejoan_solver.model.play import Game, Position
        from popejoan_solver.search.maxn import MaxnSearch

        seat = request.knowledge.seat
        totals, seen = [0] * request.options, 0
        for deal in sample_deals(request.knowledge, self.samples, request.rng.getrandbits(62)):
            game = Game.from_deal(deal)
            position = Position(game, deal.played_mask, deal.leader)
            node = find_choice(game.run_tree(position.played, position.leader, request.lead),
                               request.cards, seat)
            if node is None:
                continue
            search = MaxnSearch(deal, seat)
            seen += 1
            totals = [t + search.tree(o, position.played, position.leader)[seat - 1]
                      for t, o in zip(totals, node.options, strict=True)]
        if not seen:
            return request.options - 1
        return max(range(request.options), key=lambda i: (totals[i], -i))


def test_maxn_pimc_plays_as_max_n_written_out() -> None:
    """pimc:model=maxn values leads and choices (Spin) by max^n on every drawn deal (in this
    deal a Spin valued by the paranoid value, as before, is chosen otherwise)."""
    deal = deal_random(8, 9, get_ruleset("spinado"), 11)
    ours = play_deal(deal, [PimcBot("m", samples=4, model="maxn")] * 8, 9, "1")
    plain = play_deal(deal, [PlainMaxn("plain")] * 8, 9, "1")
    assert len(ours.decisions) > len(ours.runs)  # choices were asked, not only leads
    assert ours.recorded() == plain.recorded()
