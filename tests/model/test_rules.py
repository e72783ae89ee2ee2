from __future__ import annotations

import dataclasses
import itertools
import json
import re
from pathlib import Path

import pytest

from popejoan_solver.cli import main
from popejoan_solver.model.cards import card_name, parse_card
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.rules import (
    NOT_IN_SPINADO,
    OPTIONS,
    RULESET_SOURCES,
    RULESETS,
    AceRank,
    DeadHandRule,
    GameKind,
    LeadRule,
    PairRule,
    PopeInLieu,
    PopeTurnup,
    Ruleset,
    get_ruleset,
    option,
    options_table,
    ruleset_sources,
    rulesets_table,
    variant_matrix,
)
from popejoan_solver.model.sources import (
    BRITANNICA,
    CASSELL,
    HOFFMANN,
    MODEL,
    PARLETT_PENGUIN,
    PEEL,
    WIKIPEDIA,
    WORKS,
    Source,
    Work,
    appears_in,
    bibliography_markdown,
)
from tests.conftest import ROOT
from tests.quotes import every_source, read_excerpt

UNCOPIED = (PEEL, CASSELL, BRITANNICA)
"""Works we have no copy of: quoted from their public texts by hand."""


def test_the_named_rulesets() -> None:
    assert list(RULESETS) == ["hoyle-modernized", "britannica", "parlett", "early-hoyle", "peel",
                              "cassell", "britannica-1911", "spinado"]
    hoyle, brit, parlett, early = (RULESETS[n] for n in list(RULESETS)[:4])
    assert (hoyle.ace, hoyle.lead) == (AceRank.LOW, LeadRule.ANY)
    assert (brit.ace, brit.lead) == (AceRank.LOW, LeadRule.LOWEST_OF_SUIT)
    assert (parlett.ace, parlett.lead) == (AceRank.HIGH, LeadRule.LOWEST_OF_SUIT)
    assert (early.ace, early.lead, early.dead_hand, early.pope_turnup) == (
        AceRank.LOW, LeadRule.ANY, DeadHandRule.STOCK, PopeTurnup.ENDS_DEAL)
    for ruleset in RULESETS.values():
        assert ruleset.pairs is PairRule.SAME_PLAYER
        assert ruleset.pope_exemption is (ruleset.name != "spinado")  # Spinado has no Pope
        assert ruleset.pope_in_lieu is PopeInLieu.NO  # Peel's variation, not his main rules


def test_every_phrase_stands_verbatim_in_its_work() -> None:
    """Each quotation against the passages of its work kept in tests/sources (tests/quotes.py;
    tests/project/test_sources.py checks those passages against the whole texts where they are
    at hand)."""
    for where, source in every_source():
        if source.work is MODEL:
            assert not source.phrase, where
            assert source.note, where
            continue
        if source.work in UNCOPIED:  # quoted by hand from a public text: nothing to check against
            assert source.work.read_at, where
            assert source.phrase, where
            continue
        assert source.file is not None, where
        assert appears_in(source.phrase, read_excerpt(source.file)), (
            where, source.work.key, source.phrase)


@pytest.mark.parametrize(("work", "phrase"), [
    (HOFFMANN, "leads any card he likes"),  # Hoffmann: "pleases"
    (HOFFMANN, "divided into nine compartments"),
    (PARLETT_PENGUIN, "Ace is low"),
    (PARLETT_PENGUIN, "He deals all the cards around"),  # the OCR's "al": brackets needed
    (WIKIPEDIA, "except the player holding the Pope who pays"),
])
def test_a_phrase_its_work_does_not_hold_is_not_found(work: Work, phrase: str) -> None:
    """The check above can fail: a quotation changed by a word is not in the excerpt."""
    assert work.file is not None
    assert not appears_in(phrase, read_excerpt(work.file))


@pytest.mark.parametrize(("phrase", "text", "found"), [
    ("He deals al[l] the cards", "He deals al the cards around", True),
    ("Dealer starts by set[t]ing 6", "Dealer starts by set ing 6 counters", True),
    ("left with 9[♦] in hand", "who is left with 9 in\nhand is exempt", True),
    ("dif[f]icult", "making it dif icult to play", True),
    ("He deals all the cards", "He deals al the cards around", False),
    ("set[t]ing 7 counters", "set ing 6 counters", False),
    ("the lowest card", "the  lowest\n card", True),
])
def test_brackets_restore_what_the_ocr_lost(phrase: str, text: str, found: bool) -> None:
    assert appears_in(phrase, text) is found


def test_citations_name_works_not_our_files() -> None:
    for where, source in every_source():
        cited = source.cite()
        assert ".txt" not in cited, where
        assert "shared/sources" not in cited, where
        if source.work is not MODEL:
            assert source.work.section, where
            assert source.where, where
            assert cited.endswith(f": \"{source.phrase}\""), where
    assert HOFFMANN.citation() == "Hoffmann, Hoyle's Games Modernized (c. 1909)"
    assert Source(HOFFMANN, "leads any card he pleases").cite() == (
        "Hoffmann, Hoyle's Games Modernized (c. 1909), \"Pope Joan\": "
        "\"leads any card he pleases\"")
    assert WIKIPEDIA.citation() == "Wikipedia, \"Pope Joan (card game)\""
    assert PARLETT_PENGUIN.citation(markdown=True).startswith(
        "Parlett, *The Penguin Book of Card Games*")
    assert Source(MODEL, "", "why").to_json() == {
        "work": MODEL.citation(), "section": None, "phrase": None, "note": "why"}


