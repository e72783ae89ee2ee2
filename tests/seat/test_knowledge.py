"""A seat's knowledge against brute force: the deals the knowledge allows are exactly the deals
that, replaying the same leads and choices, show the seat the same things.

The oracle here knows nothing of ``seat.inference``: it places the cards the seat has not seen
in every possible way with the hand sizes the seat sees, replays the line in each deal through
the play model (legal leads, the run trees with their choices, the payments on going out) and
keeps the deals where the seat would have seen the same runs. Deals are composed so that few
cards stay unseen (the seat holds most of the pack; any split of the pack among the hands and a
dead hand is a deal), and played to a random point.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import chain, combinations
from math import comb

import pytest

from popejoan_solver.model.cards import Card, Mask, iter_mask
from popejoan_solver.model.deal import Deal
from popejoan_solver.model.errors import IllegalPlayError
from popejoan_solver.model.play import Choice, Position, Run, RunTree, outcomes
from popejoan_solver.model.rules import Ruleset, get_ruleset
from popejoan_solver.model.settlement import going_out, turnup_award
from popejoan_solver.model.table import compile_rules
from popejoan_solver.seat import (
    ViewError,
    all_deals,
    count_deals,
    knowledge,
    knowledge_at_choice,
)

MAX_CANDIDATES = 1500
"""Placements the oracle replays per case (keeps the file within its time budget)."""


def ruleset(name: str, **options: str) -> Ruleset:
    return get_ruleset(name).with_options(options)


FAMILIES = {
    "hoyle-modernized": ruleset("hoyle-modernized"),
    "britannica": ruleset("britannica"),
    "parlett": ruleset("parlett"),
    "lowest-in-hand": ruleset("hoyle-modernized", lead="lowest-in-hand"),
    "cassell": ruleset("cassell"),
    "spinado": ruleset("spinado"),
    "run-continues": ruleset("hoyle-modernized", pope_in_lieu="run-continues"),
    "pope-leads-after-king": ruleset("peel", pope_in_lieu="pope-leads-after-king"),
}


def composed_deal(rules: Ruleset, rng: random.Random, seat: int) -> tuple[Deal, int]:
    """A deal where ``seat`` (-1: the dealer) holds most of the pack, the others a few cards,
    and a small dead hand, so that few cards are unseen; and that seat, 0-based."""
    players = rng.randint(3, 6)
    seat = seat % players
    cards = list(iter_mask(rules.table.pack))
    rng.shuffle(cards)
    dead_size = rng.randint(2, 4)
    sizes = [rng.randint(1, 4) for _ in range(players)]
    sizes[seat] = len(cards) - dead_size - sum(sizes) + sizes[seat]
    hands = [0] * players
    position = 0
    for s, size in enumerate(sizes):
        for card in cards[position:position + size]:
            hands[s] |= 1 << card
        position += size
    dead = 0
    for card in cards[position:]:
        dead |= 1 << card
    return Deal.create(tuple(hands), dead, cards[-1], rules), seat


def random_line(deal: Deal, rng: random.Random, runs: int) -> list[Run]:
    """Up to ``runs`` random runs from the outset (none when the turn-up ends the deal
    unplayed, as a Pope does under cassell: hypothesis found such a deal)."""
    if not turnup_award(deal, deal.board_or_dressed).deal_is_played:
        return []
    position = Position.from_deal(deal)
    line: list[Run] = []
    while len(line) < runs and not position.is_over:
        lead = rng.choice(position.legal_leads())
        run = rng.choice(position.outcomes(lead))
        line.append(run)
        position = position.after(run)
    return line


def unseen(deal: Deal, seat: int, played: Mask) -> tuple[Mask, Mask]:
    """The cards the seat has not seen, and the dead cards it has (turn-up, dealer's look)."""
    table = compile_rules(deal.rules)
    seen_dead = 1 << deal.turnup if table.turns_up else 0
    if table.dealer_sees_dead_hand and seat == deal.players - 1:
        seen_dead = deal.dead
    hidden = deal.rules.table.pack & ~played & ~deal.dealt_hand(seat) & ~seen_dead
    return hidden, seen_dead


def placements(cards: Sequence[Card], sizes: Sequence[int]) -> Iterator[tuple[Mask, ...]]:
    if not sizes:
        yield ()
        return
    for chosen in combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in chosen]
        mask = sum(1 << c for c in chosen)
        for tail in placements(rest, sizes[1:]):
            yield (mask, *tail)


