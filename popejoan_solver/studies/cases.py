"""The published worked examples, TOML data shipped in the package (``popejoan_solver/data/cases``,
read with :mod:`importlib.resources`; ``cases/`` at the top of a checkout links to it), checked
against the model.

A case file has ``name``, ``source`` (the work cited: author, title and year, then the
section), ``claim`` (the quoted text), ``kind`` (what is checked), a ``[deal]`` and an
``[expect]`` table. The deal is a JSON deal as a TOML table; ``base = "hoyle-dead-hand"``
starts from the built-in example and the other keys override it. Kinds:

- ``stops``: ``[expect]`` ``view``, and any of ``stops``, ``cannot_be_led_to`` (exactly these),
  ``stops_include``, ``stops_exclude``, ``cannot_be_led_to_include``.
- ``lead``: ``leads`` played in order; ``[expect]`` ``run``, ``reason``, ``next_leader`` (of the
  last lead), ``stops_include`` (referee view after it).
- ``settlement``: ``leads`` played in order; ``[expect]`` ``seat`` and the ``compartments`` it
  has taken (exactly), or ``out`` and ``payments``.
- ``turnup``: ``[expect]`` ``deal_played`` and ``dealer_takes`` (compartments), and
  ``stake_per_card`` (each other seat pays its cards to the dealer).
- ``final-round``: ``hands`` (no dead hand) and ``board``; ``[expect]`` ``takes``, a list of
  ``{seat, compartment, amount}``.
- ``seat-view``: ``leads`` played in order (none: the outset) and ``seat`` (from 1);
  ``[expect]`` any of ``known_dead``, ``stops``, ``cannot_be_led_to`` (exactly these, or
  ``_include`` / ``_exclude``) as that seat knows them (``seat.knowledge``), not the referee.
- ``dressing``: ``rules`` and ``players`` (no deal); ``[expect]`` ``board``, the fresh board's
  counters (a compartment not named holds none), and ``pays``, what each seat pays for it,
  eldest first and the dealer last.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from ..files.reading import read_bounded, read_text_file
from ..logic.prover import TheoremResult
from ..logic.theorems import THEOREMS, prove
from ..model.board import Board, Compartment
from ..model.cards import CardSet, card_name, iter_mask, parse_card
from ..model.deal import Deal, position_deal
from ..model.errors import NotationError, PopeJoanError, clip
from ..model.examples import hoyle_dead_hand
from ..model.notation import deal_from_json, deal_to_json, decode_toml, parse_step
from ..model.play import Position, Run
from ..model.rules import Ruleset, get_ruleset
from ..model.settlement import compartments_taken, dressing, final_round, net, settle, turnup_award
from ..model.stops import View, analyse_stops
from ..model.table import TransferKind
from ..seat import knowledge
from ..seat.report import known_stops

BASES = {"hoyle-dead-hand": hoyle_dead_hand}
KINDS = ("stops", "lead", "settlement", "turnup", "final-round", "dressing", "seat-view")
_NO_DEAL = ("final-round", "dressing", "seat-view")
"""Kinds checked without the case's deal and its ``proof`` (see :func:`_check`)."""


@dataclass(frozen=True)
class Check:
    """One expectation of a case and what the model found."""

    what: str
    expected: Any
    found: Any

    @property
    def ok(self) -> bool:
        return bool(self.expected == self.found)


@dataclass(frozen=True)
class Case:
    name: str
    source: str
    claim: str
    kind: str
    data: Mapping[str, Any]
    path: Traversable | None = None

    @property
    def note(self) -> str:
        return str(self.data.get("note", ""))


@dataclass(frozen=True)
class CaseResult:
    case: Case
    checks: tuple[Check, ...]
    findings: tuple[str, ...]

    @property
    def agrees(self) -> bool:
        return all(c.ok for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.case.name, "source": self.case.source, "claim": self.case.claim,
                "agrees": self.agrees, "findings": list(self.findings),
                "checks": [{"what": c.what, "expected": c.expected, "found": c.found,
                            "ok": c.ok} for c in self.checks]}


def published_cases() -> Traversable:
    """The folder of the published cases, inside the installed package."""
    return resources.files("popejoan_solver") / "data" / "cases"