def test_every_option_has_a_source_for_every_value() -> None:
    for name in RULESETS:
        sources = ruleset_sources(RULESETS[name])
        assert set(sources) == set(OPTIONS)
    for spec in OPTIONS.values():
        assert set(spec.sources) == set(spec.values), spec.name
        assert spec.default in spec.samples
        assert set(spec.samples) <= set(spec.values)
    for name, own in RULESET_SOURCES.items():
        assert name in RULESETS
        assert set(own) <= set(OPTIONS), name


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
    succ, pred = rules.table.successor[c], rules.table.predecessor[c]
    assert (card_name(succ) if succ >= 0 else None) == above
    assert (card_name(pred) if pred >= 0 else None) == below


@pytest.mark.parametrize(("name", "players", "each", "dead"), [
    ("hoyle-modernized", 3, 12, 15), ("hoyle-modernized", 4, 10, 11),
    ("hoyle-modernized", 8, 5, 11), ("early-hoyle", 3, 15, 6), ("early-hoyle", 4, 11, 7),
    ("early-hoyle", 5, 9, 6), ("early-hoyle", 6, 7, 9),
])
def test_dealing_sizes(name: str, players: int, each: int, dead: int) -> None:
    rules = get_ruleset(name)
    assert rules.table.cards_per_player(players) == each
    assert rules.table.dead_hand_size(players) == dead


def test_an_override_keeps_the_rulesets_own_sources_for_other_options() -> None:
    changed = get_ruleset("parlett+pairs=divided")
    sources = ruleset_sources(changed)
    assert sources["lead"].work is PARLETT_PENGUIN
    assert sources["pairs"].work is WIKIPEDIA
    assert ruleset_sources(get_ruleset("parlett+ace=low"))["ace"].phrase.startswith(
        "the only known cards")


# One declaration per option: everything else is read from it.

def test_options_are_the_declared_ruleset_fields() -> None:
    declared = [f.name for f in dataclasses.fields(Ruleset) if f.name not in ("name",
                                                                             "description")]
    assert list(OPTIONS) == declared
    for spec in OPTIONS.values():
        assert spec.default == getattr(Ruleset("x", "x"), spec.name)
        assert [spec.parse(spec.text(v)) for v in spec.values] == list(spec.values)
    assert OPTIONS["ace"].choices == ("low", "high")
    assert OPTIONS["stock_size"].choices == ("1..20",)
    assert OPTIONS["stock_size"].samples == (6, 8)
    assert OPTIONS["pope_exemption"].values == (True, False)


def test_a_new_option_is_one_declaration() -> None:
    from popejoan_solver.model import rules

    @dataclasses.dataclass(frozen=True)
    class Extended:
        ace: AceRank = dataclasses.field(default=AceRank.LOW, metadata=option("where the ace is", {
            AceRank.LOW: Source(HOFFMANN, "a"), AceRank.HIGH: Source(PARLETT_PENGUIN, "b")}))
        spare: bool = dataclasses.field(default=False, metadata=option("a spare hand is seen", {
            True: Source(MODEL, "", "x"), False: Source(MODEL, "", "y")}))

    specs = rules.declared_options(Extended)
    assert list(specs) == ["ace", "spare"]
    assert specs["spare"].parse("yes") is True
    assert specs["spare"].choices == ("true", "false")
    assert specs["spare"].to_json()["default"] is False


@pytest.mark.parametrize("metadata", [
    option("no source for high", {AceRank.LOW: Source(HOFFMANN, "a")}),
    option("a sample that is not a value", {AceRank.LOW: Source(HOFFMANN, "a"),
                                            AceRank.HIGH: Source(HOFFMANN, "b")},
           samples=(AceRank.LOW, "middle")),
    option("the default not sampled", {AceRank.LOW: Source(HOFFMANN, "a"),
                                       AceRank.HIGH: Source(HOFFMANN, "b")},
           samples=(AceRank.HIGH,)),
])
def test_a_declaration_without_a_source_for_every_value_is_refused(
        metadata: dict[str, object]) -> None:
    from popejoan_solver.model import rules

    cls = dataclasses.make_dataclass("Bad", [
        ("ace", AceRank, dataclasses.field(default=AceRank.LOW, metadata=metadata))], frozen=True)
    with pytest.raises(TypeError, match="every value needs one source"):
        rules.declared_options(cls)


