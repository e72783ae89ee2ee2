"""The conformance suite: small examples worked by hand from the rule texts, each run through
every implementation of the rules — the rules model (play and settlement), the fast engine in
Python and in the compiled core, and the z3 settlement — and compared with what the source's
words give, never with another backend's answer.

An example is TOML data shipped in the package (``popejoan_solver/data/conformance``): the
quoted phrase with its work (a :data:`~popejoan_solver.model.sources.WORKS` key) and section,
what it ``covers`` (tags of :data:`COVERS`), the ruleset, the hands (every other card of the
pack is dead) and the turn-up, an optional ``board`` (carried-over counters; the fresh
dressing by default), the ``line`` played (steps as a line of play writes them, ``5C+AD@6C``)
and an ``[expect]`` table, each key optional:

- ``payments``: every transfer of the turn-up and the play, exactly: ``{from, to, amount,
  kind}``, a seat from 1 or a compartment's name, and a :class:`TransferKind` value;
- ``dressing_pays`` (what each seat pays to dress a fresh board, eldest first) and
  ``dressing_board`` (the fresh board; a compartment not named holds none); ``dressings``, a
  list of ``{players, pays, board}``, the same for other numbers of players (checked on a deal
  of one card a seat);
- ``out`` (the seat out at the end of the line, 0 for none), ``next_leader`` (who leads after
  it), ``runs`` (the cards of each run of the line), ``deal_played`` (false when the turn-up
  ends the deal), ``legal_leads`` (exactly the cards the seat on lead may lead after the line),
  ``refused`` (steps the rules forbid at the outset: the model must refuse each).

Each backend checks what it can express: the model all of it; the engines the play's net for
every seat (exactly from every position of the line from which the rest of it is the only
play, as a lower bound of the best case elsewhere) and the legal leads; the z3 settlement
every seat's dressing, turn-up and play nets and what each compartment paid out, for a line
that ends the deal. A :class:`Mismatch` names the example, the backend and the payment.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, Final

from ..files.reading import read_bounded, read_text_file
from ..logic.semantics import PlaySemantics
from ..logic.settlement_values import encoded_settlement
from ..model.board import Board, Compartment
from ..model.cards import CardSet, card_name, parse_card
from ..model.deal import Deal
from ..model.errors import NotationError, PopeJoanError, clip
from ..model.notation import decode_toml, parse_step
from ..model.play import Position, Run
from ..model.rules import Ruleset, get_ruleset
from ..model.settlement import (
    Transfer,
    apply_to_board,
    net,
    settle,
    turnup_award,
    turnup_ends_deal,
)
from ..model.sources import WORKS, Work
from ..model.table import TransferKind
from ..search.fast import COMPILED, FastEngine
from ..search.objective import Goal, Objective
from ..search.slots import SlotGame

COVERS: Final = frozenset({
    "honour", "pope", "matrimony", "intrigue", "pairs-divided", "game", "cards-left",
    "exemption", "exemption-ends", "spinado-king", "spin", "spinado-pairs",
    "lead-any", "lead-lowest-of-suit", "lead-lowest-in-hand",
    "ace-low", "ace-high", "king-stop", "seven-of-diamonds", "dead-hand", "stock",
    "played-stop", "out-mid-run", "dressing-dealer", "dressing-players", "dressing-peel",
    "dressing-britannica-1911", "dressing-spinado", "five-pools", "turnup-compartment",
    "turnup-ends-deal", "turnup-honour", "in-lieu-run-continues", "in-lieu-pope-leads",
    "in-lieu-after-king", "carried-board"})
"""What an example may say it covers: payments and their takers, lead rules, successors and
stops, dressings and pools, the readings of the choices, the turn-ups."""

PLAY_KINDS: Final = frozenset({
    TransferKind.POPE, TransferKind.HONOUR, TransferKind.MATRIMONY, TransferKind.INTRIGUE,
    TransferKind.SPINADO_KING, TransferKind.SPIN, TransferKind.GAME, TransferKind.CARDS_LEFT})
"""The payments of the play (what the engines value); the others are the turn-up's."""

Payment = tuple[str, str, int, str]
"""A transfer as an example writes it: from, to (``seat 2`` or a compartment), amount, kind."""