def _read(path: Traversable) -> str:
    """A case file's text, bounded like every input file (a packaged one too)."""
    if isinstance(path, Path):
        return read_text_file(path)
    with path.open("rb") as handle:
        return read_bounded(handle, path.name)


def load_case(path: Traversable) -> Case:
    """Read one case file; raises :class:`NotationError` when it is malformed."""
    try:
        data = decode_toml(_read(path))
    except PopeJoanError as exc:
        raise NotationError(f"{path.name}: {exc}") from None
    if not isinstance(data, dict):
        raise NotationError(f"{path.name}: a case is a TOML table")
    for key in ("name", "source", "claim", "kind", "expect"):
        if key not in data:
            raise NotationError(f"{path.name}: case has no {key!r}")
    if data["kind"] not in KINDS:
        raise NotationError(f"{path.name}: unknown kind {data['kind']!r} ({', '.join(KINDS)})")
    return Case(data["name"], data["source"], data["claim"], data["kind"], data, path)


def load_cases(directory: Traversable | None = None) -> list[Case]:
    """Every case file (``*.toml``) of ``directory``, by file name; the published cases by
    default."""
    folder = published_cases() if directory is None else directory
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".toml") and f.is_file()),
                   key=lambda f: f.name)
    if not files:
        raise PopeJoanError(f"no case files (*.toml) in {clip(str(folder))}")
    cases = [load_case(f) for f in files]
    names = [c.name for c in cases]
    duplicate = {n for n in names if names.count(n) > 1}
    if duplicate:
        raise NotationError(f"case name {sorted(duplicate)[0]!r} is used twice")
    return cases


def case_deal(case: Case) -> Deal:
    """The case's deal: its ``deal`` table, on a named ``base`` deal where it gives one."""
    table = dict(case.data.get("deal", {}))
    base = table.pop("base", None)
    if base is not None:
        if base not in BASES:
            raise NotationError(f"{case.name}: unknown base deal {base!r}")
        merged = deal_to_json(BASES[base]())
        merged.update(table)
        table = merged
    return deal_from_json(table)


def play_leads(deal: Deal, leads: list[str]) -> tuple[Position, list[Run]]:
    """A case's ``leads`` (each a step as a line of play writes it, ``8S+9D@9S``) played from
    ``deal``: the position reached and the runs played."""
    position = Position.from_deal(deal)
    runs = []
    for text in leads:
        run = parse_step(position, text)
        position = position.after(run)
        runs.append(run)
    return position, runs


def _names(cards: Any) -> list[str]:
    return [card_name(c) for c in cards]


def _canon(texts: list[str]) -> list[str]:
    return [card_name(parse_card(t)) for t in texts]


_PROOFS: dict[tuple[Ruleset, str], TheoremResult] = {}
"""The theorems proved in this process, per ruleset: several cases may check the same claim."""


def _proved(rules: Ruleset, names: Sequence[str]) -> list[TheoremResult]:
    """The theorems' results, each proved once per ruleset; those not yet proved are proved
    in one call, which builds and validates the encodings once for them all."""
    missing = [name for name in dict.fromkeys(names) if (rules, name) not in _PROOFS]
    if missing:
        _PROOFS.update(((rules, result.name), result) for result in prove(rules, missing))
    return [_PROOFS[rules, name] for name in names]


def forget_proofs() -> None:
    """Forget the theorems proved in this process: a case that needs one proves it again."""
    _PROOFS.clear()


def _proof_of(case: Case) -> tuple[Ruleset, list[str]] | None:
    """The ruleset and the theorems that prove a case's claim, if it has them (None also for a
    malformed case: :func:`check_case` says what is wrong with it, in its turn)."""
    proof = case.data.get("proof")
    if not isinstance(proof, Mapping) or case.kind in _NO_DEAL:
        return None
    names = proof.get("theorems")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        return None
    try:
        rules = case_deal(case).rules
    except (PopeJoanError, KeyError, ValueError, TypeError, IndexError):
        return None
    return rules, [n for n in names if n in THEOREMS and THEOREMS[n].not_for(rules) is None]


def prove_together(cases: Iterable[Case]) -> None:
    """Prove, in one call per ruleset, every theorem the cases check (the prover then builds
    its encodings and checks them against the model once per ruleset)."""
    wanted: dict[Ruleset, list[str]] = {}
    for case in cases:
        found = _proof_of(case)
        if found is not None:
            wanted.setdefault(found[0], []).extend(found[1])
    for rules, names in wanted.items():
        _proved(rules, names)


