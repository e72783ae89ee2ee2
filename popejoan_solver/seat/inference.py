"""What the play reveals about the hidden cards, read from the rules model (never restated).

Three kinds of evidence, each checked against brute force in ``tests/seat/test_knowledge.py``:

* **Runs** (``runs climb``, and the choices that end or continue runs): a hidden card ``h`` is
  dead when putting it in a player's hand would change an observed run. This is tested by
  replaying every observed run in a *probe* game, the true game with ``h`` dealt to a third
  seat: the model's run tree (``Game.run_tree``) must still hold the observed run (or, at a
  choice, a choice with the same cards before it). A run that stopped short reveals its next
  card this way; so does a Pope played in lieu that did not carry the run on.
* **Leads** (the ruleset's ``lead`` option): a lead ``L`` by seat ``x`` shows that ``x`` held no
  card ``h`` with which ``L`` would not have been legal: ``L not in legal_leads({L, h})``. A
  lead is legal in a hand exactly when it is legal beside each other card of the hand alone,
  for each lead rule of the model (a property the brute-force tests check).
* **Settlement** (``pope_exemption``): when a player goes out, everyone with cards left pays
  except the holder of the unplayed exempt card, which shows where that card is.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from ..model.board import Board
from ..model.cards import Card, Mask, card_name
from ..model.leads import legal_leads
from ..model.play import Choice, Game, Run, RunTree, StopReason, outcomes
from ..model.rules import Ruleset
from ..model.settlement import going_out
from ..model.table import TransferKind


@dataclass(frozen=True)
class Step:
    """One observed lead: the position before it (``leader`` a seat, from 1, as
    :class:`~..model.play.Position`'s) and what the seat saw it produce. ``run`` is
    the whole run, or None for a run still under way, whose ``partial`` cards were played
    before a choice ``choice`` (a bot deciding inside the run)."""

    leader: int
    played: Mask
    lead: Card
    run: Run | None
    partial: tuple[Card, ...] = ()
    choice: Choice | None = None


def common_prefix(tree: RunTree) -> tuple[Card, ...]:
    """The cards every outcome of ``tree`` starts with: what was played before its choice."""
    runs = outcomes(tree)
    first = runs[0].cards
    length = min(len(r.cards) for r in runs)
    for run in runs[1:]:
        length = next((i for i in range(length) if run.cards[i] != first[i]), length)
    return first[:length]


def choices_in(tree: RunTree) -> Iterator[Choice]:
    """Every choice node of a run tree."""
    if isinstance(tree, Choice):
        yield tree
        for option in tree.options:
            yield from choices_in(option)


def _same_choice(a: Choice, b: Choice) -> bool:
    """The same chooser and kind after the same cards played by the same seats."""
    def seen(node: Choice) -> tuple[object, ...]:
        cards = common_prefix(node)
        return node.chooser, node.kind, cards, outcomes(node)[0].seats[:len(cards)]

    return seen(a) == seen(b)


def reproduces(game: Game, step: Step) -> bool:
    """Whether ``game`` can produce what was seen of ``step`` (the lead's legality aside)."""
    tree = game.run_tree(step.played, step.leader, step.lead)
    if step.run is not None:
        return step.run in outcomes(tree)
    assert step.choice is not None
    return any(_same_choice(node, step.choice) for node in choices_in(tree))


def probe_game(game: Game, card: Card, index: int) -> Game:
    """The game with ``card`` (dead in it) dealt to the seat of 0-based ``index`` as well."""
    dealt = list(game.dealt)
    dealt[index] |= 1 << card
    holder = list(game.holder_index)
    holder[card] = index
    return replace(game, dealt=tuple(dealt), in_play=game.in_play | 1 << card,
                   holder_index=tuple(holder))


def dead_evidence(game: Game, steps: Sequence[Step], card: Card, third: int) -> int | None:
    """The index of the first step that shows ``card`` is dead (it would differ were the card
    with the seat of 0-based index ``third``), or None when no step does. ``card`` must be
    dead in ``game``."""
    probe = probe_game(game, card, third)
    for index, step in enumerate(steps):
        if not reproduces(probe, step):
            return index
    return None


def lead_excludes(rules: Ruleset, lead: Card, card: Card) -> bool:
    """Whether holding ``card`` would have made ``lead`` illegal (the ruleset's lead rule)."""
    return lead not in legal_leads(rules, 1 << lead | 1 << card)


def exempt_places(game: Game, played: Mask, winner: int, card: Card) -> Mask:
    """Where the unplayed exempt ``card`` may be, seen from who paid the player out: a seat
    with cards left that did not pay holds it; if all paid it is dead. ``winner`` is a seat
    (from 1); the answer has bits over locations ``0..n`` (bit ``i``: seat ``i + 1``; bit
    ``n``: the dead hand); the true holder's bit is always set."""
    payers = {t.payer for t in going_out(game, _empty_board(), played, winner)
              if t.kind is TransferKind.CARDS_LEFT}
    n = game.players
    places = 0
    for index in range(n):
        holds_some = game.dealt[index] & ~played
        if index + 1 != winner and holds_some and index + 1 not in payers:
            places |= 1 << index
    if not places:
        places = 1 << n
    return places


def _empty_board() -> Board:
    return Board(pope=0, matrimony=0, intrigue=0, ace=0, king=0, queen=0, jack=0, game=0)


def dead_text(card: Card, step: Step, index: int, rules: Ruleset) -> tuple[str, str]:
    """The rule and the one-line reason for a dead card shown by step ``index``."""
    cards = step.run.cards if step.run is not None else step.partial
    below = rules.table.predecessor[card]
    name = card_name(card)
    if below in cards:
        return ("runs climb", f"{name} is dead: run {index + 1} ({card_name(step.lead)}...) "
                              f"stopped at {card_name(below)}")
    if step.run is not None and step.run.reason is StopReason.IN_LIEU:
        return (f"pope_in_lieu={rules.pope_in_lieu.value}",
                f"{name} is dead: run {index + 1} did not go on after the Pope in lieu")
    return ("runs climb", f"{name} is dead: with a player it would have changed run "
                          f"{index + 1} ({card_name(step.lead)}...)")
