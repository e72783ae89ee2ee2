"""The conformance suite (studies/conformance.py): every hand-worked example agrees with the
rules model, both engines and the z3 settlement; together they cover every corner the rule
texts name; each quotes its work verbatim; and a slip planted in the compiled rule table, which
every backend then follows, fails the suite at each backend that reads what it changes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from popejoan_solver.model.cards import Rank, Suit, make_card
from popejoan_solver.model.rules import get_ruleset
from popejoan_solver.model.sources import appears_in
from popejoan_solver.model.table import Award, RuleTable, Taker, TransferKind, compile_rules
from popejoan_solver.search import fast, slots
from popejoan_solver.studies.conformance import (
    COVERS,
    check_example,
    check_examples,
    exactly_checked_steps,
    load_example,
    load_examples,
)

from ..quotes import read_excerpt

EXAMPLES = {example.name: example for example in load_examples()}


def test_the_compiled_core_is_built() -> None:
    """The suite runs both engines: the C core must be there to be checked."""
    assert fast.COMPILED


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_backend_agrees_with_the_example(name: str) -> None:
    assert [str(m) for m in check_example(EXAMPLES[name])] == []


def test_the_engines_check_the_end_of_every_line_exactly() -> None:
    """Every line that ends the deal ends with steps that are its only play, so that both
    engines' values there must equal the example's nets; one example shows another seat's ace
    following a king, which needs a choice of leads (its engines' check is a bound)."""
    loose = {name for name, example in EXAMPLES.items()
             if example.expect.get("out") and exactly_checked_steps(example) == 0}
    assert loose == {"parlett-king-is-not-a-stop"}


def test_the_examples_cover_every_corner_of_the_rules() -> None:
    """Every payment and its taker, every lead rule, successor and stop, dressing, pool,
    choice reading and turn-up named in COVERS has an example."""
    covered = {tag for example in EXAMPLES.values() for tag in example.covers}
    assert covered == COVERS


def test_the_examples_cover_several_player_counts_and_every_kind_of_payment() -> None:
    counts = {example.deal.players for example in EXAMPLES.values()}
    assert {3, 4, 5, 6, 8} <= counts
    kinds = {p["kind"] for example in EXAMPLES.values()
             for p in example.expect.get("payments", ())}
    assert kinds == {k.value for k in TransferKind} - {"dressing", "dressing-share",
                                                       "final-round"}


WITH_COPY = sorted(name for name, example in EXAMPLES.items() if example.work.file is not None)


def test_every_dressing_and_pool_rule_is_pinned_for_every_player_count() -> None:
    """Each dressing under eight and five pools, and Spinado's, for three to eight players."""
    pinned: dict[tuple[str, str, str], set[int]] = {}
    for example in EXAMPLES.values():
        rules = example.deal.rules
        counts = {int(d["players"]) for d in example.expect.get("dressings", ())}
        counts |= {example.deal.players} if "dressing_pays" in example.expect else set()
        key = (rules.game.value, rules.dressing.value, rules.pools.value)
        pinned.setdefault(key, set()).update(counts)
    wanted = {("pope-joan", d, p) for d in ("dealer", "players", "peel", "britannica-1911")
              for p in ("eight", "five")} | {("spinado", "dealer", "eight")}
    assert {key for key, counts in pinned.items() if counts >= set(range(3, 9))} >= wanted


@pytest.mark.parametrize("name", WITH_COPY)
def test_each_example_quotes_its_work_verbatim(name: str) -> None:
    """The phrase stands in our copy's passages (kept in tests/sources)."""
    example = EXAMPLES[name]
    assert example.work.file is not None
    assert appears_in(example.phrase, read_excerpt(example.work.file)), example.phrase


def test_only_the_works_we_hold_no_copy_of_go_unchecked() -> None:
    """Peel, Cassell and the 1911 Britannica were read elsewhere (docs/sources.md)."""
    unchecked = {EXAMPLES[n].work.key for n in set(EXAMPLES) - set(WITH_COPY)}
    assert unchecked <= {"peel", "britannica", "cassell"}


def test_an_example_that_disagrees_names_the_backend_and_the_payment() -> None:
    example = EXAMPLES["hoffmann-honour-and-exemption"]
    payments = list(example.expect["payments"])
    payments[0] = {**payments[0], "amount": 2}  # the Ace compartment holds 1
    wrong = replace(example, expect={**example.expect, "payments": payments})
    found = check_example(wrong)
    backends = {m.backend for m in found}
    assert backends == {"model", "python engine", "C core", "z3 settlement"}
    assert any("('ace', 'seat 2', 2, 'honour')" in m.what for m in found if m.backend == "model")
    assert str(found[0]).startswith("hoffmann-honour-and-exemption: ")


@pytest.mark.parametrize(("name", "other"), [
    ("hoffmann-pope-only-on-lead", "hoyle-modernized+pope_in_lieu=run-continues"),
    ("peel-pope-in-lieu-not-after-a-king", "hoyle-modernized+pope_in_lieu=pope-leads-after-king"),
])
def test_a_refused_step_is_one_another_reading_plays(name: str, other: str) -> None:
    """The ``refused`` checks can fail: under the reading that allows the step, they do."""
    example = EXAMPLES[name]
    moved = replace(example, deal=example.deal.with_rules(get_ruleset(other)))
    assert [m.what for m in check_example(moved)] == [
        f"step {step} refused at the outset" for step in example.expect["refused"]]


def test_a_malformed_example_is_one_notation_error() -> None:
    from popejoan_solver.model.errors import NotationError

    with pytest.raises(NotationError, match="unknown tag 'nonsense'"):
        load_example("x.toml", 'name = "x"\nwork = "hoffmann"\nphrase = "p"\n'
                     'covers = ["nonsense"]\nrules = "hoyle-modernized"\nhands = []\n'
                     'turnup = "2C"\n[expect]\n')


# Mutation proof: a slip in the compiled table, followed by every backend.

@contextmanager
def planted(rules: str, **changes: Any) -> Iterator[RuleTable]:
    """The compiled table of ``rules`` (the one every equal ruleset shares) changed in place
    while the block runs, so that every backend reads the slip; the slot tables compiled from
    it are forgotten before and after, and the table's own values put back afterwards."""
    table = compile_rules(get_ruleset(rules))
    saved = {name: getattr(table, name) for name in changes}
    slots._RULE_SLOTS.clear()
    for name, change in changes.items():
        object.__setattr__(table, name, change(table) if callable(change) else change)
    try:
        yield table
    finally:
        for name, value in saved.items():
            object.__setattr__(table, name, value)
        slots._RULE_SLOTS.clear()


def failing(*names: str) -> dict[str, set[str]]:
    """The backends that report a mismatch, by example."""
    found: dict[str, set[str]] = {}
    for mismatch in check_examples([EXAMPLES[n] for n in names]):
        found.setdefault(mismatch.example, set()).add(mismatch.backend)
    return found


def awards_changed(change: Callable[[Award], Award]) -> Callable[[RuleTable], Any]:
    """A slip in the awards of play, for every trump suit."""
    return lambda table: tuple(tuple(change(a) for a in awards)
                               for awards in table.awards_by_trumps)


EVERY_BACKEND = {"model", "python engine", "C core", "z3 settlement"}
KING_OF_CLUBS, KING_OF_DIAMONDS = make_card(Suit.CLUBS, Rank.KING), make_card(Suit.DIAMONDS,
                                                                               Rank.KING)


def pair_divided(award: Award) -> Award:
    if award.kind in (TransferKind.MATRIMONY, TransferKind.INTRIGUE):
        return replace(award, taker=Taker.DIVIDED)
    return award


def kings_swapped(award: Award) -> Award:
    """The K-diamond's 2 paid for the K-club, and the K-club's 1 for the K-diamond."""
    if award.cards == (KING_OF_CLUBS,):
        return replace(award, cards=(KING_OF_DIAMONDS,))
    if award.cards == (KING_OF_DIAMONDS,):
        return replace(award, cards=(KING_OF_CLUBS,))
    return award


def test_spinado_pairs_paid_to_divided_holders_fail_every_backend() -> None:
    """Spinado's Matrimony and Intrigue shared by the two holders of a divided pair, against
    "go only to a player able to play both cards concerned"."""
    with planted("spinado", awards_by_trumps=awards_changed(pair_divided)):
        found = failing("parlett-spinado-pair-needs-both-cards", "parlett-spinado-spin")
    assert found == {"parlett-spinado-pair-needs-both-cards": EVERY_BACKEND}


def test_spinado_kings_paid_by_the_wrong_suit_fail_every_backend() -> None:
    with planted("spinado", awards_by_trumps=awards_changed(kings_swapped)):
        found = failing("parlett-spinado-pair-needs-both-cards",
                        "parlett-spinado-spin-on-a-king")
    assert found == {"parlett-spinado-pair-needs-both-cards": EVERY_BACKEND,
                     "parlett-spinado-spin-on-a-king": EVERY_BACKEND}


def test_the_exemption_read_from_the_wrong_option_fails_every_backend() -> None:
    """No exempt card under hoyle-modernized (as if read from an option that is off)."""
    with planted("hoyle-modernized", exempt_card=None):
        found = failing("hoffmann-honour-and-exemption", "hoffmann-pope-played-exemption-ceases")
    assert found == {"hoffmann-honour-and-exemption": EVERY_BACKEND}


def test_spin_paying_the_wrong_amount_fails_every_backend() -> None:
    spin = make_card(Suit.DIAMONDS, Rank.ACE)
    with planted("spinado", awards_by_trumps=awards_changed(
            lambda a: replace(a, from_each=2) if a.cards == (spin,) else a)):
        found = failing("parlett-spinado-spin", "parlett-spinado-pair-needs-both-cards")
    assert found == {"parlett-spinado-spin": EVERY_BACKEND}


def test_a_pope_turn_up_that_no_longer_ends_the_deal_fails() -> None:
    """The early Hoyle's Pope turn-up read as Hoffmann's: the deal is played (the engines
    are then given its leads)."""
    with planted("early-hoyle", ends_deal_turnup=None):
        found = failing("early-hoyle-pope-turned-up-ends-deal")
    assert found == {"early-hoyle-pope-turned-up-ends-deal": EVERY_BACKEND}


def test_a_lead_rule_slip_in_the_table_fails_the_engines() -> None:
    """The table's lead rule (read by the model and the engines alike) as any card under the
    lowest of a suit: the example worked from the text fails every one of them."""
    from popejoan_solver.model.table import LeadId

    with planted("britannica", lead=LeadId.ANY):
        found = failing("wikipedia-lead-lowest-of-suit")
    assert found == {"wikipedia-lead-lowest-of-suit": {"model", "python engine", "C core"}}