def check_cases(cases: Sequence[Case], workers: int = 1) -> Iterator[CaseResult]:
    """Each case's result, in order, as soon as it and those before it are known.

    The cases whose claims the prover checks are the long ones; those of one ruleset have their
    theorems proved together. With more than one worker and more than one such ruleset, each
    ruleset's are checked in a worker process (as many at once as ``workers``), while this
    process checks the others."""
    groups: dict[Ruleset, list[int]] = {}
    for i, case in enumerate(cases):
        found = _proof_of(case)
        if found is not None:
            groups.setdefault(found[0], []).append(i)
    if workers <= 1 or len(groups) <= 1:
        proved: set[Ruleset] = set()
        for case in cases:
            found = _proof_of(case)
            if found is not None and found[0] not in proved:
                proved.add(found[0])
                prove_together(cases[i] for i in groups[found[0]])
            yield check_case(case)
        return
    yield from _check_in_workers(cases, groups, min(workers, len(groups)))


def _check_in_workers(cases: Sequence[Case], groups: Mapping[Ruleset, list[int]],
                      workers: int) -> Iterator[CaseResult]:
    """:func:`check_cases` with each group of proof cases checked in a worker process."""
    from concurrent.futures.process import BrokenProcessPool

    from ..jobs.pool import process_pool, stop_pool

    pool = process_pool(workers)
    try:
        futures = {rules: pool.submit(_check_group, [replace(cases[i], path=None) for i in idx])
                   for rules, idx in groups.items()}
        where = {i: (rules, k) for rules, idx in groups.items() for k, i in enumerate(idx)}
        for i, case in enumerate(cases):
            if i not in where:
                yield check_case(case)
                continue
            rules, k = where[i]
            checks, findings = futures[rules].result()[k]
            yield CaseResult(case, checks, findings)
    except BrokenProcessPool:
        stop_pool(pool)
        raise PopeJoanError("a worker process checking the cases died (killed, or out of "
                            "memory?)") from None
    except BaseException:  # Ctrl-C, an error, or the reader stopped: no worker is left running
        stop_pool(pool)
        raise
    pool.shutdown()


def _check_group(cases: list[Case]) -> list[tuple[tuple[Check, ...], tuple[str, ...]]]:
    """In a worker process: one ruleset's proof cases, their theorems proved together."""
    prove_together(cases)
    return [(result.checks, result.findings) for result in map(check_case, cases)]


def check_case(case: Case) -> CaseResult:
    """Analyse one case and compare the model's answer with the expected result.

    A malformed case (a missing key, a value of the wrong kind) raises :class:`NotationError`.
    """
    try:
        return _check(case)
    except PopeJoanError:
        raise
    except (KeyError, ValueError, TypeError, IndexError) as exc:
        raise NotationError(f"case {case.name}: malformed: {exc!r}") from None


def _view(case: Case, value: str) -> View:
    """The case's ``view``: a view's name, or the case is malformed."""
    try:
        return View(value)
    except PopeJoanError as exc:
        raise NotationError(f"case {case.name}: malformed: {exc}") from None


def _check(case: Case) -> CaseResult:
    """The case's checks: a kind that needs no deal on its own; otherwise the proof's
    theorems (where the case names some) and then the kind's checks of the deal."""
    expect = case.data["expect"]
    alone = _ALONE.get(case.kind)
    if alone is not None:
        return alone(case, expect)
    deal = case_deal(case)
    checks: list[Check] = []
    findings: list[str] = []
    proof = case.data.get("proof")
    if proof is not None:
        # A claim about every deal: the prover checks it, not only the example deal.
        for theorem in _proved(deal.rules, list(proof["theorems"])):
            findings.append(f"theorem {theorem.name}: {theorem.status.value} ({theorem.method})")
            checks.append(Check(f"theorem {theorem.name}", proof["status"],
                                theorem.status.value))
    on_deal = _ON_DEAL.get(case.kind)
    if on_deal is not None:
        on_deal(case, deal, expect, checks, findings)
    return CaseResult(case, tuple(checks), tuple(findings))


