"""What the z3 and SAT encodings cannot express yet, refused before any query is built."""

from __future__ import annotations

from ..model.errors import RulesError
from ..model.rules import Ruleset
from ..model.table import compile_rules


def require_forced_runs(rules: Ruleset, tool: str = "find") -> None:
    """Refuse a ruleset whose rule table has a choice inside a run (Pope in lieu of a stop,
    Spinado's Spin): the encodings assume a run is forced once led, so a proof would be about
    other rules than the ones the tool plays."""
    points = compile_rules(rules).choice_points
    if points:
        raise RulesError(
            f"{tool} does not support {points[0].option} yet: it assumes a run is forced once "
            "led, and this rule gives a choice inside it (docs/proofs.md); solve, stops, "
            "graph, batch, stats, prove and find forced-win support it")
