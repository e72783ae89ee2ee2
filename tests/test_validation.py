"""The encodings are generated from the rule table the model plays from, and checked equal to
the model (translation validation); a proof whose premise or frame is unsatisfiable is never
reported as proved (vacuity guards)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cached_property

import pytest

from popejoan_solver.logic.encoding import Chains
from popejoan_solver.logic.prover import Status, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.model.cards import Rank, make_card
from popejoan_solver.model.errors import RulesError
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.model.table import compile_rules

HOYLE = get_ruleset("hoyle-modernized")
ACE_OF_CLUBS, TWO_OF_CLUBS, KING_OF_CLUBS = (make_card(0, r)
                                             for r in (Rank.ACE, Rank.TWO, Rank.KING))


@dataclass(frozen=True)
class ClubsAceHigh(Ruleset):
    """A test-only ruleset whose successor alone is changed: the A♣ sits above the K♣ (its
    suit order, and so every table built from the suit order, is Hoyle's)."""

    @cached_property
    def successor(self) -> tuple[int, ...]:
        table = list(super().successor)
        table[KING_OF_CLUBS], table[ACE_OF_CLUBS] = ACE_OF_CLUBS, -1
        return tuple(table)


def clubs_ace_high() -> Ruleset:
    copy = ClubsAceHigh(**{f.name: getattr(HOYLE, f.name) for f in fields(HOYLE)})
    return replace(copy, name="hoyle-modernized+test-clubs-ace-high")


def test_the_encoding_follows_the_tables_successor() -> None:
    """Change only the successor: the model and the encoding both follow it, so "kings are
    stops" is refuted by a line the model replays (the K♣ leads to the A♣)."""
    rules = clubs_ace_high()
    assert rules.suit_order == HOYLE.suit_order
    assert compile_rules(rules).successor[KING_OF_CLUBS] == ACE_OF_CLUBS
    sem = PlaySemantics.of(rules)
    ws = Workspace(sem, players=(3,))
    results = {r.name: r for r in prove(sem, ["kings-are-stops", "pope-only-led"], ws)}
    kings = results["kings-are-stops"]
    assert kings.status is Status.REFUTED
    assert kings.counterexample is not None
    assert kings.counterexample.replayed
    assert ["KC", "AC"] in [step["run"][-2:] for step in kings.counterexample.line]
    assert results["pope-only-led"].status is Status.PROVED


def test_a_successor_that_is_not_chains_is_refused() -> None:
    successor = list(HOYLE.successor)
    successor[KING_OF_CLUBS] = ACE_OF_CLUBS  # a cycle A♣ .. K♣ A♣
    with pytest.raises(RulesError, match="cycle"):
        Chains(tuple(successor))
    successor[KING_OF_CLUBS] = make_card(1, Rank.TWO)  # K♣ and A♦ both just below 2♦
    with pytest.raises(RulesError, match="just below"):
        Chains(tuple(successor))
    chains = Chains(HOYLE.successor)
    assert chains.below[TWO_OF_CLUBS] == (ACE_OF_CLUBS,)
    assert chains.above[KING_OF_CLUBS] == ()