def _check_stops(case: Case, deal: Deal, expect: Mapping[str, Any], checks: list[Check],
                 findings: list[str]) -> None:
    """The stops and the cards that cannot be led to, from the case's view."""
    report = analyse_stops(deal, _view(case, expect.get("view", "referee")))
    stops, unreachable = set(_names(report.stops)), set(_names(report.cannot_be_led_to))
    findings.append(f"stops: {' '.join(_names(report.stops))}")
    findings.append(f"cannot be led to: {' '.join(_names(report.cannot_be_led_to))}")
    _set_checks(checks, "stops", stops, expect)
    _set_checks(checks, "cannot_be_led_to", unreachable, expect)


def _check_lead(case: Case, deal: Deal, expect: Mapping[str, Any], checks: list[Check],
                findings: list[str]) -> None:
    """The last lead's run, why it stopped, who leads next, and the stops after it."""
    position, runs = play_leads(deal, case.data.get("leads", []))
    run = runs[-1]
    findings += [r.describe() for r in runs]
    if "run" in expect:
        checks.append(Check("run", _canon(expect["run"]), _names(run.cards)))
    if "reason" in expect:
        checks.append(Check("stop reason", expect["reason"], run.reason.value))
    if "next_leader" in expect:
        # A run that ended the deal has no next leader: shown as 0 (no seat), as `case` has
        # always printed it.
        found = 0 if run.next_leader is None else run.next_leader
        checks.append(Check("next leader", expect["next_leader"], found))
    if "stops_include" in expect:
        after = position_deal(deal, position, deal.board)
        stops = set(_names(analyse_stops(after).stops))
        want = set(_canon(expect["stops_include"]))
        checks.append(Check("stops after the lead include", sorted(want),
                            sorted(want & stops)))


def _check_settlement(case: Case, deal: Deal, expect: Mapping[str, Any], checks: list[Check],
                      findings: list[str]) -> None:
    """What a seat took after the leads, who went out, and the seat's net."""
    position, runs = play_leads(deal, case.data.get("leads", []))
    findings += [r.describe() for r in runs]
    winner = position.winner
    result = settle(deal, position.played, winner) if winner is not None else None
    taken = _compartments_of(deal, position, expect["seat"])
    findings.append(f"seat {expect['seat']} took: {', '.join(taken)}")
    if "compartments" in expect:
        checks.append(Check(f"compartments taken by seat {expect['seat']}",
                            sorted(expect["compartments"]), sorted(taken)))
    if "count" in expect:
        checks.append(Check("number of compartments", expect["count"], len(taken)))
    if "out" in expect:
        checks.append(Check("seat out", expect["out"], winner))
    if "net" in expect and result is not None:
        checks.append(Check(f"net of seat {expect['seat']}", expect["net"],
                            result.net(expect["seat"])))


def _check_turnup(case: Case, deal: Deal, expect: Mapping[str, Any], checks: list[Check],
                  findings: list[str]) -> None:
    """The turn-up's award: whether the deal is played, what the dealer takes, the stakes."""
    result = settle(deal, 0, None)
    dealer = deal.players
    takes = sorted(t.payer.value for t in result.turnup
                   if t.kind is TransferKind.TURNUP and isinstance(t.payer, Compartment))
    played = not any(t.kind is TransferKind.STAKE_PER_CARD for t in result.turnup)
    findings.append("dealer takes " + (", ".join(takes) or "nothing"))
    if "deal_played" in expect:
        award = turnup_award(deal, deal.board_or_dressed)
        checks.append(Check("deal is played", expect["deal_played"], award.deal_is_played))
    if "dealer_takes" in expect:
        checks.append(Check("dealer takes", sorted(expect["dealer_takes"]), takes))
    if "stake_per_card" in expect:
        stakes = {t.payer: t.amount for t in result.turnup
                  if t.kind is TransferKind.STAKE_PER_CARD and t.payee == dealer}
        owed = {s + 1: deal.dealt_hand(s).bit_count() for s in range(deal.players - 1)}
        checks.append(Check("each other seat pays a stake per card dealt",
                            expect["stake_per_card"], stakes == owed and not played))


