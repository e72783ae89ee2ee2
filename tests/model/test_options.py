"""The option values and what the table reads of a ruleset (model/options.py), tied to the
options the rulesets declare."""

from __future__ import annotations

from dataclasses import fields
from enum import Enum

from popejoan_solver.model import options, rules
from popejoan_solver.model.options import RuleOptions
from popejoan_solver.model.rules import OPTIONS, Ruleset


def test_the_table_reads_every_declared_option_and_nothing_else() -> None:
    # RuleOptions restates the option names for the type checker: it must not drift from the
    # fields that declare them.
    read = [name for name, value in vars(RuleOptions).items() if isinstance(value, property)]
    assert read == list(OPTIONS)
    assert [f.name for f in fields(Ruleset) if f.name in OPTIONS] == read


def test_the_values_are_still_importable_from_rules() -> None:
    moved = {name: value for name, value in vars(options).items()
             if isinstance(value, type) and issubclass(value, Enum)
             and value.__module__ == options.__name__}
    assert len(moved) == 10
    for name, value in moved.items():
        assert getattr(rules, name) is value
        assert any(isinstance(spec.default, value) for spec in OPTIONS.values()), name
    assert (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == (options.MIN_PLAYERS, options.MAX_PLAYERS)
