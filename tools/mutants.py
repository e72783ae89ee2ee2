"""Mutation testing as a standing check: realistic slips put into ``model/``, ``logic/`` and the
search engines one at a time, each of which some check of the repository must catch.

Each mutant is a small source patch (file, exact old text, new text). It is applied in a fresh
copy of the repository's committed tree (``git archive HEAD``; never the working tree, where
others work), whose compiled core is built from that copy's ``_core.c``, and the mutant's
killers run there with ``PYTHONPATH`` set to the copy: chosen ``popejoan prove`` theorems,
translation validation, selected tests. A killer must pass on the unmutated copy to count.
The C core takes its tables from ``model/table.py`` and its runs from the fast engine's slots,
so a ``model/`` mutant reaches every engine that reads what it changes; the differential tests
compare the engines with the reference engine, which plays through ``model/play.py``.

    .venv/bin/python tools/mutants.py                # every mutant, stop at the first kill
    .venv/bin/python tools/mutants.py --all-killers --markdown /tmp/table.md
    .venv/bin/python tools/mutants.py --list
    .venv/bin/python tools/mutants.py pope-exemption-never-ends lead-rule-ignored

Exit status: 0 every mutant caught, 1 a mutant survived, or its patch no longer applies (the
old text is not found exactly once) or breaks the code (ruff finds an undefined name): update
the patch; 2 bad input.
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_TIMEOUT = 300.0
"""Seconds each killer may run before it is stopped (a killer that hangs is not a kill)."""


@dataclass(frozen=True)
class Hunk:
    """Replace ``old`` (which must occur exactly once in ``path``) by ``new``."""

    path: str
    old: str
    new: str


class Kind(StrEnum):
    """What a killer runs."""

    PROVE = "prove"
    """``popejoan prove``; ``args``: theorem, ruleset; passes when the theorem has ``expect``."""
    PYTEST = "pytest"
    """pytest; ``args``: test ids; passes when they all pass."""


class Fate(StrEnum):
    """What became of a mutant."""

    KILLED = "killed"
    SURVIVED = "SURVIVED"
    STALE = "STALE"
    """Its patch no longer applies: the old text is not found exactly once."""
    INVALID = "INVALID"
    """The patched code has a syntax error or an undefined name."""


@dataclass(frozen=True)
class Killer:
    """A check that must pass on the repository and should fail on a mutant."""

    kind: Kind
    args: tuple[str, ...]
    expect: str = "proved"
    name: str = ""
    """A short name for the tables (else one is made from the arguments)."""

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        if self.kind is Kind.PROVE:
            return f"prove {self.args[0]} ({self.args[1]})"
        return " ".join(a.removeprefix("tests/") for a in self.args)

    def command(self) -> list[str]:
        if self.kind is Kind.PROVE:
            return [sys.executable, "-m", "popejoan_solver", "prove", "--theorem", self.args[0],
                    "--rules", self.args[1], "--json"]
        return [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                "--no-header", *self.args]


@dataclass(frozen=True)
class Mutant:
    """One realistic slip: what it breaks, where, and the checks expected to catch it."""

    name: str
    what: str
    hunks: tuple[Hunk, ...]
    killers: tuple[Killer, ...]


@dataclass
class Verdict:
    """What one killer said: passed (the mutant got through it) or failed, and why."""

    killer: Killer
    killed: bool
    detail: str
    seconds: float


@dataclass
class MutantResult:
    """A mutant's fate: killed by which killers, survived, or stale (its patch did not apply)."""

    mutant: Mutant
    status: Fate
    verdicts: list[Verdict] = field(default_factory=list)
    seconds: float = 0.0
    note: str = ""

    def got_through(self) -> str:
        """The killers the mutant passed (run before the one that caught it, or all)."""
        return ", ".join(v.killer.label for v in self.verdicts if not v.killed) or "-"

    def caught_by(self) -> str:
        kills = [v.detail if v.killer.kind is Kind.PYTEST and v.detail.endswith(" failed")
                 else f"{v.killer.label}: {v.detail}" for v in self.verdicts if v.killed]
        return "; ".join(kills) if kills else self.note or "nothing"


def prove(theorem: str, rules: str = "hoyle-modernized", expect: str = "proved") -> Killer:
    return Killer(Kind.PROVE, (theorem, rules), expect)


def checks(*ids: str, name: str = "") -> Killer:
    return Killer(Kind.PYTEST, ids, name=name)


# The killers the mutants share.
ENCODED_RUN = checks("tests/logic/test_prover.py::test_encoded_run_is_the_models_run")
DIFFERENTIAL = checks("tests/search/test_solver.py::test_fast_engine_agrees_with_reference")
RACE_IN_LIEU = checks(
    *(f"tests/search/test_choices.py::"
      f"test_the_race_with_the_pope_in_lieu_agrees_with_reference[{reading}]"
      for reading in ("pope-leads", "run-continues", "pope-leads-after-king")),
    name="search/test_choices.py::test_the_race_with_the_pope_in_lieu_agrees_with_reference")
ISOLATED_IN_LIEU = checks(
    *(f"tests/search/test_choices.py::"
      f"test_isolated_cards_with_the_pope_in_lieu_agree_with_reference[{reading}]"
      for reading in ("pope-leads", "run-continues", "pope-leads-after-king")),
    name="search/test_choices.py::test_isolated_cards_with_the_pope_in_lieu_agree_with_reference")
LIEU_HOLDER_SIDE = checks(
    *(f"tests/search/test_choices.py::"
      f"test_the_forced_run_bounds_on_the_pope_holders_side_agree_with_reference[{reading}]"
      for reading in ("pope-leads", "run-continues", "pope-leads-after-king")),
    name="search/test_choices.py::"
         "test_the_forced_run_bounds_on_the_pope_holders_side_agree_with_reference")
POPE_AT_ITS_HOLDERS_STOP = checks(
    *(f"tests/search/test_choices.py::test_the_pope_at_its_holders_stop_agrees_with_reference"
      f"[{reading}]"
      for reading in ("pope-leads", "run-continues", "pope-leads-after-king",
                      "pope-leads,lead=lowest-in-hand")),
    name="search/test_choices.py::test_the_pope_at_its_holders_stop_agrees_with_reference")
PLAY = checks("tests/model/test_play_and_settlement.py")
SETTLEMENT_ENCODING = checks("tests/logic/test_settlement_encoding.py")
FIND = checks("tests/logic/test_find_independent.py")
VALIDATION = checks(
    "tests/logic/test_validation.py::test_every_small_deal_steps_and_settles_as_the_model",
    "tests/logic/test_validation.py::test_full_deals_step_and_settle_as_the_model",
    "tests/logic/test_validation.py::test_the_step_equals_the_unrolled_run_for_every_deal",
    name="translation validation")
"""Translation validation (logic/validation.py): the encoding's step and settlement against
the model's."""
EDGES = checks(
    "tests/logic/test_prover.py::test_the_line_search_finds_a_counterexample_two_leads_deep",
    "tests/search/test_solver.py::test_the_engines_agree_where_a_run_meets_the_top_of_a_suit",
    name="the line search two leads deep; runs meeting the top of a suit")
"""Two corners the other checks never reached: a counterexample line needing a second lead,
and a run reaching a suit's top card with the next suit's bottom card in play."""
PER_CARD = checks(
    "tests/model/test_table.py::test_every_engine_reads_the_payment_per_card_left_from_the_table",
    name="model/test_table.py::test_every_engine_reads_the_payment_per_card_left_from_the_table")
"""The payment for each card left changed in the rule table alone: every engine follows it."""
C_RESTATES = checks(
    "tests/model/test_table.py::test_the_compiled_core_leads_and_settles_as_the_table_says",
    name="model/test_table.py::test_the_compiled_core_leads_and_settles_as_the_table_says")
"""What the C core restates for speed (the lead rule, the runs, the settlement) against the
model's reading of the rule table."""
CHOICE_PROOFS = checks("tests/logic/test_choice_proofs.py", name="logic/test_choice_proofs.py")
"""Choices inside a run in the proofs: the sets of outcomes validated, the replayed lines."""

PROVE_TESTS = checks("tests/logic/test_prover.py::test_hoyle_theorems_are_proved",
                     "tests/logic/test_prover.py::test_parlett_kings_are_not_stops_with_a_replayed_line",
                     "tests/logic/test_prover.py::test_mutants_are_refuted",
                     name="logic/test_prover.py prove tests")

CONFORMANCE = checks(
    "tests/studies/test_conformance.py::test_every_backend_agrees_with_the_example",
    name="conformance suite")
"""The hand-worked examples of the rule texts, through the model, both engines and the z3
settlement (studies/conformance.py): a slip every backend follows still fails them."""
CHOICE_SYMBOLIC = checks(
    "tests/logic/test_choice_validation.py::test_the_encodings_choices_are_the_models",
    name="test_choice_validation.py")
"""The encoding's choices against the model's run tree, symbolically, at 3 players."""
CHOICE_CORNERS = checks("tests/search/test_choice_corners.py", name="test_choice_corners.py")
"""The engines against the reference on deals generated to reach each corner of the choices."""

