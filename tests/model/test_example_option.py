"""How to add a rule option, shown end to end by a test-only one (docs/design.md, "How to add
...", **A rule option**).

The example option, ``counters_per_card``, is what every other player pays the one who goes out
for each card left in hand: 1 in every source (the table's ``per_card_left``), 2 or 3 here. It
takes the checklist's steps without a line of the package changed:

1. it is declared on a test-only subclass of :class:`Ruleset` with :func:`option`: its values
   (a range), its default and a source for every value;
2. it reaches the compiled table by refining :attr:`Ruleset.table`, the one place every
   backend reads the rules from (a real option is read in ``model/table.py``'s
   ``build_table``);
3. so nothing else changes: the model's settlement, the Python engine and the C core all pay by
   it, and agree.

It never reaches the user-visible rulesets: it is not in ``OPTIONS``, ``RULESETS``,
``popejoan rules`` or ``--set``. What a real option needs beyond this is the checklist's
remaining steps (docs/design.md), which :func:`test_design_md_walks_through_this_example`
keeps pointing at code that exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path

import pytest

from popejoan_solver.model import options as options_module
from popejoan_solver.model import rules as rules_module
from popejoan_solver.model import table as table_module
from popejoan_solver.model.board import Board
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.play import Game
from popejoan_solver.model.rules import (
    MODEL,
    OPTIONS,
    RULESETS,
    Ruleset,
    Source,
    declared_options,
    get_ruleset,
    option,
    options_lines,
    ruleset_lines,
)
from popejoan_solver.model.settlement import going_out
from popejoan_solver.model.table import RuleTable, TransferKind, compile_rules
from popejoan_solver.search.fast import COMPILED
from tests.conftest import short_deal
from tests.model.test_table import every_value

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class ExampleRuleset(Ruleset):
    """A ruleset with one option more, for this test only."""

    counters_per_card: int = field(default=1, metadata=option(
        "counters every other player pays the one who goes out, for each card left in hand",
        Source(MODEL, "", "a test-only example option: every source pays one a card"),
        values=range(1, 4), samples=(1, 2)))

    @cached_property
    def table(self) -> RuleTable:
        """The table of the options every ruleset has, with this option's value in it."""
        return replace(super().table, per_card_left=self.counters_per_card)


def example(base: str, counters: int) -> ExampleRuleset:
    """The named ruleset ``base`` with ``counters_per_card=counters``."""
    rules = get_ruleset(base)
    values = {f.name: getattr(rules, f.name) for f in fields(rules)}
    values["name"] = f"{rules.name}+counters_per_card={counters}"
    return ExampleRuleset(**values, counters_per_card=counters)


def test_the_option_is_declared_with_a_source_for_every_value() -> None:
    specs = declared_options(ExampleRuleset)
    assert list(specs) == [*OPTIONS, "counters_per_card"]
    spec = specs["counters_per_card"]
    assert spec.default == 1
    assert spec.choices == ("1..3",)
    assert spec.values == (1, 2, 3)
    assert spec.parse("2") == 2
    assert {value: source.work for value, source in spec.sources.items()} == dict.fromkeys(
        (1, 2, 3), MODEL)


def test_the_option_stays_out_of_the_user_visible_rulesets() -> None:
    assert "counters_per_card" not in OPTIONS
    assert all(not isinstance(r, ExampleRuleset) for r in RULESETS.values())
    shown = "\n".join(options_lines() + [line for r in RULESETS.values()
                                          for line in ruleset_lines(r)])
    assert "counters_per_card" not in shown
    with pytest.raises(RulesError, match="unknown rule option 'counters_per_card'"):
        get_ruleset("hoyle-modernized+counters_per_card=2")


@pytest.mark.parametrize("base", ["hoyle-modernized", "spinado"])
def test_the_option_reaches_the_table_and_only_there(base: str) -> None:
    plain = get_ruleset(base)
    assert example(base, 1).table == plain.table  # the default changes nothing
    rules = example(base, 3)
    assert rules.table == replace(plain.table, per_card_left=3)
    assert compile_rules(rules) is rules.table  # every backend's way to the table
    assert Game.from_deal(short_deal(3, 4, 0, rules)).table is rules.table


def test_the_model_settles_by_the_option() -> None:
    # Seat 1 plays out its hand: each other seat pays it the option's counters a card left
    # (a seat holding the unplayed Pope pays nothing under the Pope's exemption).
    paid: dict[int, list[tuple[object, int]]] = {}
    for counters in (1, 2, 3):
        game = Game.from_deal(short_deal(3, 4, 5, example("hoyle-modernized", counters)))
        transfers = going_out(game, Board(), game.dealt[0], 1)
        paid[counters] = [(t.payer, t.amount) for t in transfers
                          if t.kind is TransferKind.CARDS_LEFT]
    assert paid[1], "some seat pays for its cards left"
    for counters in (2, 3):
        assert paid[counters] == [(payer, counters * amount) for payer, amount in paid[1]]


@pytest.mark.parametrize("base", ["hoyle-modernized", "spinado"])
def test_the_python_engine_and_the_c_core_pay_by_the_option(base: str) -> None:
    seeds = range(3)
    one = {seed: every_value(example(base, 1), seed) for seed in seeds}
    three = {seed: every_value(example(base, 3), seed) for seed in seeds}
    for seed in seeds:
        for by_engine in (one[seed], three[seed]):
            for engine, found in by_engine.items():
                assert found == by_engine["reference"], (base, seed, engine)
    assert any(three[s]["reference"] != one[s]["reference"] for s in seeds)
    if COMPILED:
        assert all("compiled" in three[s] for s in seeds)


OPTION_STEPS = {
    "model/options.py": (options_module, ["RuleOptions"]),
    "model/rules.py": (rules_module, ["Ruleset", "option", "Ruleset.table", "declared_options",
                                      "OPTIONS", "variant_matrix"]),
    "model/table.py": (table_module, ["RuleTable", "build_table"]),
}
"""The code the design's option checklist names, by file: each name must be in the section and
in the module."""


def test_design_md_walks_through_this_example() -> None:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = re.search(r"\*\*A rule option\*\*.*?(?=\n\*\*A ruleset\*\*)", text, re.S)
    assert section is not None
    walk = section.group(0)
    assert "tests/model/test_example_option.py" in walk
    for path, (module, names) in OPTION_STEPS.items():
        assert (ROOT / "popejoan_solver" / path).is_file()
        assert f"`{path}`" in walk, path
        for name in names:
            assert re.search(rf"`{re.escape(name)}[`(]", walk), name  # `name` or `name(...`
            found: object = module
            for part in name.split("."):
                found = getattr(found, part)
