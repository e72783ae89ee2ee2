"""Shared fixtures and helpers: short deals for quick exhaustive checks, golden-file option."""

from __future__ import annotations

import functools
import random
from pathlib import Path

import pytest

from popejoan_solver.model.cards import iter_mask
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.rules import RULESETS, Ruleset, get_ruleset

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT.parent / "shared" / "sources"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/ from the current output instead of comparing")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest checks (marked ``slow``) run first, the catalogue's rulesets first of all:
    the cores then finish together on short tests instead of one core idling while the other
    ends a long one (pytest-xdist hands tests out in this order)."""
    def rank(item: pytest.Item) -> int:
        if item.get_closest_marker("slow") is None:
            return 2
        return 0 if "test_catalogue" in item.nodeid else 1
    items.sort(key=rank)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def short_deal(players: int, per_hand: int, seed: int, rules: Ruleset,
               played_leads: int = 0) -> Deal:
    """A deal of ``per_hand`` cards to each seat, every other card dead (composed problems)."""
    rng = random.Random(seed)
    cards = list(iter_mask(rules.table.pack))
    rng.shuffle(cards)
    hands = [0] * players
    for i in range(players * per_hand):
        hands[i % players] |= 1 << cards[i]
    dead = 0
    for card in cards[players * per_hand:]:
        dead |= 1 << card
    return Deal.create(hands, dead, cards[-1], rules)


def dense_deal(players: int, per_hand: int, seed: int, rules: Ruleset, suits: int,
               holding: int | None = None) -> Deal:
    """A deal of ``per_hand`` cards to each seat from ``suits`` suits only, every other card
    dead: short hands in long stretches (races, stops and runs that climb through many
    hands); ``holding``, a card dealt to some seat (its suit among those dealt)."""
    rng = random.Random(seed)
    pack = list(iter_mask(rules.table.pack))
    chosen = rng.sample(range(4), suits)
    if holding is not None and holding // 13 not in chosen:
        chosen[0] = holding // 13
    cards = [card for card in pack if card // 13 in chosen]
    rng.shuffle(cards)
    if holding is not None:
        cards.remove(holding)
        cards.insert(rng.randrange(players * per_hand), holding)
    hands = [0] * players
    for i, card in enumerate(cards[:players * per_hand]):
        hands[i % players] |= 1 << card
    return Deal.create(hands, rules.table.pack & ~sum(hands), cards[-1], rules)


def deal_holding(rules_name: str, card: int, players: int, per_hand: int, seed: int) -> Deal:
    """A short deal with ``card`` in some player's hand (the choice card in play)."""
    rules = get_ruleset(rules_name)
    rng = random.Random(seed)
    cards = [c for c in iter_mask(rules.table.pack) if c != card]
    rng.shuffle(cards)
    cards.insert(rng.randrange(players * per_hand), card)
    hands = [0] * players
    for i in range(players * per_hand):
        hands[i % players] |= 1 << cards[i]
    dead = rules.table.pack & ~sum(hands)
    return Deal.create(hands, dead, cards[-1], rules)


ALL_RULESETS = list(RULESETS.values())


def prove_at_three_players(monkeypatch: pytest.MonkeyPatch) -> None:
    """``prove``, and so the command line, works on 3 players only: for tests that are not
    about the player range (tests/logic/test_catalogue.py proves 3 to 8)."""
    from popejoan_solver.logic import theorems
    from popejoan_solver.logic.prover import Workspace

    @functools.lru_cache(maxsize=4)
    def workspace(semantics: object) -> Workspace:
        return Workspace(semantics, players=(3,))  # type: ignore[arg-type]
    monkeypatch.setattr(theorems, "shared_workspace", workspace)