def prefix(tree: RunTree) -> tuple[tuple[Card, int], ...]:
    """The cards (with who played them) that every outcome of ``tree`` starts with."""
    runs = outcomes(tree)
    length = 0
    while all(len(r.cards) > length for r in runs) and len(
            {(r.cards[length], r.seats[length]) for r in runs}) == 1:
        length += 1
    return tuple(zip(runs[0].cards[:length], runs[0].seats[:length], strict=True))


def nodes(tree: RunTree) -> Iterator[Choice]:
    if isinstance(tree, Choice):
        yield tree
        for option in tree.options:
            yield from nodes(option)


def same_view(candidate: Deal, true: Deal, line: Sequence[Run],
              choice: tuple[Card, Choice] | None) -> bool:
    """Whether replaying ``line`` (and the lead up to ``choice``) in ``candidate`` shows what
    it showed in ``true``: every run the same, the same payers when a player went out."""
    position = Position.from_deal(candidate)
    truth = Position.from_deal(true)
    for run in line:
        try:
            if run not in position.outcomes(run.lead):
                return False
        except IllegalPlayError:
            return False
        position, truth = position.after(run), truth.after(run)
    if choice is not None:
        lead, node = choice
        if lead not in position.legal_leads():
            return False
        tree = position.game.run_tree(position.played, position.leader, lead)
        key = (node.chooser, node.kind, prefix(node))
        return any((c.chooser, c.kind, prefix(c)) == key for c in nodes(tree))
    if truth.is_over:
        board = true.board_or_dressed
        paid = {t.payer for t in going_out(truth.game, board, truth.played, truth.winner)}
        seen = {t.payer for t in going_out(position.game, board, position.played,
                                           position.winner)}
        return paid == seen
    return True


def oracle(deal: Deal, seat: int, line: Sequence[Run],
           choice: tuple[Card, Choice] | None = None) -> set[tuple[tuple[Mask, ...], Mask]] | None:
    """Every (hands now, dead hand) the seat cannot tell from the truth; None if too many."""
    played = 0
    for run in line:
        played |= run.mask
    hidden, seen_dead = unseen(deal, seat, played)
    n = deal.players
    others = [s for s in range(n) if s != seat]
    sizes = [(deal.dealt_hand(s) & ~played).bit_count() for s in others]
    dead_size = deal.dead.bit_count() - seen_dead.bit_count()
    total = 1
    count = hidden.bit_count()
    for size in [*sizes, dead_size]:
        total *= comb(count, size)
        count -= size
    if total > MAX_CANDIDATES:
        return None
    found = set()
    for got in placements(list(iter_mask(hidden)), [*sizes, dead_size]):
        now = [0] * n
        now[seat] = deal.dealt_hand(seat) & ~played
        for s, mask in zip(others, got, strict=False):
            now[s] = mask
        dead = got[-1] | seen_dead
        shown = compile_rules(deal.rules).turns_up
        turnup = deal.turnup if shown else (dead & -dead).bit_length() - 1
        outset = tuple(now[s] | (deal.dealt_hand(s) & played) for s in range(n))
        candidate = Deal(outset, dead, turnup, deal.rules, deal.board)
        if same_view(candidate, deal, line, choice):
            found.add((tuple(now), dead))
    return found


def allowed_set(k_deals: Sequence[Deal]) -> set[tuple[tuple[Mask, ...], Mask]]:
    return {(d.hands, d.dead) for d in k_deals}


def cases(family: str, wanted: int, seed: int) -> Iterator[tuple[Deal, int, list[Run]]]:
    """Up to ``wanted`` (deal, seat, line) small enough for the oracle."""
    rng = random.Random(f"{family}:{seed}")
    rules = FAMILIES[family]
    tries = 0
    made = 0
    while made < wanted and tries < max(60, 3 * wanted):
        tries += 1
        wanted_seat = -1 if family == "cassell" and rng.random() < 0.5 else rng.randrange(3)
        deal, seat = composed_deal(rules, rng, wanted_seat)
        line = random_line(deal, rng, rng.randint(0, 8))
        played = 0
        for run in line:
            played |= run.mask
        if unseen(deal, seat, played)[0].bit_count() > 9:
            continue
        made += 1
        yield deal, seat, line


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_knowledge_equals_brute_force(family: str) -> None:
    checked = 0
    for deal, seat, line in cases(family, 8, 1):
        expected = oracle(deal, seat, line)
        if expected is None:
            continue
        k = knowledge(deal, seat + 1, line)
        assert allowed_set(all_deals(k, 10**6)) == expected, (family, seat, line)
        assert count_deals(k) == len(expected)
        checked += 1
    assert checked >= 3, f"only {checked} {family} cases were small enough"


