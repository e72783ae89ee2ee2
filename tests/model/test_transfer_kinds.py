"""Every payment of the settlement carries the kind the rules pay it for (TransferKind), checked
against the rule texts' words on random lines of every ruleset; and no module recognises a
payment by the words of its reason."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import popejoan_solver
from popejoan_solver.model.board import Board, Compartment
from popejoan_solver.model.cards import POPE, Rank, Suit, make_card
from popejoan_solver.model.deal import Deal, deal_random
from popejoan_solver.model.play import Position
from popejoan_solver.model.rules import RULESETS, GameKind, get_ruleset, variant_matrix
from popejoan_solver.model.settlement import Transfer, final_round, settle
from popejoan_solver.model.table import TransferKind, compile_rules

VARIANTS = list(dict.fromkeys([r.name for r in RULESETS.values()]
                               + [r.name for r in variant_matrix()]))
HONOUR_RANKS = {Compartment.ACE: Rank.ACE, Compartment.KING: Rank.KING,
                Compartment.QUEEN: Rank.QUEEN, Compartment.JACK: Rank.JACK}
""""Whoever plays the A, K, Q, J of trumps" takes its compartment (Hoffmann)."""
PAIR_RANKS = {Compartment.MATRIMONY: (Rank.KING, Rank.QUEEN),
              Compartment.INTRIGUE: (Rank.QUEEN, Rank.JACK)}
"""Matrimony is "the king and queen of trumps", Intrigue "the queen and knave" (Hoffmann);
in Spinado "K[♦]-Q[♦]" and "Q[♦]-J[♦]" (Parlett)."""
SPIN = make_card(Suit.DIAMONDS, Rank.ACE)
""""The A[♦] is known as Spinado, or Spin" (Parlett)."""


def _check_play(t: Transfer, deal: Deal, played: int, winner: int) -> None:
    """A payment of play is for what the texts pay in play, to the seat they name."""
    spinado = deal.rules.game is GameKind.SPINADO
    trumps = Suit.DIAMONDS if spinado else deal.trumps
    kind = t.kind
    if kind is TransferKind.POPE:
        assert (t.payer, t.payee) == (Compartment.POPE, deal.holder(POPE))
        assert played >> POPE & 1
    elif kind is TransferKind.HONOUR:
        assert isinstance(t.payer, Compartment)
        card = make_card(trumps, HONOUR_RANKS[t.payer])
        assert t.payee == deal.holder(card)
        assert played >> card & 1
    elif kind in (TransferKind.MATRIMONY, TransferKind.INTRIGUE):
        assert t.payer == Compartment(kind.value)
        cards = [make_card(trumps, rank) for rank in PAIR_RANKS[t.payer]]
        assert all(played >> c & 1 for c in cards)
        assert t.payee in {deal.holder(c) for c in cards}
    elif kind in (TransferKind.SPINADO_KING, TransferKind.SPIN):
        assert spinado
        assert isinstance(t.payer, int)
        assert t.payer != t.payee
        kings = [make_card(s, Rank.KING) for s in range(4)]
        cards = [SPIN] if kind is TransferKind.SPIN else kings
        assert t.payee in {deal.holder(c) for c in cards if played >> c & 1}
    elif kind is TransferKind.GAME:
        assert (t.payer, t.payee) == (Compartment.GAME, winner)
    elif kind is TransferKind.CARDS_LEFT:
        assert isinstance(t.payer, int)
        assert t.payee == winner
        left = (deal.dealt_hand(t.payer - 1) & ~played).bit_count()
        assert t.amount == compile_rules(deal.rules).per_card_left * left
    else:
        pytest.fail(f"{kind} paid in play: {t}")


def _check_before_play(t: Transfer, deal: Deal, dealer: int) -> None:
    """Dressing and turn-up payments go to the dealer or the board, as the texts say."""
    kind = t.kind
    if kind is TransferKind.DRESSING_SHARE:
        assert isinstance(t.payer, int)
        assert t.payer != dealer
        assert t.payee == dealer
    elif kind is TransferKind.DRESSING:
        assert t.payer == dealer
        assert isinstance(t.payee, Compartment)
    elif kind is TransferKind.TURNUP:
        assert isinstance(t.payer, Compartment)
        assert t.payee == dealer
        card = deal.turnup
        ends = compile_rules(deal.rules).ends_deal_turnup == card
        if t.payer is Compartment.POPE or (t.payer is Compartment.GAME and ends):
            assert card == POPE
        else:
            assert card == make_card(deal.trumps, HONOUR_RANKS[t.payer])
    elif kind is TransferKind.STAKE_PER_CARD:
        assert isinstance(t.payer, int)
        assert t.payee == dealer
        assert t.amount == deal.dealt_hand(t.payer - 1).bit_count()
    else:
        pytest.fail(f"{kind} paid before play: {t}")


def _pope_turned_up(rules: str) -> Deal:
    for seed in range(100):
        deal = deal_random(4, seed, get_ruleset(rules))
        if deal.dead >> POPE & 1:
            return Deal.create(deal.hands, deal.dead, POPE, deal.rules)
    raise AssertionError("no deal with Pope in the dead hand")


def test_every_payment_is_of_the_kind_the_rules_pay() -> None:
    seen: set[TransferKind] = set()
    rng = random.Random(7)
    deals = [_pope_turned_up("early-hoyle")]
    for variant in VARIANTS:
        for index in range(12):
            board = Board(*(rng.randrange(1, 9) for _ in range(8)))
            kept = compile_rules(get_ruleset(variant)).compartments
            board = Board(**{c.value: n if c in kept else 0 for c, n in board.items()})
            deals.append(deal_random(3 + index % 6, 99, get_ruleset(variant), index,
                                     board=board if index % 2 else None))
    for deal in deals:
        position = Position.from_deal(deal)
        while leads := position.legal_leads():  # none in a deal the turn-up ended
            _, position = position.play(rng.choice(leads))
        result = settle(deal, position.played, position.winner)
        for t in result.dressing + result.turnup:
            _check_before_play(t, deal, deal.players)
        for t in result.play:
            _check_play(t, deal, position.played, position.winner)
        seen |= {t.kind for t in result.dressing + result.turnup + result.play}
    assert seen == set(TransferKind) - {TransferKind.FINAL_ROUND}


def test_the_final_round_pays_its_own_kind() -> None:
    deal = deal_random(4, 3)
    hands = tuple(deal.dealt_hand(s) | (deal.dead if s == 0 else 0) for s in range(4))
    transfers = final_round(hands, Board(pope=6, matrimony=3, intrigue=2, ace=1, king=1,
                                         queen=1, jack=1, game=1))
    assert transfers
    assert {t.kind for t in transfers} == {TransferKind.FINAL_ROUND}


def _reads_reason_words(node: ast.AST) -> bool:
    """``x.reason == "..."``, ``"..." in x.reason`` or ``x.reason.startswith(...)``."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        return (any(isinstance(s, ast.Attribute) and s.attr == "reason" for s in sides)
                and any(isinstance(s, ast.Constant) and isinstance(s.value, str)
                        for s in sides))
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"startswith", "endswith"}
            and isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "reason")


def test_no_module_recognises_a_payment_by_its_words() -> None:
    package = Path(popejoan_solver.__file__).parent
    found = [f"{path.relative_to(package)}:{node.lineno}"
             for path in sorted(package.rglob("*.py"))
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if _reads_reason_words(node)]
    assert found == []