@dataclass(frozen=True)
class Example:
    """One hand-worked example: its source, its deal and line, and what the source says."""

    name: str
    work: Work
    section: str
    phrase: str
    note: str
    covers: tuple[str, ...]
    deal: Deal
    line: tuple[str, ...]
    expect: Mapping[str, Any]

    @property
    def citation(self) -> str:
        return f"{self.work.citation()}, \"{self.section}\": \"{self.phrase}\""


@dataclass(frozen=True)
class Mismatch:
    """A backend's answer that differs from the example's."""

    example: str
    backend: str
    what: str
    expected: object
    found: object

    def __str__(self) -> str:
        return (f"{self.example}: {self.backend}: {self.what}: expected {self.expected}, "
                f"found {self.found}")


@dataclass(frozen=True)
class ExampleResult:
    """An example and what every backend reported on it."""

    example: Example
    mismatches: tuple[Mismatch, ...]

    @property
    def agrees(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        """The example's name, its source and quoted phrase, what it covers, whether every
        backend agrees, and each mismatch (the backend, what, expected and found)."""
        return {"name": self.example.name, "work": self.example.work.citation(),
                "section": self.example.section, "phrase": self.example.phrase,
                "covers": list(self.example.covers), "agrees": self.agrees,
                "mismatches": [{"backend": m.backend, "what": m.what,
                                "expected": _plain(m.expected), "found": _plain(m.found)}
                               for m in self.mismatches]}


def _plain(value: object) -> object:
    """A mismatch's value as JSON takes it (lists and dicts of numbers and strings)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value if isinstance(value, (int, str, bool)) or value is None else str(value)


def examples_folder() -> Traversable:
    """The folder of the conformance examples, inside the installed package."""
    return resources.files("popejoan_solver") / "data" / "conformance"


def load_examples(folder: Traversable | None = None) -> list[Example]:
    """Every example (``*.toml``) of ``folder`` (the packaged ones by default), by file name."""
    where = folder if folder is not None else examples_folder()
    files = sorted((f for f in where.iterdir() if f.name.endswith(".toml") and f.is_file()),
                   key=lambda f: f.name)
    if not files:
        raise NotationError(f"no conformance examples (*.toml) in {clip(str(where))}")
    examples = [load_example(f.name, _read(f)) for f in files]
    names = [e.name for e in examples]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise NotationError(f"conformance example {twice[0]!r} is named twice")
    return examples


def _read(path: Traversable) -> str:
    """An example file's text, bounded like every input file (a packaged one too)."""
    if isinstance(path, Path):
        return read_text_file(path)
    with path.open("rb") as handle:
        return read_bounded(handle, path.name)


def load_example(filename: str, text: str) -> Example:
    """One example from its TOML text; :class:`NotationError` when it is malformed."""
    try:
        data = decode_toml(text)
    except PopeJoanError as exc:
        raise NotationError(f"{filename}: {exc}") from None
    if not isinstance(data, dict):
        raise NotationError(f"{filename}: an example is a TOML table")
    try:
        works = {w.key: w for w in WORKS}
        work = works[data["work"]]
        covers = tuple(data["covers"])
        unknown = sorted(set(covers) - COVERS)
        if unknown:
            raise NotationError(f"{filename}: unknown tag {unknown[0]!r} in covers")
        rules = get_ruleset(str(data["rules"]))
        return Example(str(data["name"]), work, str(data.get("section", work.section or "")),
                       str(data["phrase"]), str(data.get("note", "")), covers,
                       _deal(data, rules), tuple(data.get("line", ())), data["expect"])
    except (KeyError, TypeError, ValueError) as exc:
        raise NotationError(f"{filename}: malformed example: {exc!r}") from None


def _deal(data: Mapping[str, Any], rules: Ruleset) -> Deal:
    """The example's hands and turn-up, every other card of the pack dead."""
    hands = tuple(CardSet.parse(h).mask for h in data["hands"])
    held = 0
    for hand in hands:
        held |= hand
    board = Board.from_json(data["board"]) if "board" in data else None
    return Deal.create(hands, rules.table.pack & ~held, parse_card(data["turnup"]), rules, board)


def check_examples(examples: Sequence[Example]) -> Iterator[Mismatch]:
    """Every mismatch of every example, backend by backend."""
    for example in examples:
        yield from check_example(example)


def example_results(examples: Sequence[Example]) -> Iterator[ExampleResult]:
    """Each example's result, in order, as it is checked."""
    for example in examples:
        yield ExampleResult(example, tuple(check_example(example)))


def check_example(example: Example) -> list[Mismatch]:
    """The example through the model, both engines and the z3 settlement; a malformed
    expectation (a compartment or kind not known, a value of the wrong type) is a
    :class:`NotationError`."""
    try:
        return _check_example(example)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise NotationError(f"{example.name}: malformed expectation: {exc!r}") from None


def _check_example(example: Example) -> list[Mismatch]:
    try:
        positions, runs = _play(example)
    except PopeJoanError as exc:
        return [Mismatch(example.name, "model", "the line", "playable", str(exc))]
    found = _check_model(example, positions, runs)
    found += _check_engines(example, positions)
    found += _check_z3(example, positions[-1])
    for dressing in example.expect.get("dressings", ()):
        found += _check_dressing(example, dressing)
    return found


DRESSING_HANDS: Final = ("4C", "6H", "7S", "9H", "TH", "3S", "QC", "5H")
"""One card a seat for the deals of ``dressings`` (eldest's 4C ends the deal at once)."""


def _check_dressing(example: Example, dressing: Mapping[str, Any]) -> list[Mismatch]:
    """One entry of ``dressings``: for ``players`` players under the example's ruleset, what
    each seat pays and the fresh board, from the model and from the z3 settlement (on a deal
    of one card a seat)."""
    players = int(dressing["players"])
    rules = example.deal.rules
    hands = tuple(CardSet.parse(h).mask for h in DRESSING_HANDS[:players])
    held = sum(hands)
    deal = Deal.create(hands, rules.table.pack & ~held, example.deal.turnup, rules)
    transfers = settle(deal, hands[0], 1).dressing
    pays = [-net(transfers, s) for s in range(1, players + 1)]
    board = {t.payee.value: t.amount for t in transfers if isinstance(t.payee, Compartment)}
    want_pays, want_board = list(dressing["pays"]), dict(dressing["board"])
    z3_pays = [-v for v in encoded_settlement(deal, hands[0]).dressing]
    where = f"{players} players"
    checks = [("model", f"each seat pays, {where}", want_pays, pays),
              ("model", f"the fresh board, {where}", want_board, board),
              ("z3 settlement", f"each seat pays, {where}", want_pays, z3_pays)]
    return [Mismatch(example.name, backend, what, want, got)
            for backend, what, want, got in checks if want != got]


def _play(example: Example) -> tuple[list[Position], list[Run]]:
    """The positions of the example's line (before each step, then the end) and its runs."""
    position = Position.from_deal(example.deal)
    positions, runs = [position], []
    for step in example.line:
        run = parse_step(position, step)
        position = position.after(run)
        positions.append(position)
        runs.append(run)
    return positions, runs


def _seat(party: int | Compartment) -> str:
    return party.value if isinstance(party, Compartment) else f"seat {party}"


def _payment(transfer: Transfer) -> Payment:
    return (_seat(transfer.payer), _seat(transfer.payee), transfer.amount, transfer.kind.value)


def expected_payments(example: Example) -> list[Payment]:
    """The example's ``payments``, written as :data:`Payment` tuples."""
    out = []
    for p in example.expect.get("payments", ()):
        ends = [f"seat {v}" if isinstance(v, int) else Compartment(v).value
                for v in (p["from"], p["to"])]
        out.append((ends[0], ends[1], int(p["amount"]), TransferKind(p["kind"]).value))
    return out


def expected_nets(example: Example, kinds: frozenset[TransferKind]) -> list[int]:
    """Each seat's net (0-based seats) over the expected payments of ``kinds``."""
    nets = [0] * example.deal.players
    for payer, payee, amount, kind in expected_payments(example):
        if TransferKind(kind) not in kinds:
            continue
        for party, sign in ((payer, -1), (payee, 1)):
            if party.startswith("seat "):
                nets[int(party[5:]) - 1] += sign * amount
    return nets


def _check_model(example: Example, positions: list[Position], runs: list[Run]) -> list[Mismatch]:
    """Play and settlement of the rules model against every expectation."""
    expect, deal, end = example.expect, example.deal, positions[-1]
    found: list[tuple[str, object, object]] = []
    if "runs" in expect:
        found.append(("the runs", [[card_name(parse_card(c)) for c in r] for r in expect["runs"]],
                      [[card_name(c) for c in r.cards] for r in runs]))
    if "out" in expect:
        found.append(("seat out", expect["out"], end.winner))
    if "next_leader" in expect:
        found.append(("next leader", expect["next_leader"], end.leader))
    if "legal_leads" in expect:
        legal = [] if turnup_ends_deal(deal) else end.legal_leads()
        found.append(("legal leads", sorted(card_name(parse_card(c))
                                            for c in expect["legal_leads"]),
                      sorted(card_name(c) for c in legal)))
    found += [(f"step {step} refused at the outset", "refused", "played")
              for step in expect.get("refused", ()) if _plays(positions[0], step)]
    settled = settle(deal, end.played, end.winner) if end.is_over or not runs else None
    if "deal_played" in expect:
        found.append(("deal played", expect["deal_played"],
                      bool(settled and not any(t.kind is TransferKind.STAKE_PER_CARD
                                              for t in settled.turnup))))
    if settled is not None:
        found += _payment_checks(example, [*settled.turnup, *settled.play])
        found += _dressing_checks(example, list(settled.dressing))
    return [Mismatch(example.name, "model", what, want, got) for what, want, got in found
            if want != got]


def _plays(position: Position, step: str) -> bool:
    """Whether the model plays ``step`` from ``position`` (False: it refuses it)."""
    try:
        parse_step(position, step)
    except PopeJoanError:
        return False
    return True


def _payment_checks(example: Example,
                    transfers: list[Transfer]) -> list[tuple[str, object, object]]:
    """Each expected payment missing from the model's transfers, and each one not expected."""
    if "payments" not in example.expect:
        return []
    want = Counter(expected_payments(example))
    got = Counter(_payment(t) for t in transfers)
    checks: list[tuple[str, object, object]] = [
        (f"payment {p}", "paid", "not paid") for p in sorted(want - got)]
    checks += [(f"payment {p}", "not paid", "paid") for p in sorted(got - want)]
    return checks


def _dressing_checks(example: Example,
                     transfers: list[Transfer]) -> list[tuple[str, object, object]]:
    expect, players = example.expect, example.deal.players
    found: list[tuple[str, object, object]] = []
    if "dressing_pays" in expect:
        found.append(("each seat pays to dress the board", list(expect["dressing_pays"]),
                      [-net(transfers, s) for s in range(1, players + 1)]))
    if "dressing_board" in expect:
        board = {t.payee.value: t.amount for t in transfers if isinstance(t.payee, Compartment)}
        found.append(("the fresh board", dict(expect["dressing_board"]), board))
    return found


def exactly_checked_steps(example: Example) -> int:
    """How many of the line's last steps the engines check exactly: those from which the rest
    of the line is the only play (0 for a line that does not end the deal)."""
    positions, _ = _play(example)
    if not positions[-1].is_over:
        return 0
    return len(positions) - 1 - _forced_from(positions)


def _forced_from(positions: list[Position]) -> int:
    """The first index of the line from which the rest of it is the only play (one legal
    lead, one way for its run to go, at every step); the end's index when there is none."""
    first = len(positions) - 1
    for k in range(len(positions) - 2, -1, -1):
        leads = positions[k].legal_leads()
        if len(leads) != 1 or len(positions[k].outcomes(leads[0])) != 1:
            break
        first = k
    return first


def _engines() -> list[tuple[str, bool]]:
    engines = [("python engine", False)]
    return [*engines, ("C core", True)] if COMPILED else engines


def _check_engines(example: Example, positions: list[Position]) -> list[Mismatch]:
    """The play's net of every seat from the engines: exact where the rest of the line is
    forced, at most the best case elsewhere; and the legal leads after the line."""
    end, winner = positions[-1], positions[-1].winner
    if winner is None:
        return _engine_leads(example, end)
    deal = example.deal
    board = _board_after_turnup(deal)
    want = expected_nets(example, PLAY_KINDS)
    forced = _forced_from(positions)
    found: list[Mismatch] = []
    slots = SlotGame(end.game, board)
    got = [slots.payoff(slots.to_slots(end.played), winner - 1, s)  # slot space: from 0
           for s in range(deal.players)]
    if got != want:
        found.append(Mismatch(example.name, "python engine", "leaf payoff, seat by seat",
                              want, got))
    for backend, compiled in _engines():
        for k, position in enumerate(positions[:-1]):
            engine = FastEngine(position.game, board, compiled=compiled)
            for seat in range(deal.players):
                goal = Goal.GUARANTEED if k >= forced else Goal.BEST_CASE
                value = engine.value(Objective(goal, seat + 1), position.played,
                                     position.leader)
                if value != want[seat] if k >= forced else value < want[seat]:
                    relation = "equal to" if k >= forced else "at least"
                    found.append(Mismatch(
                        example.name, backend,
                        f"seat {seat + 1}'s {goal.value} value before step {k + 1} "
                        f"({example.line[k]}), {relation} the line's play net", want[seat],
                        value))
    return found


def _engine_leads(example: Example, end: Position) -> list[Mismatch]:
    """The legal leads after the line, as both engines generate them."""
    if "legal_leads" not in example.expect or turnup_ends_deal(example.deal):
        return []  # the engines are not called on a deal the turn-up ended
    want = sorted(card_name(parse_card(c)) for c in example.expect["legal_leads"])
    slots = SlotGame(end.game, _board_after_turnup(example.deal))
    generated = slots.lead_generator()(slots.to_slots(end.played), end.leader - 1)
    found = []
    python = sorted(card_name(slots.card_of[s]) for s in generated)
    if python != want:
        found.append(Mismatch(example.name, "python engine", "legal leads", want, python))
    if COMPILED:
        engine = FastEngine(end.game, _board_after_turnup(example.deal), compiled=True)
        values = engine.lead_values(end.played, end.leader, False, 0)
        c_leads = sorted(card_name(c) for c in values[0]) if values else []
        if c_leads != want:
            found.append(Mismatch(example.name, "C core", "legal leads", want, c_leads))
    return found


def _board_after_turnup(deal: Deal) -> Board:
    board = deal.board_or_dressed
    return apply_to_board(board, turnup_award(deal, board).transfers)


def _check_z3(example: Example, end: Position) -> list[Mismatch]:
    """The z3 settlement of the line's end: each seat's nets and each compartment's payout."""
    unplayed = example.expect.get("deal_played", True) is False
    if not end.is_over and not unplayed:
        return []
    try:
        enc = encoded_settlement(example.deal, end.played, PlaySemantics.of(example.deal.rules))
    except PopeJoanError as exc:
        return [Mismatch(example.name, "z3 settlement", "the settlement", "encoded", str(exc))]
    checks: list[tuple[str, object, object]] = []
    turnup = frozenset({TransferKind.TURNUP, TransferKind.STAKE_PER_CARD})
    if "payments" in example.expect:
        checks += [("turn-up net, seat by seat", expected_nets(example, turnup), list(enc.turnup)),
                   ("play net, seat by seat", expected_nets(example, PLAY_KINDS), list(enc.play))]
        paid = Counter[str]()
        for payer, _, amount, _ in expected_payments(example):
            if not payer.startswith("seat "):
                paid[payer] += amount
        checks += [(f"paid out of {c.value}", paid[c.value], enc.paid_out[c])
                   for c in Compartment if paid[c.value] != enc.paid_out[c]]
    if "dressing_pays" in example.expect:
        checks.append(("dressing, each seat pays", list(example.expect["dressing_pays"]),
                       [-v for v in enc.dressing]))
    return [Mismatch(example.name, "z3 settlement", what, want, got)
            for what, want, got in checks if want != got]


__all__ = [
    "COVERS",
    "PLAY_KINDS",
    "Example",
    "ExampleResult",
    "Mismatch",
    "check_example",
    "check_examples",
    "exactly_checked_steps",
    "example_results",
    "examples_folder",
    "expected_nets",
    "expected_payments",
    "load_example",
    "load_examples",
]
