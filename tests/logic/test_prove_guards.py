"""What ``prove`` checks before it says PROVED: the frames first, each with a time limit (an
empty dealing frame is an internal error at once, not a proof that runs for minutes), and the
encoding's settlement on the turn-ups that the windows' deals never have (the Pope that ends
the deal, the Pope compartment, the honours), each shown by a slip planted in the encoding."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import z3

from popejoan_solver.cli import main
from popejoan_solver.logic import vacuity
from popejoan_solver.logic.prover import ProofError, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.settlement_encoding import SymbolicSettlement
from popejoan_solver.logic.theorems import prove
from popejoan_solver.logic.validation import (
    ValidationError,
    turnup_cards,
    validate_for_prove,
    validate_turnups,
)
from popejoan_solver.model.board import Compartment
from popejoan_solver.model.cards import POPE, Rank, card_name, make_card
from popejoan_solver.model.rules import PopeTurnup, get_ruleset
from tests.conftest import prove_at_three_players

HOYLE = get_ruleset("hoyle-modernized")
EARLY = get_ruleset("early-hoyle")


# The frames first, with a time limit.

def _one_card_short(monkeypatch: pytest.MonkeyPatch) -> None:
    """The audit's frame slip: the encoding deals every seat one card short, the dead hand
    as many as ever, so no deal adds up to the pack."""
    real = PlaySemantics.cards_per_player

    def dead_size(self: PlaySemantics, players: int) -> int:
        return self.pack.bit_count() - players * real(self, players)

    monkeypatch.setattr(PlaySemantics, "dead_size", dead_size)
    monkeypatch.setattr(PlaySemantics, "cards_per_player",
                        lambda self, players: real(self, players) - 1)


def _no_proof_query(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail if any theorem's own query runs (the frames must be checked first)."""
    def refuse(*_args: object, **_kwargs: object) -> z3.CheckSatResult:
        raise AssertionError("a proof query ran before the frames were checked")

    for method in ("check_step", "check_final", "invariant_holds"):
        monkeypatch.setattr(Workspace, method, refuse)


@pytest.mark.parametrize("theorem", ["kings-are-stops", "counters-conserved", "played-on-top"])
def test_an_empty_dealing_frame_is_reported_before_any_proof(
        monkeypatch: pytest.MonkeyPatch, theorem: str) -> None:
    _one_card_short(monkeypatch)
    _no_proof_query(monkeypatch)
    sem = PlaySemantics.of(HOYLE)
    # The deal-shape check (logic/deal_shapes.py) runs first and finds a deal the model
    # deals and the frame leaves out; without it, the vacuity guard's "vacuous proof".
    with pytest.raises(ProofError, match=r"vacuous proof|leaves out a deal the rules model "
                       r"deals"):
        prove(sem, [theorem], Workspace(sem))


@dataclass(frozen=True)
class OneCardShort(PlaySemantics):
    """The same slip in a mutant, which the model cannot deal: no deal of the model can be
    tried in the frame, so only z3's search over every deal can find it empty."""

    def cards_per_player(self, players: int) -> int:
        return self.rules.table.cards_per_player(players) - 1

    def dead_size(self, players: int) -> int:
        return self.pack.bit_count() - players * self.rules.table.cards_per_player(players)


def test_a_frame_not_decided_in_time_is_an_internal_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """z3 cannot refute the short-dealt frame quickly (a pigeonhole count): within the
    frame's own time limit it is not found possible, which is an internal error too, before
    any proof runs."""
    _no_proof_query(monkeypatch)
    monkeypatch.setattr(vacuity, "FRAME_SECONDS", 1.0)
    sem = OneCardShort(HOYLE, mutant="one-card-short")
    with pytest.raises(ProofError, match=r"vacuous proof\? a deal was not found possible in "
                       r"the encoding within 1 s"):
        prove(sem, ["kings-are-stops"], Workspace(sem))


# The turn-ups that end the deal or pay the dealer, validated before a PROVED.

def _pays_no_game_when_pope_ends_the_deal(self: SymbolicSettlement,
                                          before: dict[Compartment, z3.ArithRef]) -> None:
    """The audit's slip: a Pope turn-up that ends the deal settled without the dealer's Game."""
    _REAL_TURNUP(self, before)
    ends = z3.Not(self.deal_played)
    game = Compartment.GAME
    self.turnup_net[-1] = self.turnup_net[-1] - z3.If(ends, before[game], 0)
    self.after_turnup[game] = z3.If(ends, before[game], self.after_turnup[game])


def _keeps_the_compartment_of(card: int) -> object:
    """A slip: the turned-up ``card`` does not give the dealer its compartment in z3."""
    def slipped(self: SymbolicSettlement, before: dict[Compartment, z3.ArithRef]) -> None:
        _REAL_TURNUP(self, before)
        turned = self.deal.turnup[card]
        for comp in self.table.turnup_awards(card):
            self.turnup_net[-1] = self.turnup_net[-1] - z3.If(turned, before[comp], 0)
            self.after_turnup[comp] = z3.If(turned, before[comp], self.after_turnup[comp])
    return slipped


_REAL_TURNUP = SymbolicSettlement._turnup
SLIPS = {
    "pope-ends-deal-without-game": (EARLY, _pays_no_game_when_pope_ends_the_deal),
    "pope-compartment-kept": (HOYLE, _keeps_the_compartment_of(POPE)),
    "king-of-spades-compartment-kept": (HOYLE, _keeps_the_compartment_of(
        make_card(3, Rank.KING))),
}


def test_the_turnups_checked_are_pope_and_the_honours_under_every_reading() -> None:
    for reading in PopeTurnup:
        sem = PlaySemantics.of(HOYLE.with_options({"pope_turnup": reading.value}))
        names = {card_name(c) for c in turnup_cards(sem)}
        assert "9D" in names
        assert {r + s for r in "AKQJ" for s in "CDHS"} <= names
        validate_turnups(sem)  # the rules as written pass


@pytest.mark.parametrize("slip", sorted(SLIPS))
def test_a_turnup_slip_in_the_encoding_is_never_proved(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], slip: str) -> None:
    """The windows' deals never turn up the Pope or an honour, so they pass the slip; the
    turn-up validation before the first PROVED does not (its own error, raised where prove
    runs it), and prove exits 4. (The windows' check is seen passing where prove runs it,
    rather than run once more on its own; its
    report, a function of the semantics and the slip alone, is worked out once and handed
    again to the command line's prove, which asks for it under the same slip.)"""
    rules, slipped = SLIPS[slip]
    monkeypatch.setattr(SymbolicSettlement, "_turnup", slipped)
    passed: list[PlaySemantics] = []
    reports: dict[PlaySemantics, object] = {}

    def windows(semantics: PlaySemantics) -> object:
        if semantics not in reports:
            reports[semantics] = validate_for_prove(semantics)
        passed.append(semantics)  # returned: no disagreement found
        return reports[semantics]

    monkeypatch.setattr(vacuity, "validate_for_prove", windows)
    sem = PlaySemantics.of(rules)
    with pytest.raises(ValidationError, match="settles a finished line otherwise"):
        prove(sem, ["kings-are-stops"], Workspace(sem, players=(3,)))  # validate_turnups
    assert passed == [sem]  # the blind spot: the windows alone see nothing
    prove_at_three_players(monkeypatch)
    assert main(["prove", "--rules", rules.name, "--theorem", "kings-are-stops"]) == 4
    assert len(passed) == 2
    captured = capsys.readouterr()
    assert "PROVED" not in captured.out
    assert captured.err.startswith("error: internal error: the encoding settles")
