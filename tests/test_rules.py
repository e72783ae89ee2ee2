from __future__ import annotations

import re

import pytest

from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.rules import (
    OPTIONS,
    RULESETS,
    AceRank,
    DeadHandRule,
    LeadRule,
    PairRule,
    PopeTurnup,
    get_ruleset,
    ruleset_sources,
)

from .conftest import SOURCES


def test_the_four_named_rulesets() -> None:
    assert list(RULESETS) == ["hoyle-modernized", "britannica", "parlett", "early-hoyle"]
    hoyle, brit, parlett, early = (RULESETS[n] for n in RULESETS)
    assert (hoyle.ace, hoyle.lead) == (AceRank.LOW, LeadRule.ANY)
    assert (brit.ace, brit.lead) == (AceRank.LOW, LeadRule.LOWEST_OF_SUIT)
    assert (parlett.ace, parlett.lead) == (AceRank.HIGH, LeadRule.LOWEST_OF_SUIT)
    assert (early.ace, early.lead, early.dead_hand, early.pope_turnup) == (
        AceRank.LOW, LeadRule.ANY, DeadHandRule.STOCK, PopeTurnup.ENDS_DEAL)
    for ruleset in RULESETS.values():
        assert ruleset.pairs is PairRule.SAME_PLAYER
        assert ruleset.pope_exemption is True


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.skipif(not SOURCES.is_dir(), reason="shared/sources is not beside the checkout")
@pytest.mark.parametrize("name", list(RULESETS))
def test_every_option_quotes_its_source_verbatim(name: str) -> None:
    for option, source in ruleset_sources(RULESETS[name]).items():
        if source.file == "(model)":
            continue
        text = _normalise((SOURCES / source.file).read_text(encoding="utf-8"))
        assert _normalise(source.phrase) in text, (option, source.file, source.phrase)


def test_every_option_has_a_source_for_every_value() -> None:
    for name in RULESETS:
        sources = ruleset_sources(RULESETS[name])
        assert set(sources) == set(OPTIONS)


def test_overrides_and_their_names_round_trip() -> None:
    changed = get_ruleset("hoyle-modernized").with_options({"ace": "high", "pairs": "divided"})
    assert changed.ace is AceRank.HIGH
    assert changed.pairs is PairRule.DIVIDED
    assert changed.name == "hoyle-modernized+ace=high,pairs=divided"
    assert get_ruleset(changed.name) == changed
    back = changed.with_options({"ace": "low", "pairs": "same-player"})
    assert back.name == "hoyle-modernized"
    assert back == RULESETS["hoyle-modernized"]


@pytest.mark.parametrize(("overrides", "message"), [
    ({"colour": "red"}, "unknown rule option"),
    ({"ace": "middle"}, "cannot be"),
    ({"stock_size": "0"}, "cannot be"),
    ({"pope_exemption": "maybe"}, "cannot be"),
])
def test_bad_overrides(overrides: dict[str, str], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        get_ruleset("britannica").with_options(overrides)


def test_unknown_ruleset() -> None:
    with pytest.raises(RulesError, match="known: hoyle-modernized"):
        get_ruleset("hoyle")


@pytest.mark.parametrize(("ace", "card", "above", "below"), [
    ("low", "KS", None, "QS"), ("low", "AS", "2S", None),
    ("high", "KS", "AS", "QS"), ("high", "AS", None, "KS"), ("high", "2S", "3S", None),
    ("low", "7D", "8D", "6D"),
])
def test_successor_tables(ace: str, card: str, above: str | None, below: str | None) -> None:
    rules = get_ruleset("hoyle-modernized").with_options({"ace": ace})
    c = parse_card(card)
    succ, pred = rules.successor[c], rules.predecessor[c]
    assert (card_name(succ) if succ >= 0 else None) == above
    assert (card_name(pred) if pred >= 0 else None) == below


@pytest.mark.parametrize(("name", "players", "each", "dead"), [
    ("hoyle-modernized", 3, 12, 15), ("hoyle-modernized", 4, 10, 11),
    ("hoyle-modernized", 8, 5, 11), ("early-hoyle", 3, 15, 6), ("early-hoyle", 4, 11, 7),
    ("early-hoyle", 5, 9, 6), ("early-hoyle", 6, 7, 9),
])
def test_dealing_sizes(name: str, players: int, each: int, dead: int) -> None:
    rules = get_ruleset(name)
    assert rules.cards_per_player(players) == each
    assert rules.dead_hand_size(players) == dead


def test_an_override_keeps_the_rulesets_own_sources_for_other_options() -> None:
    changed = get_ruleset("parlett+pairs=divided")
    sources = ruleset_sources(changed)
    assert sources["lead"].file == "parlett-penguin.txt"
    assert sources["pairs"].file == "wikipedia-pope-joan.txt"
    assert ruleset_sources(get_ruleset("parlett+ace=low"))["ace"].phrase.startswith(
        "the only known cards")
