"""The encoding's validation against the rules model, done once per semantics in a test module
whose tests patch neither the encoding nor the model (certificates, their checks): ``prove``
validates its translation before the first PROVED of every run (``validate_for_prove`` and
``validate_turnups``, about 2 s a ruleset), and its report is a function of the semantics
alone. Never for a test that plants a slip in the encoding: that is what the validation must
see."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from popejoan_solver.logic import vacuity
from popejoan_solver.logic.semantics import PlaySemantics
from popejoan_solver.logic.validation import ValidationReport

Validate = Callable[[PlaySemantics], ValidationReport]
Validations = dict[tuple[str, PlaySemantics], ValidationReport]


def validate_once(monkeypatch: pytest.MonkeyPatch, done: Validations,
                  reuse: bool = True) -> None:
    """``prove``'s two validations answered from ``done`` for a semantics already validated
    (a validation that fails is never kept: it fails again each time it is asked). Without
    ``reuse``, each is run as ever and only kept for later tests (a test that times them)."""
    def once(name: str, real: Validate) -> Validate:
        def validate(semantics: PlaySemantics) -> ValidationReport:
            key = (name, semantics)
            if key not in done or not reuse:
                done[key] = real(semantics)
            return done[key]
        return validate

    for name in ("validate_for_prove", "validate_turnups"):
        monkeypatch.setattr(vacuity, name, once(name, getattr(vacuity, name)))