@pytest.mark.parametrize("family", ["spinado", "run-continues", "pope-leads-after-king"])
def test_knowledge_at_choice_equals_brute_force(family: str) -> None:
    """At a choice inside a run, for the chooser and for a seat waiting for it (which knows
    the chooser holds the choice's card)."""
    rng = random.Random(family)
    checked = 0
    for deal, seat, line in chain(cases(family, 40, 2), cases(family, 40, 3)):
        position = Position.from_deal(deal)
        for run in line:
            position = position.after(run)
        if position.is_over:
            continue
        for lead in position.legal_leads():
            tree = position.game.run_tree(position.played, position.leader, lead)
            choices = list(nodes(tree))
            if not choices:
                continue
            node = rng.choice(choices)
            expected = oracle(deal, seat, line, (lead, node))
            if expected is None:
                continue
            k = knowledge_at_choice(deal, seat + 1, line, lead, node)
            assert allowed_set(all_deals(k, 10**6)) == expected, (family, seat, line, lead)
            checked += 1
            break
        if checked >= 4:
            break
    assert checked >= 2


def test_position_without_line_is_read_exactly_under_lead_any() -> None:
    """A position given without its line: under lead=any the same deals as with the line."""
    rng = random.Random(5)
    checked = 0
    for deal, seat, line in cases("hoyle-modernized", 12, 3):
        position = Position.from_deal(deal)
        for run in line:
            position = position.after(run)
        if position.is_over or not line:
            continue
        snapshot = Deal.create(
            tuple(deal.dealt_hand(s) & ~position.played for s in range(deal.players)),
            deal.dead, deal.turnup, deal.rules,
            played=tuple(deal.dealt_hand(s) & position.played for s in range(deal.players)),
            leader=position.leader)
        with_line = allowed_set(all_deals(knowledge(deal, seat + 1, line), 10**6))
        assert allowed_set(all_deals(knowledge(snapshot, seat + 1), 10**6)) == with_line
        checked += 1
    assert checked >= 2
    del rng


def test_position_without_line_refused_where_order_matters() -> None:
    for family in ("britannica", "spinado"):
        for deal, seat, line in cases(family, 6, 4):
            if not line:
                continue
            position = Position.from_deal(deal)
            for run in line:
                position = position.after(run)
            snapshot = Deal(
                tuple(deal.dealt_hand(s) & ~position.played for s in range(deal.players)),
                deal.dead, deal.turnup, deal.rules,
                played=tuple(deal.dealt_hand(s) & position.played for s in range(deal.players)),
                leader=position.leader)
            with pytest.raises(ViewError, match="needs its line of play"):
                knowledge(snapshot, seat + 1)
            break


def test_a_run_the_deal_cannot_produce_is_refused() -> None:
    rng = random.Random(9)
    deal = composed_deal(FAMILIES["hoyle-modernized"], rng, 0)[0]
    line = random_line(deal, rng, 2)
    other = composed_deal(FAMILIES["hoyle-modernized"], random.Random(10), 0)[0]
    with pytest.raises(IllegalPlayError):
        knowledge(other, 1, line)


def test_a_pope_in_lieu_that_does_not_carry_on_shows_the_card_above_dead() -> None:
    """Peel's run-continues reading: 2H 3H stop (4H dead), the Pope in lieu of the 4H, and the
    run does not go on to the 5H: the 5H is dead too, by the choice's rule."""
    from popejoan_solver.model.cards import mask_of, parse_card, parse_cards

    rules = FAMILIES["run-continues"]
    small = [mask_of(parse_cards(text)) for text in ("9D 3H QS", "7S JC")]
    dead = mask_of(parse_cards("4H 5H 6S"))
    seat0 = rules.table.pack & ~dead & ~small[0] & ~small[1]
    deal = Deal.create((seat0, *small), dead, parse_card("6S"), rules)
    position = Position.from_deal(deal)
    run = next(r for r in position.outcomes(parse_card("2H")) if r.chosen is not None)
    assert list(run.cards) == [parse_card(t) for t in ("2H", "3H", "9D")]
    k = knowledge(deal, 1, [run])
    rules_seen = {i.rule for i in k.inferences if i.card == parse_card("5H")}
    assert rules_seen == {"pope_in_lieu=run-continues"}
    assert k.known_dead >> parse_card("4H") & 1
    assert k.known_dead >> parse_card("5H") & 1
    expected = oracle(deal, 0, [run])
    assert expected is not None
    assert allowed_set(all_deals(k, 10**6)) == expected
