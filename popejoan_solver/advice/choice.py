"""Advice at a choice inside a run (Spinado's Spin, Peel's Pope in lieu of a stop): decline or
play the card, each valued over the deals the chooser cannot tell apart at that moment.

The choice is the advised seat's first one in the run of ``lead`` from the position, every
earlier choice of another seat declined. The chooser knows what the run has shown so far
(``seat.knowledge_at_choice``); every deal drawn is the position before the lead, from which
the lead reaches the same choice (same chooser and kind after the same cards by the same
seats). Each option is valued as the lead's values are: the rest of the run's choices taken
by their choosers, then the opponent model.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model.cards import NUM_CARDS, Card, card_name
from ..model.deal import Deal
from ..model.play import Choice, Game, Position, Run, RunTree
from ..model.table import compile_rules
from ..seat.inference import choices_in, common_prefix
from .leads import (
    DEFAULT_SAMPLES,
    EXACT_LIMIT,
    AdviceError,
    LeadAdvice,
    Progress,
    advised,
    check_arguments,
    check_deal_and_line,
    check_options,
    check_progress,
    consistent_deals,
    deals_wanted,
    default_workers,
    position_after,
    run_all,
    summarise,
)
from .values import SampleEval, evaluate_options

OPTIONS = ("decline", "play")


@dataclass(frozen=True)
class ChoiceAdvice:
    """Advice for the chooser at one choice (seats from 1): option 0 declines, 1 plays."""

    seat: int
    lead: Card
    card: Card
    """The card the choice would play (Spin, the Pope)."""
    after: Card
    """The last card played before the choice."""
    model: str
    exact: bool
    samples: int | None
    deals: int
    consistent_deals: int
    options: tuple[LeadAdvice, ...]
    advised: str | None
    complete: bool = True
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        options = []
        for name, option in zip(OPTIONS, self.options, strict=True):
            data = option.to_json()
            del data["card"]
            options.append({"option": name, **data})
        return {"seat": self.seat, "exact": self.exact, "model": self.model,
                "samples": self.samples, "deals": self.deals,
                "consistent_deals": self.consistent_deals, "complete": self.complete,
                "choice": {"lead": card_name(self.lead), "card": card_name(self.card),
                           "after": card_name(self.after)},
                "options": options, "advised": self.advised, "seconds": round(self.seconds, 4)}


def first_choice(tree: RunTree, seat: int) -> Choice | None:
    """The first choice of ``seat`` (from 1) in ``tree``, earlier choices declined."""
    node = tree
    while isinstance(node, Choice):
        if node.chooser == seat:
            return node
        node = node.options[0]
    return None


def _seen(node: Choice) -> tuple[object, ...]:
    cards = common_prefix(node)
    first = node.options[0]
    while isinstance(first, Choice):
        first = first.options[0]
    return node.chooser, node.kind, cards, first.seats[:len(cards)]


def matching(tree: RunTree, target: Choice) -> Choice:
    """The choice of ``tree`` the chooser cannot tell from ``target``."""
    want = _seen(target)
    for node in choices_in(tree):
        if _seen(node) == want:
            return node
    raise AssertionError("a deal drawn does not reach the choice (the sampler broke the view)")


def evaluate_choice(deal: Deal, lead: Card, target: Choice, model: str,
                    deadline: float | None) -> SampleEval | None:
    """Both options of the choice on one deal drawn (``advice.values.evaluate_options``, the
    ``pimc`` bot's valuation of a choice); None past the deadline."""
    if deadline is not None and time.monotonic() > deadline:
        return None
    game = Game.from_deal(deal)
    position = Position(game, deal.played_mask, deal.leader)
    node = matching(game.run_tree(position.played, position.leader, lead), target)
    return evaluate_options(deal, position, node, model, deadline=deadline)


def advise_choice(deal: Deal, seat: int, lead: Card, *, line: Sequence[Run | str] | str = (),
                  samples: int = DEFAULT_SAMPLES, seed: int = 0, exact: bool = False,
                  model: str = "paranoid", time_limit: float | None = None,
                  workers: int | None = None, exact_limit: int = EXACT_LIMIT,
                  progress: Progress | None = None) -> ChoiceAdvice:
    """Advice for ``seat`` (1-based) at its first choice in the run of ``lead``, led by the
    seat on lead after ``line``: decline or play, each over the deals drawn (or all);
    ``progress`` as for :func:`~.advice.advise`."""
    from ..seat import knowledge

    started = time.monotonic()
    check_arguments(seat, samples, seed, exact, exact_limit, workers)
    check_options(samples, exact, model, time_limit)
    check_progress(progress)
    runs = check_deal_and_line(deal, line)
    if isinstance(lead, bool) or not isinstance(lead, int) or not 0 <= lead < NUM_CARDS:
        raise AdviceError(f"lead must be a card (a number from 0 to {NUM_CARDS - 1}: "
                          f"model.cards.parse_card reads one), not {lead!r}"[:200])
    deadline = started + time_limit if time_limit is not None else None
    if not 1 <= seat <= deal.players:
        raise AdviceError(f"seat must be from 1 to {deal.players}, not {seat}")
    if not compile_rules(deal.rules).choice_points:
        raise AdviceError(f"there is no choice inside a run under {deal.rules.name} (choices: "
                          "Spinado's Spin, or --set pope_in_lieu=...): advise the lead instead")
    here = position_after(deal, runs, knowledge(deal, seat, runs).deal_board)
    position = Position.from_deal(here)
    position.play(lead)  # a legal lead, else IllegalPlayError
    target = first_choice(position.game.run_tree(position.played, position.leader, lead), seat)
    if target is None:
        raise AdviceError(f"seat {seat} has no choice in the run of {card_name(lead)} (every "
                          "earlier choice declined)")
    from ..seat import knowledge_at_choice

    known = knowledge_at_choice(deal, seat, runs, lead, target)
    count, deals = consistent_deals(known, samples, seed, exact, exact_limit, deadline)
    complete = len(deals) == deals_wanted(count, samples, exact)
    evals = run_all(deals, lambda d, dl: evaluate_choice(d, lead, target, model, dl),
                    deadline, workers if workers is not None else default_workers(model), model,
                    progress)
    complete = complete and len(evals) == len(deals)
    options = summarise(evals, (0, 1), exact, complete)
    pick = advised(options)
    prefix = common_prefix(target)
    played = outcomes_card(target)
    return ChoiceAdvice(seat, lead, played, prefix[-1], model, exact,
                        None if exact else samples, len(evals), count, options,
                        None if pick is None else OPTIONS[pick], complete,
                        time.monotonic() - started)


def outcomes_card(node: Choice) -> Card:
    """The card the choice plays: the card its second option adds after the common prefix."""
    option = node.options[1]
    while isinstance(option, Choice):
        option = option.options[0]
    return option.cards[len(common_prefix(node))]
