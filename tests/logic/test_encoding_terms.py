"""The encodings' own term builders (z3's C API, shared subterms, models read as masks) give
exactly what z3's Python API gives."""

from __future__ import annotations

import z3

from popejoan_solver.logic.encoding import (
    FALSE,
    TRUE,
    SymbolicDeal,
    SymbolicPosition,
    SymbolicStep,
    all_of,
    any_of,
    conj,
    exactly,
    iff,
    implies,
    mask_term,
    neg,
    negated,
    read_mask,
)
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.model.cards import iter_mask
from popejoan_solver.model.rules import get_ruleset

P, Q, R = z3.Bools("p q r")


def test_the_connectives_are_z3s_terms() -> None:
    assert conj(P, Q, R).eq(z3.And(P, Q, R))
    assert conj(P).eq(z3.And(P))
    assert implies(P, Q).eq(z3.Implies(P, Q))
    assert iff(P, Q).eq(P == Q)
    assert neg(P).eq(z3.Not(P))
    assert exactly([P, Q, R], 2).eq(z3.PbEq([(P, 1), (Q, 1), (R, 1)], 2))


def test_constants_are_simplified_whichever_way_they_were_made() -> None:
    assert any_of([z3.BoolVal(False), P]).eq(P)
    assert any_of([P, z3.BoolVal(True)]).eq(TRUE)
    assert all_of([z3.BoolVal(True), P, Q]).eq(z3.And(P, Q))
    assert all_of([P, z3.BoolVal(False)]).eq(FALSE)
    assert any_of([]).eq(FALSE)
    assert all_of([]).eq(TRUE)
    assert negated(z3.BoolVal(True)).eq(FALSE)
    assert negated(P).eq(z3.Not(P))
    assert any_of([P, Q]).eq(z3.Or(P, Q))
    # A term equal to a constant only after simplification is not a constant here.
    assert any_of([z3.And(P, z3.Not(P)), Q]).eq(z3.Or(z3.And(P, z3.Not(P)), Q))


def test_a_model_read_as_a_mask_is_read_term_by_term() -> None:
    sem = PlaySemantics.of(get_ruleset("hoyle-modernized"))
    deal = SymbolicDeal(sem, 4)
    step = SymbolicStep(SymbolicPosition.fresh(deal, "p"), "s")
    solver = z3.Solver()
    solver.add(*deal.constraints(), *step.constraints)
    for seed in range(3):
        solver.set(random_seed=seed)
        assert solver.check() == z3.sat
        model = solver.model()

        def holds(term: z3.BoolRef, model: z3.ModelRef = model) -> bool:
            return bool(z3.is_true(model.eval(term, model_completion=True)))
        decoded = deal.decode(model)
        for s in range(4):
            assert decoded.hands[s] == sum(1 << c for c in deal.cards if holds(deal.hold[c, s]))
        assert decoded.dead == sum(1 << c for c in deal.cards if holds(deal.dead[c]))
        assert [decoded.turnup] == [c for c in deal.cards if holds(deal.turnup[c])]
        run = step.decode_run(model)
        assert run == sum(1 << c for c in deal.cards if holds(step.run[c]))
        assert [step.decode_lead(model)] == [c for c in deal.cards if holds(step.lead[c])]
        seats = read_mask(model, mask_term(dict(enumerate(step.position.leader))))
        assert list(iter_mask(seats)) == [s for s in range(4) if holds(step.position.leader[s])]
