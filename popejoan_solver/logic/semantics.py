"""What the encodings need to know of a ruleset, and the deliberately broken variants.

Every rule fact the encodings use comes from the ruleset's compiled table
(:func:`~popejoan_solver.model.table.compile_rules`): the pack, the successor of each card,
the lead rule and its order, the turn-up that ends the deal; the dealing from the model's own
helpers. The encodings take a :class:`PlaySemantics` rather than a :class:`Ruleset` so that
the tests can hand them a *mutant*: the rules with one thing broken on purpose (the 8♦ left in
the pack, a run that jumps a card it should stop at, a pair split that creates a counter). A
prover that still says "proved" for a mutant whose theorem is false would be worthless; the
tests check it does not.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Final

from ..model.cards import EIGHT_OF_DIAMONDS, Mask
from ..model.errors import RulesError
from ..model.rules import PairRule, Ruleset
from ..model.table import RuleTable, compile_rules


@dataclass(frozen=True)
class PlaySemantics:
    """The rules as the encodings read them; ``mutant`` is empty for the rules as written."""

    rules: Ruleset
    extra_cards: Mask = 0
    """Mutant: cards added to the table's pack (dealt like any card)."""
    skip_played: bool = False
    """Mutant: a run passes over a played card to the next card instead of stopping."""
    skip_dead: bool = False
    """Mutant: a run passes over a dead card to the next card instead of stopping."""
    halves_round_up: bool = False
    """Mutant: a divided Matrimony or Intrigue pays each half rounded up."""
    mutant: str = ""

    @classmethod
    def of(cls, rules: Ruleset) -> PlaySemantics:
        return cls(rules)

    @property
    def name(self) -> str:
        return self.rules.name + (f" [mutant {self.mutant}]" if self.mutant else "")

    @property
    def is_standard(self) -> bool:
        """True when the rules model itself can replay what the encoding finds."""
        return not self.mutant

    @property
    def table(self) -> RuleTable:
        """The ruleset's compiled table: what the model plays from."""
        return compile_rules(self.rules)

    @property
    def pack(self) -> Mask:
        return self.table.pack | self.extra_cards

    def cards_per_player(self, players: int) -> int:
        """The model's dealing rule (:meth:`RuleTable.cards_per_player`)."""
        return self.table.cards_per_player(players)

    def dead_size(self, players: int) -> int:
        """The rest of the pack: the model's dead hand, plus any extra cards of a mutant."""
        return self.pack.bit_count() - players * self.cards_per_player(players)


MUTANTS: Final[Mapping[str, tuple[str, Callable[[Ruleset], PlaySemantics]]]] = {
    "eight-in-pack": (
        "the 8♦ is left in the pack and dealt like any card",
        lambda r: PlaySemantics(r, extra_cards=1 << EIGHT_OF_DIAMONDS, mutant="eight-in-pack"),
    ),
    "run-jumps-played": (
        "a run that reaches a played card jumps over it and goes on",
        lambda r: PlaySemantics(r, skip_played=True, mutant="run-jumps-played"),
    ),
    "run-jumps-dead": (
        "a run that reaches a dead card jumps over it and goes on",
        lambda r: PlaySemantics(r, skip_dead=True, mutant="run-jumps-dead"),
    ),
    "halves-round-up": (
        "divided pairs, each half rounded up",
        lambda r: PlaySemantics(replace(r, pairs=PairRule.DIVIDED), halves_round_up=True,
                                mutant="halves-round-up"),
    ),
}


def mutant(rules: Ruleset, name: str) -> PlaySemantics:
    """The semantics of ``rules`` broken in the named way (see :data:`MUTANTS`)."""
    try:
        return MUTANTS[name][1](rules)
    except KeyError:
        raise RulesError(f"unknown mutant {name!r} (known: {', '.join(MUTANTS)})") from None