def _set_checks(checks: list[Check], key: str, found: set[str], expect: Mapping[str, Any]) -> None:
    if key in expect:
        checks.append(Check(f"{key} exactly", sorted(_canon(expect[key])), sorted(found)))
    if f"{key}_include" in expect:
        want = set(_canon(expect[f"{key}_include"]))
        checks.append(Check(f"{key} include", sorted(want), sorted(want & found)))
    if f"{key}_exclude" in expect:
        unwanted = set(_canon(expect[f"{key}_exclude"]))
        checks.append(Check(f"{key} exclude", [], sorted(unwanted & found)))


def _compartments_of(deal: Deal, position: Position, seat: int) -> list[str]:
    board = deal.board_or_dressed
    return [t.payer.value for t in compartments_taken(position.game, board, position.played)
            if t.payee == seat and isinstance(t.payer, Compartment)]


def _check_final_round(case: Case, expect: Mapping[str, Any]) -> CaseResult:
    table = case.data.get("deal", {})
    try:
        hands = tuple(CardSet.parse(h).mask for h in table["hands"])
        board = Board.from_json(table["board"])
    except (KeyError, TypeError):
        raise NotationError(f"{case.name}: a final-round deal needs hands and board") from None
    transfers = final_round(hands, board)
    found = sorted((t.payee if isinstance(t.payee, int) else 0, t.payer.value, t.amount)
                   for t in transfers if isinstance(t.payer, Compartment))
    want = sorted((e["seat"], e["compartment"], e["amount"]) for e in expect["takes"])
    findings = tuple(f"seat {s} takes {a} from {c}" for s, c, a in found)
    return CaseResult(case, (Check("compartments taken", want, found),), findings)


def _check_dressing(case: Case, expect: Mapping[str, Any]) -> CaseResult:
    """A fresh board and who pays for it, for one ruleset and number of players."""
    rules = get_ruleset(str(case.data["rules"]))
    players = case.data["players"]
    if type(players) is not int:
        raise NotationError(f"{case.name}: players must be a whole number")
    transfers = dressing(rules, players)
    pays = [-net(transfers, seat) for seat in range(1, players + 1)]
    board = {t.payee.value: t.amount for t in transfers if isinstance(t.payee, Compartment)}
    checks = (Check("fresh board", dict(expect["board"]), board),
              Check("each seat pays", list(expect["pays"]), pays),
              Check("the payments make the board", sum(pays), sum(board.values())))
    findings = ("board: " + ", ".join(f"{c} {n}" for c, n in board.items()),
                "seats pay (eldest first, dealer last): " + " ".join(map(str, pays)))
    return CaseResult(case, checks, findings)


def _check_seat_view(case: Case, expect: Mapping[str, Any]) -> CaseResult:
    """What one seat knows after the case's leads: its known dead cards and the stops and cards
    that cannot be led to from its view."""
    deal = case_deal(case)
    seat = case.data["seat"]
    _, runs = play_leads(deal, case.data.get("leads", []))
    k = knowledge(deal, seat, runs)
    report = known_stops(k, deal)
    dead = set(_names(iter_mask(k.known_dead)))
    findings = [r.describe() for r in runs]
    findings.append(f"seat {seat} knows dead: {' '.join(sorted(dead))}")
    findings.append(f"stops it can know: {' '.join(_names(report.stops))}")
    findings.append(f"cannot be led to from its view: {' '.join(_names(report.cannot_be_led_to))}")
    checks: list[Check] = []
    _set_checks(checks, "known_dead", dead, expect)
    _set_checks(checks, "stops", set(_names(report.stops)), expect)
    _set_checks(checks, "cannot_be_led_to", set(_names(report.cannot_be_led_to)), expect)
    return CaseResult(case, tuple(checks), tuple(findings))


_ALONE: dict[str, Callable[[Case, Mapping[str, Any]], CaseResult]] = {
    "final-round": _check_final_round, "dressing": _check_dressing,
    "seat-view": _check_seat_view}
"""The kinds checked on their own (no case deal, or no proof beside them)."""

_ON_DEAL: dict[str, Callable[[Case, Deal, Mapping[str, Any], list[Check], list[str]], None]] = {
    "stops": _check_stops, "lead": _check_lead, "settlement": _check_settlement,
    "turnup": _check_turnup}
"""The kinds checked on the case's deal, after any proof."""