CORE_C = "popejoan_solver/search/_core.c"
"""The fast engine's compiled core: a mutant of it is rebuilt in its copy (see Session.run)."""

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "successor-wraps-past-king",
        "the successor table wraps round from the top of a suit to its bottom (K then A)",
        (Hunk("popejoan_solver/model/table.py",
              "        for low, high in itertools.pairwise(order):",
              "        for low, high in itertools.pairwise((*order, order[0])):"),),
        (prove("kings-are-stops"), VALIDATION, ENCODED_RUN, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "ace-order-swapped",
        "ace low and ace high swapped in the suit order (Kings no longer stops under Hoyle)",
        (Hunk("popejoan_solver/model/table.py",
              "    if rules.ace is AceRank.LOW:\n        return tuple(range(13))",
              "    if rules.ace is AceRank.HIGH:\n        return tuple(range(13))"),),
        (prove("kings-are-stops"), VALIDATION, ENCODED_RUN, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "seven-of-diamonds-not-stop",
        "the successor of the 7♦ taken within the pack: the 9♦ follows it, as the 8♦ is out",
        (Hunk("popejoan_solver/model/table.py",
              "            table[make_card(suit, low)] = make_card(suit, high)",
              "            if not PACK >> make_card(suit, high) & 1:\n"
              "                high = order[order.index(high) + 1]\n"
              "            table[make_card(suit, low)] = make_card(suit, high)"),),
        (prove("seven-of-diamonds-stop"), prove("pope-only-led"), VALIDATION, ENCODED_RUN,
         DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "eight-in-pack",
        "the 8♦ left in the pack",
        (Hunk("popejoan_solver/model/cards.py",
              "PACK: Final = FULL_MASK & ~(1 << EIGHT_OF_DIAMONDS)",
              "PACK: Final = FULL_MASK"),),
        (prove("seven-of-diamonds-stop"), VALIDATION, PLAY, DIFFERENTIAL),
    ),
    Mutant(
        "run-jumps-dead-card",
        "a run passes over a card of the dead hand to the next card in play",
        (Hunk("popejoan_solver/model/play.py",
              "        if not self.in_play >> above & 1:\n            return StopReason.DEAD\n",
              "        while self.table.pack >> above & 1 and not self.in_play >> above & 1:\n"
              "            above = self.table.successor[above]\n"
              "            if above < 0:\n"
              "                return StopReason.TOP\n"
              "        if not self.table.pack >> above & 1:\n"
              "            return StopReason.ABSENT\n"),
         Hunk("popejoan_solver/model/play.py",
              "            card = self.table.successor[card]\n"
              "            seat = self.holder_index[card]\n",
              "            card = self.table.successor[card]\n"
              "            while not self.in_play >> card & 1:\n"
              "                card = self.table.successor[card]\n"
              "            seat = self.holder_index[card]\n")),
        (prove("below-dead-is-stop"), VALIDATION, ENCODED_RUN, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "lead-rule-ignored",
        "the play model lets the leader lead any card it holds, whatever the lead rule",
        (Hunk("popejoan_solver/model/play.py",
              "        return legal_leads(self.rules, held)",
              "        return sorted(iter_mask(held), "
              "key=lambda c: (c // 13, self.table.order_key[c]))"),),
        (prove("kings-are-stops", "britannica"), VALIDATION, ENCODED_RUN, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "lowest-lead-by-card-index",
        "the lowest card of a suit taken by card index, not by the suit's order: under ace high "
        "the ace counts as the lowest",
        (Hunk("popejoan_solver/model/leads.py",
              "    cards = sorted(iter_mask(held), key=lambda c: c - c % 13 + key[c])  # by suit, "
              "then key",
              "    cards = sorted(iter_mask(held))"),),
        (prove("kings-are-stops", "parlett", expect="refuted"), VALIDATION, ENCODED_RUN,
         DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "lead-rule-any-in-table",
        "the rule table gives the engines lead=any for every ruleset",
        (Hunk("popejoan_solver/model/table.py",
              "        lead=LEAD_IDS[rules.lead],",
              "        lead=LeadId.ANY,"),),
        (checks("tests/model/test_rule_backends.py"), VALIDATION, DIFFERENTIAL,
         checks("tests/model/test_table.py")),
    ),
    Mutant(
        "out-noticed-at-end-of-run",
        "going out is noticed only when the run stops, not on the card that empties the hand",
        (Hunk("popejoan_solver/model/play.py",
              "            if not self.dealt[seat] & ~played:\n"
              "                return Run(leader, tuple(cards), tuple(seats), StopReason.OUT, None,"
              " seat + 1)\n"
              "            reason = self.stop_reason(card, played)\n"
              "            if reason is not None:\n",
              "            reason = self.stop_reason(card, played)\n"
              "            if reason is not None:\n"
              "                if not self.dealt[seat] & ~played:\n"
              "                    return Run(leader, tuple(cards), tuple(seats), StopReason.OUT,"
              " None, seat + 1)\n"),),
        (prove("terminates"), VALIDATION, ENCODED_RUN, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "pope-exemption-never-ends",
        "the holder dealt Pope is exempt from paying even after playing it",
        (Hunk("popejoan_solver/model/settlement.py",
              "        if exempt is not None and left >> exempt & 1:",
              "        if exempt is not None and game.dealt[seat - 1] >> exempt & 1:"),),
        (prove("counters-conserved"), VALIDATION, DIFFERENTIAL, PLAY, SETTLEMENT_ENCODING),
    ),
    Mutant(
        "unplayed-pope-paid",
        "the exemption read from the played cards: an unplayed Pope's holder pays",
        (Hunk("popejoan_solver/model/settlement.py",
              "        if exempt is not None and left >> exempt & 1:",
              "        if exempt is not None and played >> exempt & 1:"),),
        (prove("counters-conserved"), VALIDATION, DIFFERENTIAL, PLAY, SETTLEMENT_ENCODING),
    ),
    Mutant(
        "matrimony-across-hands",
        "Matrimony (and Intrigue) paid whole to the first card's player when the pair is split",
        (Hunk("popejoan_solver/model/table.py",
              "    if len(seats) == 1:\n",
              "    if len(seats) == 1 or award.taker is Taker.SAME_PLAYER:\n"),),
        (prove("matrimony-needs-one-hand"), VALIDATION, SETTLEMENT_ENCODING, PLAY, DIFFERENTIAL),
    ),
    Mutant(
        "cards-left-counts-dealt",
        "the payment per card left counts every card dealt, not those left in hand",
        (Hunk("popejoan_solver/model/settlement.py",
              "            transfers.append(Transfer(seat, winner, table.per_card_left * "
              "left.bit_count(),",
              "            transfers.append(Transfer(seat, winner, table.per_card_left * "
              "game.dealt[seat - 1].bit_count(),"),),
        (prove("counters-conserved"), VALIDATION, SETTLEMENT_ENCODING, DIFFERENTIAL, PLAY),
    ),
    Mutant(
        "pope-turnup-option-inverted",
        "the option pope_turnup read inverted: a Pope turned up ends the deal when it should not",
        (Hunk("popejoan_solver/model/table.py",
              "PopeTurnup.ENDS_DEAL else None",
              "PopeTurnup.COMPARTMENT else None"),),
        (prove("unreachable-at-outset"), VALIDATION, PLAY, checks("tests/model/test_table.py")),
    ),
    Mutant(
        "turnup-wins-pairs",
        "a turned-up king or queen of trumps also wins Matrimony or Intrigue for the dealer",
        (Hunk("popejoan_solver/model/table.py",
              "if a.cards == (turnup,) and a.compartment is not None)",
              "if turnup in a.cards and a.compartment is not None)"),),
        (prove("counters-conserved"), VALIDATION, PLAY),
    ),
    Mutant(
        "peel-dealer-pays-single",
        "under Peel's dressing the dealer pays one share like the others, not two",
        (Hunk("popejoan_solver/model/table.py",
              "        paid = [share] * (players - 1) + [2 * share]",
              "        paid = [share] * players"),),
        (prove("counters-conserved", "peel"), checks("tests/model/test_variants.py")),
    ),
    Mutant(
        "turnup-first-dead-card",
        "the deal turns up the first card dealt to the dead hand instead of the last",
        (Hunk("popejoan_solver/model/deal.py",
              "    return Deal.create(tuple(hands), dead, cards[-1], rules, board)",
              "    return Deal.create(tuple(hands), dead, cards[players], rules, board)"),),
        (checks("tests/model/test_deal_and_notation.py"),
         checks("tests/search/test_stops_graph_cases.py")),
    ),
    Mutant(
        "line-search-first-lead-only",
        "the line search of find explores only the first legal lead of each position",
        (Hunk("popejoan_solver/logic/lines.py",
              "        for lead in game.legal_leads(played, leader):",
              "        for lead in game.legal_leads(played, leader)[:1]:"),),
        (FIND, checks("tests/logic/test_prover.py::test_find_matrimony_never_paid_is_verified_"
                     "independently")),
    ),
    Mutant(
        "find-first-lead-only",
        "find's exact check of first-lead-out tries only the first legal lead",
        (Hunk("popejoan_solver/logic/find.py",
              "                                       for lead in game.legal_leads(0, 1))",
              "                                       for lead in game.legal_leads(0, 1)[:1])"),),
        (FIND, checks("tests/logic/test_prover.py::test_find_first_lead_out_and_a_proof_of_none")),
    ),
    Mutant(
        "encoding-lowest-of-suit-ignored",
        "the z3 lead rule checks only lowest-in-hand, so lowest-of-suit allows any lead",
        (Hunk("popejoan_solver/logic/encoding.py",
              "        if table.lead is not LeadId.ANY:",
              "        if table.lead is LeadId.LOWEST_IN_HAND:"),),
        (prove("kings-are-stops", "britannica"), VALIDATION, ENCODED_RUN),
    ),
    Mutant(
        "encoding-run-past-going-out",
        "the z3 run goes on past the card that empties its player's hand",
        (Hunk("popejoan_solver/logic/encoding.py",
              "            reach = [conj(run[b], neg(empties[b]), gap)\n",
              "            reach = [conj(run[b], gap)\n"),),
        (prove("terminates"), VALIDATION, ENCODED_RUN),
    ),
    Mutant(
        "encoding-pope-after-any-king",
        "the z3 step lets the Pope be played in lieu after a King in every reading (it ignores "
        "the choice point's after_top)",
        (Hunk("popejoan_solver/logic/encoding.py",
              "        allowed = [stops[c] for c in deal.cards if lieu.after_top or "
              "successor[c] >= 0]",
              "        allowed = [stops[c] for c in deal.cards]"),),
        (CHOICE_PROOFS, prove("kings-are-stops", "hoyle-modernized+pope_in_lieu=pope-leads"),
         CHOICE_SYMBOLIC),
    ),
    Mutant(
        "encoding-anyone-spins",
        "the z3 step lets the holder of Spin play it on any player's card, not only his own",
        (Hunk("popejoan_solver/logic/encoding.py",
              "                                           same_seat, self._available(spin),",
              "                                           self._available(spin),"),),
        (CHOICE_PROOFS, prove("kings-are-stops", "spinado"), CHOICE_SYMBOLIC),
    ),
    Mutant(
        "encoding-turnup-anywhere",
        "the z3 dealing frame does not put the turn-up in the dead hand",
        (Hunk("popejoan_solver/logic/encoding.py",
              "        result += [z3.Implies(self.turnup[c], self.dead[c]) for c in self.cards]\n",
              ""),),
        (prove("kings-are-stops"), checks(
            "tests/logic/test_deal_shapes.py::test_the_frame_admits_exactly_the_models_deals")),
    ),
    Mutant(
        "encoding-exemption-never-ends",
        "the z3 settlement exempts the holder of Pope even after it is played",
        (Hunk("popejoan_solver/logic/settlement_encoding.py",
              "            exempt = (z3.And(deal.holds(exempt_card, s), "
              "z3.Not(played.get(exempt_card, FALSE)))",
              "            exempt = (deal.holds(exempt_card, s)"),),
        (prove("counters-conserved"), VALIDATION, SETTLEMENT_ENCODING),
    ),
    Mutant(
        "stop-theorem-vacuous",
        "the stop theorems' failure condition also asks for a lead that is not in the run "
        "(it can never hold, so every stop claim is 'proved')",
        (Hunk("popejoan_solver/logic/theorems.py",
              "            return any_of([z3.And(cards(deal, c), step.goes_on[c]) "
              "for c in deal.cards])",
              "            return any_of([z3.And(cards(deal, c), step.goes_on[c], "
              "z3.Not(step.run[c]))\n                           for c in deal.cards])"),),
        (prove("kings-are-stops", "parlett", expect="refuted"), PROVE_TESTS),
    ),
    Mutant(
        "line-unrolling-one-lead",
        "the prover's bounded search for a counterexample line unrolls only the first lead",
        (Hunk("popejoan_solver/logic/prover.py",
              "        for depth in range(1, (max_depth or self.max_depth) + 1):\n"
              "            for p in counts:",
              "        for depth in range(1, 2):\n"
              "            for p in counts:"),),
        (prove("kings-are-stops", "parlett", expect="refuted"), PROVE_TESTS,
         checks("tests/logic/test_theorems.py"), EDGES),
    ),
    Mutant(
        "fast-runs-jump-dead-cards",
        "the fast engine's stretches run on over a card out of play (a dead card, the 8♦)",
        (Hunk("popejoan_solver/search/slots.py",
              "        if pattern >> rank & 1:\n            up[rank] = (1 << rank) | up[rank + 1]",
              "        up[rank] = (pattern >> rank & 1) << rank | up[rank + 1]"),),
        (DIFFERENTIAL, EDGES),
    ),
    Mutant(
        "fast-block-pruning-any-rule",
        "the fast engine's Fact 3d block bound used under every lead rule, not only lead=any",
        (Hunk("popejoan_solver/search/kernel.py",
              "    prune_blocks = sg.game.table.lead is LeadId.ANY",
              "    prune_blocks = True"),),
        (DIFFERENTIAL,
         checks("tests/model/test_variants.py::test_the_engines_agree_on_the_new_rulesets",
                "tests/search/test_solver.py")),
    ),
    Mutant(
        "reference-bounds-stored-exact",
        "the reference engine stores every result as exact, forgetting fail-soft bounds",
        (Hunk("popejoan_solver/search/reference.py",
              "        if best <= window_low:\n            upper = min(upper, best)\n"
              "        elif best >= window_high:\n            lower = max(lower, best)\n"
              "        else:\n            lower = upper = best",
              "        lower = upper = best"),),
        (DIFFERENTIAL, checks("tests/search/test_solver.py")),
    ),
    Mutant(
        "c-fact3-no-last-stretch",
        "the C core's fact 3 bound as if the target climbed to the top of every stretch, its "
        "last one too (the unsound first version: it may go out in the middle of a run)",
        (Hunk(CORE_C, "    int paid_for = saving_max - forced_total + gap_max;",
              "    int paid_for = -forced_total + gap_max;"),),
        (DIFFERENTIAL, checks("tests/search/test_solver.py")),
    ),
    Mutant(
        "c-fact3b-lead-always-charged",
        "the C core's fact 3b charges the seat on lead's card even when it may lie in the "
        "spans fact 3 already counted",
        (Hunk(CORE_C, "    paid_for -= led_outside;", "    paid_for -= leader != t;"),),
        (DIFFERENTIAL, checks("tests/search/test_solver.py")),
    ),
    Mutant(
        "c-fact3c-pope-lead-twice",
        "the C core's fact 3c charges the Pope's holder on lead twice (its lead may be the Pope)",
        (Hunk(CORE_C, "        if (led_outside && leader == x) least -= 1;",
              "        if (led_outside && leader == x) least -= 0;"),),
        (checks("tests/search/test_solver.py::test_the_pope_bound_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact3f-no-last-stretch",
        "the C core's fact 3f race as if the seat going out climbed to the top of its last "
        "stretch too",
        (Hunk(CORE_C, "        int sure = total - saving;",
              "        int sure = total;"),),
        (checks("tests/search/test_solver.py::test_the_race_floor_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact3i-two-blocks",
        "the C core's fact 3i takes the target on lead to go out now when two blocks are left "
        "(a second lead would be needed)",
        (Hunk(CORE_C, "        if (sure == popcount(held_now)) return payoff(",
              "        if (sure >= popcount(held_now) - 1) return payoff("),),
        (checks("tests/search/test_solver.py::test_the_going_out_floor_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact3j-either-side",
        "the C core's fact 3j cuts on the ending where another seat goes out at once whichever "
        "side it plays for",
        (Hunk(CORE_C,
              "    if (c->is_max[leader] ? now >= *beta : now <= *alpha) { *cut = now; return 1; }",
              "    if (now >= *beta || now <= *alpha) { *cut = now; return 1; }"),),
        (checks("tests/search/test_solver.py::test_the_other_seat_going_out_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact7-either-side",
        "the C core's general mode takes the forced-run game's floors with the Pope in lieu "
        "unplayed whichever side the Pope's holder plays on (declining always is his choice, "
        "not his opponents')",
        (Hunk(CORE_C, "                          ? c->is_max[c->holder[c->lieu_slot]] : -1;",
              "                          ? 1 : -1;"),),
        (LIEU_HOLDER_SIDE,),
    ),
    Mutant(
        "c-fact7-3j-either-side",
        "the C core's general mode cuts on another seat going out at once (fact 3j) with the "
        "Pope in lieu unplayed whichever side the Pope's holder plays on",
        (Hunk(CORE_C, "    if (lieu_side == c->is_max[leader] && leader != c->target &&",
              "    if (lieu_side >= 0 && leader != c->target &&"),),
        (LIEU_HOLDER_SIDE,),
    ),
    Mutant(
        "c-fact9-either-side",
        "the C core's general mode settles the isolated cards of a seat on the Pope's holder's "
        "side as it does against him (those climbing to a King all led: an isolated card kept "
        "gives the holder a stop to play the Pope at)",
        (Hunk(CORE_C, "    if ((leader == c->target) != c->is_max[c->holder[c->lieu_slot]])\n",
              "    if (1)\n"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-any-stop",
        "the C core's general mode settles the isolated cards of a seat against the Pope's "
        "holder as it does on his side (all but one: their runs stop where he may play the "
        "Pope)",
        (Hunk(CORE_C, "    if ((leader == c->target) != c->is_max[c->holder[c->lieu_slot]])\n",
              "    if (0)\n"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-no-stop-kept",
        "the C core's general mode has a seat on the Pope's holder's side lead all its isolated "
        "cards first, keeping none that makes a stop",
        (Hunk(CORE_C, "    return played | (runs & ~(makers & (0 - makers)));",
              "    return played | runs;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-king-kept",
        "the C core's general mode may keep a King as the card that makes a stop (its stop is "
        "no choice unless the reading says so)",
        (Hunk(CORE_C, "    const uint64_t makers = c->lieu_after_top ? runs : runs & ~SUIT_TOPS;",
              "    const uint64_t makers = runs;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-pope-led",
        "the C core's general mode counts the Pope among the isolated cards the seat on lead "
        "has led",
        (Hunk(CORE_C, "settled(c, played, leader) & ~played & ~(1ULL << c->lieu_slot);",
              "settled(c, played, leader) & ~played;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-carried-on",
        "the C core's general mode settles isolated cards that a run the Pope in lieu carries on "
        "could reach (run-continues)",
        (Hunk(CORE_C, "    uint64_t runs = own ? isolated : beyond_carries(c, played, isolated);",
              "    uint64_t runs = isolated;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-own-any-seat",
        "the C core's general mode takes every seat on lead for the Pope's holder himself "
        "(isolated cards a carried run could reach settled, and stops carrying a run on into "
        "the seat's own isolated cards not kept: run-continues)",
        (Hunk(CORE_C, "    const int own = leader == c->holder[c->lieu_slot];",
              "    const int own = 1;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-own-carrying-stop",
        "the C core's general mode has the Pope's holder on lead lead his isolated cards below "
        "a stop from which the Pope carries a run on into cards not his own isolated ones "
        "(run-continues)",
        (Hunk(CORE_C, "        carrying &= ~(isolated >> 2);\n", "        carrying = 0;\n"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-carrying-stop",
        "the C core's general mode has a seat on the Pope's holder's side lead its isolated "
        "cards below a stop from which the Pope in lieu carries a run on (run-continues)",
        (Hunk(CORE_C, "    runs &= ~at_or_below(c, carrying);\n", "\n"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact9-after-king",
        "the C core's general mode settles the isolated cards that climb to a King against the "
        "Pope's holder under pope-leads-after-king too, where a King's stop is a choice",
        (Hunk(CORE_C, "        return c->lieu_after_top ? played : played | "
                      "(runs & at_or_below(c, runs & SUIT_TOPS));",
              "        return played | (runs & at_or_below(c, runs & SUIT_TOPS));"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact17-floor-as-value",
        "the C core's general mode takes the position with the isolated cards of a seat "
        "against the Pope's holder led for the value, not a floor",
        (Hunk(CORE_C, "            if (score >= beta) {\n                store_node(c, key, "
                      "played, leader, 0, score, -1, alpha, beta, lower, upper);",
              "            if (1) {\n                store_node(c, key, "
              "played, leader, 0, score, -1, alpha, beta, lower, upper);"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact17-either-side",
        "the C core's general mode takes the isolated cards of a minimising seat on lead as a "
        "floor whichever side the Pope's holder plays on",
        (Hunk(CORE_C, "    if (lieu_side == 1 && !c->is_max[leader]) {\n        const uint64_t "
                      "isolated = settled(",
              "    if (lieu_side >= 0 && !c->is_max[leader]) {\n        const uint64_t "
              "isolated = settled("),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-fact17-carried-on",
        "the C core's general mode takes all the isolated cards of a minimising seat on lead "
        "as a floor under run-continues, those a run the Pope carries on from another stop may "
        "reach included",
        (Hunk(CORE_C, "floor_at = played | beyond_carries(c, played, isolated);",
              "floor_at = played | isolated;"),),
        (ISOLATED_IN_LIEU,),
    ),
    Mutant(
        "c-lieu-stop-known-either-way",
        "the C core, at a stop where the Pope may be played, ends the choice on the declined "
        "run's stored bound whichever way it falls",
        (Hunk(CORE_C, "                  &known_move) && (maximising ? known_lower >= beta : "
                      "known_upper <= alpha))",
              "                  &known_move) && (known_lower >= beta || known_upper <= alpha))"),),
        (LIEU_HOLDER_SIDE, ISOLATED_IN_LIEU,
         checks("tests/search/test_choice_differential.py::"
                "test_fast_engines_agree_with_reference_on_choice_deals"
                "[hoyle-modernized+pope_in_lieu=pope-leads,lead=any,ace=low]")),
    ),
    Mutant(
        "c-fact8-race-pope-in-stretch",
        "the C core's general mode races the others to go out (fact 3f) with the Pope in lieu "
        "unplayed as if it were led from the bottom of its stretch (it may be played in lieu "
        "and force nothing above it)",
        (Hunk(CORE_C, "forced ? c->up : c->bound_up,", "c->up,"),),
        (RACE_IN_LIEU,),
    ),
    Mutant(
        "c-fact8-race-target-lead",
        "the C core's general mode counts the target's free card led from a stop (fact 3m) in "
        "the race with the Pope in lieu unplayed (its holder can take the lead at that stop)",
        (Hunk(CORE_C, "forced && leader != t,\n", "leader != t,\n"),),
        (RACE_IN_LIEU,),
    ),
    Mutant(
        "c-lieu-stop-option-unbounded",
        "the C core, having searched the declined run first at a stop, leaves the Pope in lieu "
        "unsearched on the declined run's score alone (its forced-run bound forgotten)",
        (Hunk(CORE_C, "            const val_t both = maximising ? (side > score ? side : score)\n"
                      "                                          : (side < score ? side : score);",
              "            const val_t both = score;"),),
        (LIEU_HOLDER_SIDE,),
    ),
    Mutant(
        "c-lieu-void-any-stop",
        "the C core takes the Pope in lieu for no choice at any stop with the rest of the "
        "Pope's stretch played, the stop card another seat's (who leads after the declined run)",
        (Hunk(CORE_C,
              "    if (c->plain_after_lieu && c->lead_rule == LEAD_ANY && seat == chooser &&\n",
              "    if (c->plain_after_lieu && c->lead_rule == LEAD_ANY &&\n"),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-lieu-void-pope-stretch-open",
        "the C core takes the Pope in lieu for no choice at its holder's own stop with cards "
        "above the Pope unplayed (the Pope led then climbs through them)",
        (Hunk(CORE_C,
              "        !(c->up[c->lieu_slot] & ~with_lieu) && goes_on < 0)\n",
              "        goes_on < 0)\n"),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-lieu-void-any-lead-rule",
        "the C core takes the Pope in lieu for no choice at its holder's own stop under every "
        "lead rule (under the lowest-card rules he may not be allowed to lead the Pope)",
        (Hunk(CORE_C,
              "    if (c->plain_after_lieu && c->lead_rule == LEAD_ANY && seat == chooser &&\n",
              "    if (c->plain_after_lieu && seat == chooser &&\n"),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-lieu-floor-carried-on",
        "the C core settles the Pope's option by its holder's floor on lead where the Pope "
        "carries the run on (run-continues: the holder does not lead next; the option's bound "
        "taken there too)",
        (Hunk(CORE_C, "        if (carried) after = settled(c, carried, next);",
              "        if (carried) after = settled(c, with_lieu, next = chooser);"),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-lieu-carried-stop-holder",
        "the C core bounds the Pope's option where it carries the run on as if the Pope's "
        "holder led after the carried run (not the holder of its stop card: run-continues)",
        (Hunk(CORE_C, "    *next = c->holder[top_index(run)];",
              "    *next = c->holder[c->lieu_slot];"),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-lieu-carried-out-ignored",
        "the C core bounds the Pope's option where it carries the run on at the run's stop "
        "even where a seat goes out in the run (run-continues)",
        (Hunk(CORE_C, "        if (!(c->dealt[c->holder[bit_index(left)]] & ~played)) return 0;\n",
              ""),),
        (POPE_AT_ITS_HOLDERS_STOP,),
    ),
    Mutant(
        "c-fact3k-pope-kept",
        "the C core's fact 3k takes the target that leads the Pope in its best lead's run to "
        "be exempt still (its stake and its exemption counted both)",
        (Hunk(CORE_C, "            const int pope_led = (run & held & c->exempt_bit) != 0;",
              "            const int pope_led = 0;"),),
        (checks("tests/search/test_solver.py::test_the_lead_floor_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact3l-any-stop",
        "the C core's fact 3l takes the target to lead again after a run that stops on another "
        "seat's card",
        (Hunk(CORE_C, "        const int stop_mine = c->holder[top_index(run)] == t;",
              "        const int stop_mine = 1;"),),
        (checks("tests/search/test_solver.py::test_going_out_within_two_leads_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-pope-not-kept",
        "the C core's fact 5 takes another seat to play its Pope at once like any "
        "isolated card (its holder may keep it and pay nothing)",
        (Hunk(CORE_C, '        c->keep_apart = c->exempt_bit;\n',
              '        c->keep_apart = 0;\n'),),
        (checks("tests/search/test_solver.py::test_isolated_cards_agree_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-awards-not-kept",
        "the C core's fact 5 takes another seat to play at once a card of an award "
        "the target shares in",
        (Hunk(CORE_C, "        for (int i = 0; i < c->n_owned[target]; i++) "
                      "c->keep_apart |= c->owned_mask[target][i];\n",
              '        (void)0;\n'),),
        (checks("tests/search/test_solver.py::test_isolated_cards_agree_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-below-ignored",
        "the C core's fact 5 calls a card isolated when nobody else holds a card above "
        "it in its stretch (someone below can still run into it)",
        (Hunk(CORE_C, "    return held & ~at_or_above(c, others) & "
                      "~at_or_below(c, others | (held & keep));",
              "    return held & ~at_or_below(c, others | (held & keep));"),),
        (checks("tests/search/test_solver.py::test_isolated_cards_agree_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-kept-above-ignored",
        "the C core's fact 5 plays an isolated card that has a card kept apart above it in its "
        "stretch (leading it would play that card too)",
        (Hunk(CORE_C, "    return held & ~at_or_above(c, others) & "
                      "~at_or_below(c, others | (held & keep));",
              "    return held & ~keep & ~at_or_above(c, others) & "
              "~at_or_below(c, others);"),),
        (checks("tests/search/test_solver.py::"
                "test_isolated_cards_below_a_kept_card_are_not_played_first"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-best-case",
        "the C core's fact 5 used for the best case, where the others play for the target",
        (Hunk(CORE_C, '    c->isolating = goal != GOAL_BEST_CASE && c->lead_rule == LEAD_ANY &&',
              '    c->isolating = c->lead_rule == LEAD_ANY &&'),),
        (checks("tests/search/test_solver.py::test_isolated_cards_agree_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact5-any-lead-rule",
        "the C core's fact 5 used under the lowest-card lead rules",
        (Hunk(CORE_C, '    c->isolating = goal != GOAL_BEST_CASE && c->lead_rule == LEAD_ANY &&',
              '    c->isolating = goal != GOAL_BEST_CASE &&'),),
        (checks("tests/search/test_solver.py::test_isolated_cards_agree_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-batch-forced-win-at-staying",
        "the C core's batch of leads reads a forced win off a paranoid value equal to the most "
        "the leader can end with without going out",
        (Hunk(CORE_C, "        if (v[0] > staying) { v[2] = 1; continue; }",
              "        if (v[0] >= staying) { v[2] = 1; continue; }"),),
        (checks("tests/search/test_lead_values.py"),),
    ),
    Mutant(
        "c-batch-bound-without-cards-left",
        "the C core's batch of leads starts each lead's search under a static bound that "
        "leaves out the others' cards left (what the leader takes going out)",
        (Hunk(CORE_C, "            if (o != target) v[1] += c->per_card * popcount(c->dealt[o] & "
                      "~after);",
              "            if (o != target) v[1] += 0;"),),
        (checks("tests/search/test_lead_values.py"),),
    ),
    Mutant(
        "c-fact5b-any-lead-rule",
        "the C core's fact 5b (the target on lead plays its isolated cards first) used under "
        "the lowest-card lead rules",
        (Hunk(CORE_C, "    c->self_isolating = goal != GOAL_BEST_CASE && c->lead_rule == LEAD_ANY;",
              "    c->self_isolating = goal != GOAL_BEST_CASE;"),),
        (checks("tests/search/test_solver.py::test_own_isolated_cards_agree_with_reference"),),
    ),
    Mutant(
        "c-fact3m-own-topped-stretch",
        "the C core's fact 3m (the target's lead in the others' race) counts its card more even "
        "where the seat goes out in its one stretch the target's card tops",
        (Hunk(CORE_C, "            sure = total - saving_topped;",
              "            sure = total - saving_topped + 1;"),),
        (checks("tests/search/test_race_lead.py::"
                "test_the_targets_lead_in_the_race_agrees_with_reference"),),
    ),
    Mutant(
        "c-fact3m-topped-stretch-skipped",
        "the C core's race skips a stretch the target's card tops when it holds no more of the "
        "target's cards than the best saving so far (fact 3m needs its own saving)",
        (Hunk(CORE_C, "            if (!is_topped && whole <= saving_rest) continue;",
              "            if (whole <= saving_rest) continue;"),),
        (checks("tests/search/test_race_lead.py::"
                "test_the_targets_lead_in_the_race_agrees_with_reference"),),
    ),
    Mutant(
        "c-fact6-leader-card-always",
        "the C core's floor with payments between players counts the card the target leads "
        "even when another seat is on lead",
        (Hunk(CORE_C, "now + loss + c->per_card * ((leader == target) - held)",
              "now + loss + c->per_card * (1 - held)"),),
        (checks("tests/search/test_choices.py::"
                "test_the_compiled_bounds_with_payments_between_players_agree_with_reference"),),
    ),
    Mutant(
        "c-fact6-losses-ignored",
        "the C core's floor with payments between players leaves out the others' Kings and "
        "Spin still to be played (what the target may yet pay)",
        (Hunk(CORE_C, "now + loss + c->per_card * ((leader == target) - held)",
              "now + c->per_card * ((leader == target) - held)"),),
        (checks("tests/search/test_choices.py::"
                "test_the_compiled_bounds_with_payments_between_players_agree_with_reference"),),
    ),
    Mutant(
        "c-fact6-gains-ignored",
        "the C core's bound with payments between players counts only the awards the target "
        "has taken, not those it may still take",
        (Hunk(CORE_C, "const val_t bound = now + gain + c->game_stake +",
              "const val_t bound = now + c->game_stake +"),),
        (checks("tests/search/test_choices.py::"
                "test_the_compiled_bounds_with_payments_between_players_agree_with_reference"),),
    ),
    Mutant(
        "c-fact6-losses-in-bound",
        "the C core's bound with payments between players charges the target for the others' "
        "Kings and Spin not yet played (they may never be)",
        (Hunk(CORE_C, "const val_t bound = now + gain + c->game_stake +",
              "const val_t bound = now + gain + loss + c->game_stake +"),),
        (checks("tests/search/test_choices.py::"
                "test_the_compiled_bounds_with_payments_between_players_agree_with_reference"),),
    ),
    Mutant(
        "c-fact6-forced-win",
        "the C core's bounds with payments between players, counters, used for the forced win "
        "(a 0 or 1)",
        (Hunk(CORE_C, "if (c->general == 2 && c->goal != GOAL_FORCED_WIN &&",
              "if (c->general == 2 &&"),),
        (checks("tests/search/test_choices.py::"
                "test_the_compiled_bounds_with_payments_between_players_agree_with_reference"),),
    ),
    Mutant(
        "c-fact10-spin-split-ignored",
        "the C core's forced-run search after Spin takes the stretches whole, as if Spin had "
        "never stopped a run below a stretch's top",
        (Hunk(CORE_C, '    const uint64_t gap = played & (~played >> 1) & c->fill[0];',
              '    const uint64_t gap = 0;'),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact10-payments-to-come-ignored",
        "the C core's floors with payments between players count the awards taken now, not the "
        "others' Kings and Spin still to be paid for",
        (Hunk(CORE_C,
              "        if (amount < 0 || !(c->owned_mask[t][i] & ~played)) taken += amount;",
              "        if (!(c->owned_mask[t][i] & ~played)) taken += amount;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact10-payments-counted-made",
        "the C core's bound with payments between players takes every payment to another seat "
        'as made (those not yet made may never be)',
        (Hunk(CORE_C, '    if (!c->paying) return c->all_mine;',
              '    if (!c->paying || 1) return c->all_mine;'),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact10-others-isolated",
        'the C core has another seat on lead lead its isolated cards first with payments '
        'between players even where a third seat holds a card the target pays for (the target '
        'may pay more in the longer line)',
        (Hunk(CORE_C,
              '        return c->isolating && !(c->pay_cards & ~played & ~c->dealt[leader])\n',
              '        return c->isolating && (!keep || !(c->pay_cards & ~played & '
              '~c->dealt[leader]))\n'),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact11-either-side",
        "the C core's general mode takes the forced-run floors before Spin is played whichever "
        "side Spin's holder plays on",
        (Hunk(CORE_C, '                              spin_side ? 1 : SPIN_OPEN))',
              '                              1))'),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact11-no-spin-slack",
        "the C core's bound before Spin is played forgets that Spin may stop one run short of "
        "its stretch's top",
        (Hunk(CORE_C, '    int paid_for = saving_max - forced_total + gap_max;',
              '    int paid_for = saving_max - forced_total;'),
         Hunk(CORE_C,
              "        if (forced == SPIN_OPEN) bound += pay_gap - c->per_card * gap_max;",
              "        (void)pay_gap;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact13-own-spin-ignored",
        "the C core's bound before Spin is played counts the gap Spin may leave only where "
        "another seat holds Spin, not where the target stops its own run with it",
        (Hunk(CORE_C,
              "    uint64_t stops = c->dealt[c->holder[c->spin_slot]] & ~played & span & "
              "~(1ULL << c->spin_slot);",
              "    uint64_t stops = c->dealt[c->holder[c->spin_slot]] & ~played & span & "
              "~(1ULL << c->spin_slot) & ~c->dealt[c->target];"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact13-gap-payments-charged",
        "the C core's bound before Spin is played charges the payments for the others' Kings "
        "in the gap Spin may leave unplayed",
        (Hunk(CORE_C,
              "        if (c->paying)\n"
              "            counters += forced_payments(c, played, span) - "
              "forced_payments(c, played, span & ~gap);\n",
              ""),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact12-saving-span-charged",
        "the C core's bound with payments between players charges the payments forced in every "
        'span, that of the span where the target may go out too',
        (Hunk(CORE_C, '        bound += pay_saving - c->per_card * saving_max - pay_total;',
              '        bound -= pay_total;'),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact15-paid-awards-sign",
        "the C core's fact 5 with payments between players looks for a third seat's card of "
        "the awards the target takes instead of those it pays for",
        (Hunk(CORE_C,
              "            if (c->owned_amount[target][i] < 0) c->pay_cards |= "
              "c->owned_mask[target][i];",
              "            if (c->owned_amount[target][i] > 0) c->pay_cards |= "
              "c->owned_mask[target][i];"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact14-race-no-gap",
        "the C core's race floor before Spin is played, Spin's holder against the target, "
        "forgets that Spin may leave the target's cards of one gap unplayed",
        (Hunk(CORE_C, "        sure -= gap_max;  /* fact 14 */", "        (void)gap_max;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact14-race-target-lead",
        "the C core's race floor before Spin is played, Spin's holder against the target, "
        "counts the target's lead of a free card (fact 3m), which a run stopped by Spin "
        "need not give it",
        (Hunk(CORE_C, "                                              forced && leader != t,",
              "                                              (forced || forced_mode == SPIN_OPEN)"
              " && leader != t,"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact16-own-spin-ignored",
        "the C core's bound of a target that can never go out forgets that its own unplayed "
        "Spin keeps it the lead after one more lead into another seat's cards",
        (Hunk(CORE_C, "    const int spin = c->spin_slot >= 0 && c->holder[c->spin_slot] == t &&",
              "    const int spin = 0 && c->spin_slot >= 0 && c->holder[c->spin_slot] == t &&"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact16-no-last-lead",
        "the C core's bound of a target that can never go out forgets the lead into another "
        "seat's cards that ends its tenure on lead",
        (Hunk(CORE_C, "    const int left = n_covered - 1 - spin;",
              "    const int left = n_covered - spin;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact16-tenure-ignored",
        "the C core's bound of a target that can never go out takes it to keep every card it "
        "holds when it is on lead too",
        (Hunk(CORE_C, "    if (leader != t) {\n        *kept = popcount(held);",
              "    if (1) {\n        *kept = popcount(held);"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact16-most-paid",
        "the C core's bound of a target that can never go out charges the payments of the seat "
        "whose going out costs it most, not least",
        (Hunk(CORE_C, "                if (pay < least) least = pay;",
              "                if (least == INF || pay > least) least = pay;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact16-unlocked-on-lead",
        "the C core's bound of a target on lead takes it to be locked out without looking for "
        "another seat's card below one of its own",
        (Hunk(CORE_C, "    if (held & at_or_above(c, others)) return 0;",
              "    if (leader != t && (held & at_or_above(c, others))) return 0;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact20-any-lead-rule",
        "the C core settles the target's isolated cards in the best case with payments between "
        "players under any lead rule, where leaving cards out changes which leads are legal",
        (Hunk(CORE_C, "        c->lead_rule == LEAD_ANY) {\n        c->self_isolating = 1;",
              "        1) {\n        c->self_isolating = 1;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact21-gap-top-not-saved",
        "the C core's gap of fact 13 leaves out its top card whatever it is, not only Spin "
        "(played on its holder's card, so not left unplayed)",
        (Hunk(CORE_C, "        gap &= ~(1ULL << c->spin_slot);  /* fact 21: Spin, played on s, is "
              "not left unplayed */",
              "        if (gap) gap &= ~(1ULL << top_index(gap));"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-spin-leads-cutoff-either-way",
        "the C core's general mode before Spin is played ends a node on a forced lead's "
        "stored bound whichever way it falls",
        (Hunk(CORE_C, "        if (maximising ? lower >= *beta : upper <= *alpha) {",
              "        if (lower >= *beta || upper <= *alpha) {"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-spin-leads-spin-on-the-lead",
        "the C core's general mode takes a lead of Spin's holder for forced when no other card "
        "of his is in its run, forgetting he may play Spin on the card he leads",
        (Hunk(CORE_C, "        if (!(run & spinner)) {",
              "        if (!(run & spinner & ~(1ULL << moves[i]))) {"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact18-spin-led-by-others",
        "the C core's general mode has another seat on lead that holds Spin lead it among its "
        "isolated cards before Spin is played (kept, it stops a run later)",
        (Hunk(CORE_C,
              "               ? played | isolated_cards(c, played, leader, c->keep_apart | keep) "
              ": played;",
              "               ? played | isolated_cards(c, played, leader, c->keep_apart) "
              ": played;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact18-spin-led-by-target",
        "the C core's general mode has the target on lead lead its own Spin among its "
        "isolated cards before Spin is played",
        (Hunk(CORE_C,
              "    return c->self_isolating ? played | isolated_cards(c, played, leader, "
              "c->self_keep | keep)",
              "    return c->self_isolating ? played | isolated_cards(c, played, leader, "
              "c->self_keep)"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact18-third-seat-king",
        "the C core's general mode has another seat on lead lead its isolated cards before "
        "Spin is played even where a third seat holds a card the target pays for",
        (Hunk(CORE_C,
              "        return c->isolating && !(c->pay_cards & ~played & ~c->dealt[leader])\n",
              "        return c->isolating && (keep || !(c->pay_cards & ~played & "
              "~c->dealt[leader]))\n"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact19-spin-paid-always",
        "the C core's bound before another seat's Spin is played charges the target for Spin "
        "even where no gap is counted (Spin may never be played)",
        (Hunk(CORE_C, "            bound -= pay_gap < spin_paid ? pay_gap : spin_paid;",
              "            bound -= spin_paid;"),),
        (checks("tests/search/test_choices.py::"
                "test_the_forced_run_facts_with_spin_agree_with_reference"),),
    ),
    Mutant(
        "c-fact19-spin-in-a-stretch",
        "the C core's bound before another seat's Spin is played charges Spin's payment for its "
        "gap under ace high too, where a run can climb into Spin and fact 12 may charge it",
        (Hunk(CORE_C, "        if (forced == SPIN_OPEN && c->holder[c->spin_slot] != t && "
              "spin_alone(c)) {",
              "        if (forced == SPIN_OPEN && c->holder[c->spin_slot] != t) {"),),
        (checks("tests/search/test_choices.py::"
                "test_spins_payment_is_charged_for_its_gap_only_where_spin_stands_alone"),),
    ),
    Mutant(
        "forced-win-at-staying-bound",
        "lead_values reads a forced win off a paranoid value equal to the most the leader can "
        "end with without going out (not only above it)",
        (Hunk("popejoan_solver/search/leads.py", "    if guaranteed.lower > staying():",
              "    if guaranteed.lower >= staying():"),),
        (checks("tests/search/test_lead_values.py::"
                "test_a_value_above_the_most_the_leader_ends_with_in_hand_is_a_forced_win"),),
    ),
    Mutant(
        "staying-bound-ignores-kept-pope",
        "the most a seat ends with without going out charges a card left even to the holder "
        "of the Pope, who may keep it and pay nothing",
        (Hunk("popejoan_solver/model/settlement.py",
              "    if exempt is not None and game.dealt[index] >> exempt & 1:\n"
              "        return best - min(game.table.per_card_left, needs_exempt)\n",
              "    if exempt is not None and game.dealt[index] >> exempt & 1:\n"
              "        return best - max(game.table.per_card_left, needs_exempt)\n"),),
        (checks("tests/search/test_lead_values.py::"
                "test_a_value_above_the_most_the_leader_ends_with_in_hand_is_a_forced_win"),),
    ),
    Mutant(
        "c-fact4-lieu-carries-on-ignored",
        "the C core's fact 4 with the Pope in lieu skips a lead of the leader's own run even "
        "where the Pope played at its stop carries the run on (no order of his leads plays "
        "that run)",
        (Hunk(CORE_C, "(run & (run - 1)) && lieu_goes_on(c, played, top_index(run)) < 0)",
              "(run & (run - 1)))"),),
        (checks(*(f"tests/search/test_choice_differential.py::"
                  f"test_fast_engines_agree_with_reference_on_choice_deals"
                  f"[hoyle-modernized+pope_in_lieu=run-continues,lead=any,ace={ace}]"
                  for ace in ("low", "high")),
                name="search/test_choice_differential.py::"
                     "test_fast_engines_agree_with_reference_on_choice_deals"
                     "[...run-continues,lead=any...]"),
         checks("tests/search/test_choice_differential.py")),
    ),
    Mutant(
        "c-fact3k-all-cards",
        "the C core's fact 3k counts every card of the best lead's run as the target's",
        (Hunk(CORE_C, "            const int sure = n_own + popcount(run & held);",
              "            const int sure = n_own + popcount(run);"),),
        (checks("tests/search/test_solver.py::test_the_lead_floor_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "fast-one-counter-per-card",
        "the Python fast engine's payoff counts one counter for each card left, not the rule "
        "table's per_card_left",
        (Hunk("popejoan_solver/search/slots.py",
              "                        value += self.per_card * left.bit_count()",
              "                        value += left.bit_count()"),),
        (PER_CARD,),
    ),
    Mutant(
        "c-one-counter-per-card",
        "the C core's payoff counts one counter for each card left, not the rule table's "
        "per_card_left",
        (Hunk(CORE_C, "            if (!(left & c->exempt_bit)) value += c->per_card * "
                      "popcount(left);",
              "            if (!(left & c->exempt_bit)) value += popcount(left);"),),
        (PER_CARD,),
    ),
    Mutant(
        "c-fact3-one-counter-per-card",
        "the C core's fact 3 bound counts one counter for each card the target is paid for, "
        "not the rule table's per_card_left",
        (Hunk(CORE_C, "    val_t bound = mine + c->per_card * paid_for;",
              "    val_t bound = mine + paid_for;"),),
        (PER_CARD,),
    ),
    Mutant(
        "c-fact3d-one-counter-per-card",
        "the C core's floor (facts 3c-3g) charges one counter for each card the target keeps, "
        "not the rule table's per_card_left",
        (Hunk(CORE_C, "    if (!(held & c->exempt_bit)) return c->per_card * (sure - "
                      "popcount(held));",
              "    if (!(held & c->exempt_bit)) return sure - popcount(held);"),),
        (PER_CARD,),
    ),
    Mutant(
        "c-fact6-one-counter-per-card",
        "the C core's fact 6 bound (payments between players) counts one counter for each "
        "card of the others, not the rule table's per_card_left",
        (Hunk(CORE_C, "                        c->per_card * popcount(c->in_play & ~played & "
                      "~c->dealt[target]);",
              "                        popcount(c->in_play & ~played & ~c->dealt[target]);"),),
        (PER_CARD,),
    ),
    Mutant(
        "c-exempt-holder-pays",
        "the C core's payoff charges the holder of an unplayed Pope for its cards when another "
        "seat goes out (the exemption the rule table gives is lost)",
        (Hunk(CORE_C, "        if (!(left & c->exempt_bit)) value -= c->per_card * popcount(left);",
              "        value -= c->per_card * popcount(left);"),),
        (C_RESTATES,),
    ),
    Mutant(
        "c-lowest-in-hand-as-lowest-of-suit",
        "the C core's lead generator takes lead=lowest-in-hand as lowest-of-suit",
        (Hunk(CORE_C, "    if (c->lead_rule == LEAD_LOWEST_OF_SUIT) {",
              "    if (c->lead_rule != LEAD_ANY) {"),),
        (C_RESTATES,),
    ),
    Mutant(
        "c-fact3d-block-any-rule",
        "the C core's fact 3d floor counts the target's longest block as played first under "
        "every lead rule, not only lead=any (one card otherwise)",
        (Hunk(CORE_C, "c->lead_rule == LEAD_ANY ? own_block(held) : 1;",
              "own_block(held);"),),
        (DIFFERENTIAL,),
    ),
    Mutant(
        "c-fact3e-pope-kept-any-rule",
        "the C core's fact 3e takes the Pope's holder to keep it to the end under every lead "
        "rule (under the lowest-card rules it may have to lead it)",
        (Hunk(CORE_C, "    c->exempt_kept = c->exempt_bit && c->lead_rule == LEAD_ANY &&",
              "    c->exempt_kept = c->exempt_bit &&"),),
        (checks("tests/search/test_solver.py::test_the_kept_pope_floor_needs_lead_any"),
         DIFFERENTIAL),
    ),
    Mutant(
        "c-fact3g-pope-in-own-run",
        "the C core's fact 3g plays the target's Pope among its own runs first (it may keep it, "
        "exempt, to the end)",
        (Hunk(CORE_C, "    return held & ~c->exempt_bit & ~at_or_below(",
              "    return held & ~at_or_below("),),
        (checks("tests/search/test_solver.py::test_the_own_runs_floor_agrees_with_reference"),
         DIFFERENTIAL),
    ),
    Mutant(
        "table-spinado-pairs-divided",
        "Spinado's Matrimony and Intrigue shared by the holders of a divided pair (against "
        "\"go only to a player able to play both cards concerned\"): every backend follows",
        (Hunk("popejoan_solver/model/table.py",
              "    pair_taker = Taker.DIVIDED if rules.pairs is PairRule.DIVIDED else "
              "Taker.SAME_PLAYER\n    diamond = partial(make_card, Suit.DIAMONDS)",
              "    pair_taker = Taker.DIVIDED\n    diamond = partial(make_card, Suit.DIAMONDS)"),),
        (CONFORMANCE,),
    ),
    Mutant(
        "table-spinado-kings-swapped",
        "Spinado's Kings paid by the wrong suit: 2 for the king of clubs, 1 for the king of "
        "diamonds",
        (Hunk("popejoan_solver/model/table.py",
              "SPINADO_KINGS = ((Suit.CLUBS, 1), (Suit.DIAMONDS, 2),",
              "SPINADO_KINGS = ((Suit.CLUBS, 2), (Suit.DIAMONDS, 1),"),),
        (CONFORMANCE,),
    ),
    Mutant(
        "table-exemption-from-wrong-option",
        "the Pope's exemption read from the wrong option (pools) in the rule table",
        (Hunk("popejoan_solver/model/table.py",
              "        exempt_card=POPE if rules.pope_exemption else None,",
              "        exempt_card=POPE if rules.pools is Pools.FIVE else None,"),),
        (CONFORMANCE,),
    ),
    Mutant(
        "table-pope-turnup-readings-swapped",
        "the turn-up that ends the deal read the other way round: Hoffmann's Pope turn-up ends "
        "the deal, the early Hoyle's is played",
        (Hunk("popejoan_solver/model/table.py",
              "ends_deal_turnup=POPE if rules.pope_turnup is PopeTurnup.ENDS_DEAL else None,",
              "ends_deal_turnup=POPE if rules.pope_turnup is PopeTurnup.COMPARTMENT else None,"),),
        (CONFORMANCE,),
    ),
    Mutant(
        "encoding-ends-deal-without-game",
        "the z3 settlement of a Pope turn-up that ends the deal leaves Game on the board (the "
        "dealer's 40 counters become 39 in the encoding only)",
        (Hunk("popejoan_solver/logic/settlement_encoding.py",
              "        take[Compartment.GAME] = any_of([take[Compartment.GAME], ends])",
              "        take[Compartment.GAME] = take[Compartment.GAME]"),),
        (CONFORMANCE,),
    ),
    Mutant(
        "c-spin-not-on-a-stop",
        "the C core does not offer Spin on a card that stops the run anyway (the same seat "
        "leads next either way, but under the lowest-card leads it may not lead the A-diamond)",
        (Hunk(CORE_C,
              "    if (spin < 0 || slot == spin || c->holder[spin] != seat || "
              "(played >> spin & 1))",
              "    if (spin < 0 || slot == spin || c->holder[spin] != seat || (played >> spin & 1)"
              "\n        || slot % 13 == 12 || !(c->in_play >> (slot + 1) & 1)"
              " || (played >> (slot + 1) & 1))"),),
        (CHOICE_CORNERS,),
    ),
)


class StaleMutantError(Exception):
    """A mutant's old text is not found exactly once: the code moved on; update the patch."""


def apply(mutant: Mutant, tree: Path) -> None:
    """Apply every hunk of ``mutant`` to the copy at ``tree``, or raise StaleMutantError."""
    for hunk in mutant.hunks:
        path = tree / hunk.path
        if not path.is_file():
            raise StaleMutantError(f"{hunk.path} does not exist")
        text = path.read_text(encoding="utf-8")
        count = text.count(hunk.old)
        if count != 1:
            first = hunk.old.strip().splitlines()[0]
            raise StaleMutantError(f"old text found {count} times in {hunk.path} (expected "
                                   f"once): {first!r}")
        path.write_text(text.replace(hunk.old, hunk.new), encoding="utf-8")


def lint(mutant: Mutant, tree: Path) -> str:
    """Problems that would make the patched code fail before it can be wrong (a syntax error,
    an undefined name), found by ruff; empty when it stands, or when ruff is not installed.
    A mutant that dies of a NameError proves nothing about the checks."""
    if importlib.util.find_spec("ruff") is None:
        return ""
    paths = sorted({h.path for h in mutant.hunks if h.path.endswith(".py")})
    if not paths:
        return ""
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache",
                           "--select", "E9,F63,F7,F82", "--output-format", "concise", *paths],
                          cwd=tree, capture_output=True, text=True)
    if done.returncode == 0:
        return ""
    found = [ln for ln in done.stdout.splitlines() if ln.startswith(tuple(paths))]
    return "; ".join(found[:3]) or (done.stdout + done.stderr).strip()[:200]


def export_tree(dest: Path, source: str = "HEAD") -> None:
    """The repository's committed tree at ``source`` (``git archive``) in ``dest``; a copy of
    the files on disk when ``source`` is ``worktree`` or git is unavailable."""
    dest.mkdir(parents=True)
    if source != "worktree":
        try:
            data = subprocess.run(["git", "-C", str(ROOT), "archive", source],
                                  capture_output=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            data = b""
        if data:
            with tarfile.open(fileobj=io.BytesIO(data)) as archive:
                archive.extractall(dest, filter="data")
            return
    ignore = shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.so", "build", "*.egg-info",
                                    ".*_cache", ".hypothesis", "benchmarks")
    for item in ROOT.iterdir():
        if item.name.startswith(".") or item.name == "benchmarks":
            continue
        if item.is_dir():
            shutil.copytree(item, dest / item.name, ignore=ignore)
        else:
            shutil.copy2(item, dest / item.name)


def build_core(tree: Path) -> str:
    """Compile the C core in the copy; what happened, in a few words."""
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                          cwd=tree, capture_output=True, text=True)
    built = list((tree / "popejoan_solver" / "search").glob("_core*.so"))
    if done.returncode or not built:
        return "the C core did not build: the Python engines only"
    return "C core built from the copy's _core.c"


def rebuild_mutated_core(mutant: Mutant, tree: Path) -> str:
    """For a mutant of the C core: the copy's core rebuilt from the mutated source (the base's
    build removed first, so that a mutant that does not compile cannot run the true core);
    empty when it built, else the compiler's first error."""
    if not any(h.path.endswith(".c") for h in mutant.hunks):
        return ""
    for old in (tree / "popejoan_solver" / "search").glob("_core*.so"):
        old.unlink()
    shutil.rmtree(tree / "build", ignore_errors=True)
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
                          cwd=tree, capture_output=True, text=True)
    if not done.returncode and list((tree / "popejoan_solver" / "search").glob("_core*.so")):
        return ""
    errors = [ln for ln in (done.stdout + done.stderr).splitlines() if "error" in ln]
    return f"the mutated C core did not build: {(errors or ['no core built'])[0][:160]}"


def run_killer(killer: Killer, tree: Path, timeout: float) -> Verdict:
    """Run ``killer`` in the copy at ``tree``; killed when it fails there."""
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTEST_ADDOPTS", None)
    start = time.perf_counter()
    proc = subprocess.Popen(killer.command(), cwd=tree, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return Verdict(killer, False, f"timed out after {timeout:.0f} s",
                       time.perf_counter() - start)
    seconds = time.perf_counter() - start
    killed, detail = judge(killer, proc.returncode, out, err)
    return Verdict(killer, killed, detail, seconds)


def judge(killer: Killer, status: int, out: str, err: str) -> tuple[bool, str]:
    """Did the killer fail (the mutant is caught), and how, from its exit status and output."""
    if killer.kind is Kind.PROVE:
        try:
            (theorem,) = json.loads(out)["theorems"]
            found = str(theorem["status"])
        except (ValueError, KeyError, TypeError):
            last = (err.strip().splitlines() or ["no output"])[-1]
            return True, f"exit {status}: {clip(last)}"
        if found == killer.expect:
            return False, found
        return True, f"{found} (expected {killer.expect})"
    if status == 0:
        return False, "passed"
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, flags=re.MULTILINE)
    if failed:
        return True, f"{failed[0].removeprefix('tests/')} failed"
    last = ((out + err).strip().splitlines() or ["no output"])[-1]
    return True, f"exit {status}: {clip(last)}"


def clip(text: str, width: int = 110) -> str:
    """``text`` cut at a word to at most ``width`` characters, marked when cut."""
    if len(text) <= width:
        return text
    return text[:width].rsplit(" ", 1)[0] + " ..."


@dataclass
class Session:
    """A base copy of the repository and the killers' verdicts on it (computed when needed)."""

    base: Path
    timeout: float
    baseline: dict[Killer, Verdict] = field(default_factory=dict)

    def sound(self, killer: Killer) -> Verdict:
        """The killer's verdict on the unmutated copy (it must pass there to count)."""
        if killer not in self.baseline:
            self.baseline[killer] = run_killer(killer, self.base, self.timeout)
        return self.baseline[killer]

    def run(self, mutant: Mutant, all_killers: bool = False) -> MutantResult:
        """Apply ``mutant`` in a fresh copy of the base and run its killers there."""
        start = time.perf_counter()
        tree = self.base.parent / f"mutant-{mutant.name}"
        shutil.copytree(self.base, tree, symlinks=True)
        try:
            try:
                apply(mutant, tree)
            except StaleMutantError as exc:
                return MutantResult(mutant, Fate.STALE, [], time.perf_counter() - start,
                                    f"patch does not apply: {exc}")
            problems = lint(mutant, tree) or rebuild_mutated_core(mutant, tree)
            if problems:
                return MutantResult(mutant, Fate.INVALID, [], time.perf_counter() - start,
                                    f"the patched code is broken: {problems}")
            result = MutantResult(mutant, Fate.SURVIVED)
            for killer in mutant.killers:
                verdict = run_killer(killer, tree, self.timeout)
                if verdict.killed and self.sound(killer).killed:
                    verdict = Verdict(killer, False, f"{verdict.detail}, but it fails on the "
                                      "unmutated copy too", verdict.seconds)
                result.verdicts.append(verdict)
                if verdict.killed:
                    result.status = Fate.KILLED
                    if not all_killers:
                        break
            result.seconds = time.perf_counter() - start
            return result
        finally:
            shutil.rmtree(tree, ignore_errors=True)


def make_session(workdir: Path, source: str, build: bool, timeout: float) -> tuple[Session, str]:
    """The base copy in ``workdir`` (with the sources beside it, as in the checkout)."""
    base = workdir / "base"
    export_tree(base, source)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (workdir / "shared").symlink_to(shared)
    note = build_core(base) if build else "C core not built: the Python engines only"
    return Session(base, timeout), note


def run_mutants(mutants: Iterable[Mutant], *, source: str = "HEAD", build: bool = True,
                timeout: float = DEFAULT_TIMEOUT, all_killers: bool = False,
                echo: bool = False) -> list[MutantResult]:
    """Run each mutant in its own copy of the repository; the results in order."""
    with tempfile.TemporaryDirectory(prefix="popejoan-mutants-") as tmp:
        session, note = make_session(Path(tmp), source, build, timeout)
        if echo:
            print(f"# copy of {source} in {tmp}; {note}", flush=True)
        results = []
        for mutant in mutants:
            result = session.run(mutant, all_killers)
            if echo:
                print(line(result), flush=True)
            results.append(result)
        return results


def line(result: MutantResult) -> str:
    return f"{result.mutant.name}: {result.status} ({result.seconds:.1f} s): {result.caught_by()}"


def markdown(results: Sequence[MutantResult]) -> str:
    """The table of ``docs/proofs.md``: mutant, what it breaks, what caught it, time."""
    rows = ["| mutant | the slip | caught by | got through | time |", "|---|---|---|---|---|"]
    for r in results:
        where = ", ".join(dict.fromkeys(h.path.removeprefix("popejoan_solver/")
                                        for h in r.mutant.hunks))
        caught = r.caught_by() if r.status is Fate.KILLED else f"**{r.status}**: {r.caught_by()}"
        rows.append(f"| `{r.mutant.name}` ({where}) | {r.mutant.what} | "
                    f"{caught.replace('|', '/')} | {r.got_through()} | {r.seconds:.0f} s |")
    return "\n".join(rows) + "\n"


def select(names: Sequence[str]) -> list[Mutant]:
    """The named mutants (all when none is named); ValueError for an unknown name."""
    known = {m.name: m for m in MUTANTS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown mutant {unknown[0]!r} (see --list)")
    return [known[n] for n in names] if names else list(MUTANTS)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", help="mutants to run (all by default)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--all-killers", action="store_true",
                        help="run every killer of a mutant, not only up to the first kill")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds per killer (default %(default)s)")
    parser.add_argument("--source", default="HEAD",
                        help="the commit to copy (default HEAD), or 'worktree' for the files "
                             "on disk")
    parser.add_argument("--no-build", action="store_true", help="do not compile the C core")
    parser.add_argument("--markdown", type=Path, help="write the table to this file")
    parser.add_argument("--json", type=Path, help="write the results as JSON to this file")
    args = parser.parse_args(argv)
    try:
        chosen = select(args.names)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for m in chosen:
            print(f"{m.name}: {m.what} [{', '.join(k.label for k in m.killers)}]")
        return 0
    start = time.perf_counter()
    results = run_mutants(chosen, source=args.source, build=not args.no_build,
                          timeout=args.timeout, all_killers=args.all_killers, echo=True)
    total = time.perf_counter() - start
    caught = sum(r.status is Fate.KILLED for r in results)
    print(f"# {caught} of {len(results)} mutants caught in {total:.0f} s")
    if args.markdown:
        args.markdown.write_text(markdown(results), encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps([to_json(r) for r in results], indent=2) + "\n",
                             encoding="utf-8")
    for r in results:
        if r.status is not Fate.KILLED:
            print(f"error: mutant {r.mutant.name} {r.status}: {r.caught_by()}", file=sys.stderr)
    return 0 if caught == len(results) else 1


def to_json(result: MutantResult) -> dict[str, object]:
    return {"mutant": result.mutant.name, "what": result.mutant.what,
            "status": result.status.value,
            "seconds": round(result.seconds, 1), "note": result.note,
            "killers": [{"killer": v.killer.label, "killed": v.killed, "detail": v.detail,
                         "seconds": round(v.seconds, 1)} for v in result.verdicts]}


if __name__ == "__main__":
    sys.exit(main())
