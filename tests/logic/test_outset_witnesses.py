"""The witnesses of ``unreachable-at-outset``'s second half: deals whose first lead leads to a
card, for every turn-up, found by z3 or made from one found by moving cards into its dead
hand, each replayed through the rules model."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from popejoan_solver.logic import theorems
from popejoan_solver.logic.prover import Found, ProofError, Status, TheoremResult, Workspace
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.theorems import prove
from popejoan_solver.model.cards import POPE, Rank, card_rank, iter_mask
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import get_ruleset

HOYLE = PlaySemantics.of(get_ruleset("hoyle-modernized"))


def _counts(method: str) -> tuple[int, int]:
    found = re.search(r"\((\d+) deals, (\d+) found by z3", method)
    assert found, method
    return int(found[1]), int(found[2])


Made = list[tuple[Found, int, list[int]]]


@pytest.fixture(scope="module")
def spied_proof() -> tuple[TheoremResult, Made]:
    """One proof of ``unreachable-at-outset`` at 3 players, with every witness ``_moved``
    made recorded (the spy only records: the proof is the one ``prove`` gives without it),
    shared by the two tests that read it."""
    made: Made = []
    original = theorems._moved

    def spy(ws: Workspace, found: Found, target: int, batch: list[int]) -> Found | None:
        moved = original(ws, found, target, batch)
        if moved is not None:
            made.append((moved, target, batch))
        return moved
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(theorems, "_moved", spy)
        (result,) = prove(HOYLE, ["unreachable-at-outset"], Workspace(HOYLE, players=(3,)))
    return result, made


def test_most_witnesses_are_made_from_deals_already_found(
        spied_proof: tuple[TheoremResult, Made]) -> None:
    result, made = spied_proof
    assert result.status is Status.PROVED, result.method
    deals, by_z3 = _counts(result.method)
    assert 0 < by_z3 < deals
    assert len(made) == deals - by_z3  # the spy saw every witness not found by z3


def test_every_moved_witness_leads_to_its_card_with_its_turn_ups_dead(
        spied_proof: tuple[TheoremResult, Made]) -> None:
    result, made = spied_proof
    assert result.status is Status.PROVED
    assert made
    for moved, target, batch in made:
        deal = Deal.create(moved.deal.hands, moved.deal.dead, moved.deal.turnup, HOYLE.rules)
        assert all(deal.dead >> t & 1 for t in batch)
        assert deal.turnup in batch
        assert any(target in run.cards[1:]
                   for run in Position.from_deal(deal).outcomes(moved.leads[0]))
        assert card_rank(target) != Rank.ACE  # never a card of Hoyle's list
        assert target != POPE


def test_without_moved_witnesses_z3_finds_them_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(theorems, "_moved", lambda *_args: None)
    (result,) = prove(HOYLE, ["unreachable-at-outset"], Workspace(HOYLE, players=(3,)))
    assert result.status is Status.PROVED, result.method
    deals, by_z3 = _counts(result.method)
    assert deals == by_z3


def test_a_moved_witness_the_model_does_not_confirm_is_a_proof_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A move that claims a run the model does not play is caught by the replay."""
    original = theorems._moved

    def wrong(ws: Workspace, found: Found, target: int, batch: list[int]) -> Found | None:
        moved = original(ws, found, target, batch)
        if moved is None:
            return None
        other = next(c for c in iter_mask(moved.deal.dead))
        return replace(moved, runs=(moved.runs[0] | 1 << other,))
    monkeypatch.setattr(theorems, "_moved", wrong)
    with pytest.raises(ProofError):
        prove(HOYLE, ["unreachable-at-outset"], Workspace(HOYLE, players=(3,)))