def test_rules_json_gives_every_option_and_cites_works(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert main(["rules", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["name"] for o in data["options"]] == list(OPTIONS)
    for entry in data["options"]:
        spec = OPTIONS[entry["name"]]
        assert {"name", "values", "default", "doc", "sources"} <= set(entry)
        assert entry["doc"] == spec.doc
        assert len(entry["values"]) == len(spec.values)
        assert entry["default"] in entry["values"]
        expected = ([spec.text(v) for v in spec.values] if len(spec.choices) > 1
                    else list(spec.choices))
        assert list(entry["sources"]) == expected
    assert [r["name"] for r in data["rulesets"]] == list(RULESETS)
    for ruleset in data["rulesets"]:
        for source in ruleset["sources"].values():
            assert {"work", "section", "phrase"} <= set(source)
            assert "file" not in source
    assert ".txt" not in json.dumps(data)


def test_rules_text_cites_author_title_year_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert ".txt" not in out
    assert re.search(r'\n  ace +low +Hoffmann, Hoyle\'s Games Modernized \(c\. 1909\), '
                     r'"Pope Joan": "the only known cards which cannot be led to are the four '
                     r'aces"\n', out)
    assert '"Dealer starts by set[t]ing 6 counters on Pope"' in out
    for spec in OPTIONS.values():
        assert f"  {spec.name:15} {'|'.join(spec.choices)} " in out


# The test matrix.

def _pairs(ruleset: Ruleset) -> set[tuple[str, object, str, object]]:
    return {(a, getattr(ruleset, a), b, getattr(ruleset, b))
            for a, b in itertools.combinations(OPTIONS, 2)}


def test_variant_matrix_covers_every_pair_of_values() -> None:
    matrix = variant_matrix()
    assert matrix == variant_matrix()
    assert [r.name for r in matrix] == [
        r.name for r in variant_matrix()]
    assert matrix[0] == RULESETS["hoyle-modernized"]
    assert len(set(matrix)) == len(matrix)
    for spec in OPTIONS.values():
        assert {getattr(r, spec.name) for r in matrix} == set(spec.samples), spec.name
    for game in GameKind:  # Spinado: the options that apply to it, pairwise
        rows = [r for r in matrix if r.game is game]
        specs = [s for s in OPTIONS.values() if s.name != "game"
                 and (game is GameKind.POPE_JOAN or s.name not in NOT_IN_SPINADO)]
        covered = set().union(*map(_pairs, rows))
        for a, b in itertools.combinations(specs, 2):
            for x, y in itertools.product(a.samples, b.samples):
                assert (a.name, x, b.name, y) in covered, (game, a.name, x, b.name, y)
        # greedy all-pairs; the least possible is 12 (3 leads x 4 dressings) for Pope Joan
        assert len(rows) <= (18 if game is GameKind.POPE_JOAN else 10)
    for ruleset in matrix:
        assert get_ruleset(ruleset.name) == ruleset


# Generated documentation: the pages hold exactly what the declarations give.

def _check_generated(path: Path, name: str, text: str, update: bool) -> None:
    pattern = re.compile(rf"(<!-- BEGIN {name} [^\n]*-->\n)(.*?)(<!-- END {name} -->)", re.S)
    page = path.read_text(encoding="utf-8")
    found = pattern.search(page)
    assert found is not None, f"{path.name} has no <!-- BEGIN {name} ... --> block"
    if update:
        page = page[:found.start(2)] + f"\n{text}\n" + page[found.end(2):]
        path.write_text(page, encoding="utf-8")
        found = pattern.search(page)
        assert found is not None
    assert found.group(2) == f"\n{text}\n", (
        f"{path.name}: the {name} is not what the declarations give: "
        "run pytest tests/model/test_rules.py --update-golden")


def test_docs_rules_tables_are_generated(update_golden: bool) -> None:
    page = ROOT / "docs" / "rules.md"
    _check_generated(page, "options table", options_table(), update_golden)
    _check_generated(page, "rulesets table", rulesets_table(), update_golden)
    assert ".txt" not in page.read_text(encoding="utf-8")


def test_docs_sources_lists_every_work(update_golden: bool) -> None:
    page = ROOT / "docs" / "sources.md"
    _check_generated(page, "bibliography", bibliography_markdown(), update_golden)
    text = page.read_text(encoding="utf-8")
    for work in WORKS:
        assert work.citation(markdown=True) in text
        assert work.read_at in text
    assert ".txt" not in text


def test_ruleset_lists_keep_overrides_with_commas() -> None:
    from popejoan_solver.model.rules import split_rulesets
    assert split_rulesets("parlett, hoyle-modernized+ace=high,pairs=divided,peel") == [
        "parlett", "hoyle-modernized+ace=high,pairs=divided", "peel"]
    assert split_rulesets(" , ") == []


def test_a_changed_ruleset_does_not_describe_itself_as_its_base() -> None:
    """A ruleset with an option changed (``hoyle-modernized+ace=high``) describes itself as the
    base with that change, never with the base's own unchanged words."""
    changed = get_ruleset("hoyle-modernized+ace=high")
    assert changed.description.startswith("hoyle-modernized with ace=high; otherwise as ")
    assert get_ruleset("hoyle-modernized+ace=low").description == \
        get_ruleset("hoyle-modernized").description  # no change, the base's own words
