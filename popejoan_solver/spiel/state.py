"""A state of the OpenSpiel game: the cards dealt so far, then the model's position and any
choice pending inside a run; every move through the model (:mod:`..model.play`,
:mod:`..model.settlement`), never restated here.

The state reads its game only for the :class:`~.setup.Setup`, and asks it for a resampled
state (:meth:`PopeJoanState.resample_from_infostate`): the game module, above this one, holds
the worlds a seat cannot tell apart (:mod:`.worlds`) and the observer (:mod:`.observer`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import pyspiel

from ..model.board import Board
from ..model.cards import NUM_CARDS, Card, Mask, card_name
from ..model.deal import Deal
from ..model.play import Choice, Position, Run, RunTree, outcomes
from ..model.settlement import apply_to_board, net, play_settlement, turnup_award
from ..model.table import compile_rules
from .setup import Setup

CHOICE_BASE = NUM_CARDS
"""Action ``CHOICE_BASE + i`` takes option ``i`` of a choice inside a run (0 declines)."""
MAX_OPTIONS = 2
NUM_ACTIONS = CHOICE_BASE + MAX_OPTIONS


class SetUpGame(Protocol):
    """What a state reads of its game: the setup its parameters fix."""

    @property
    def setup(self) -> Setup: ...


@dataclass(frozen=True)
class ChoiceMade:
    """A choice taken or declined inside run ``run`` (public only when taken); ``seat`` is
    the chooser as an OpenSpiel player (from 0)."""

    seat: int
    run: int
    kind: str
    option: int


class Now(NamedTuple):
    """Everything a state holds, all of it immutable: a clone shares it (OpenSpiel clones a
    Python state by deep-copying it, which would copy the model's deal and tables)."""

    dealt: tuple[Card, ...] = ()
    deal: Deal | None = None
    position: Position | None = None
    legal: tuple[Card, ...] = ()
    """The legal leads of ``position`` (asked once a position)."""
    pending: Choice | None = None
    partial: tuple[Card, ...] = ()
    lead: Card | None = None
    runs: tuple[Run, ...] = ()
    choices: tuple[ChoiceMade, ...] = ()
    over: bool = False
    board: Board | None = None
    """The board after the turn-up's award, that play is settled on."""

    def __deepcopy__(self, memo: dict[int, Any]) -> Now:
        return self


class PopeJoanState(pyspiel.State):  # type: ignore[misc]
    """A state: the cards dealt so far, then the model's position and any choice pending."""

    def __init__(self, game: SetUpGame) -> None:
        super().__init__(game)
        self.pj: Setup = game.setup
        self.now = Now()

    @property
    def dealt(self) -> tuple[Card, ...]:
        return self.now.dealt

    @property
    def deal(self) -> Deal | None:
        """The deal once dealt (as dealt; the board the game's)."""
        return self.now.deal

    @property
    def position(self) -> Position | None:
        return self.now.position

    @property
    def pending(self) -> Choice | None:
        """The choice inside a run waiting for its chooser, if any."""
        return self.now.pending

    @property
    def partial(self) -> tuple[Card, ...]:
        """The cards of the run so far while a choice is pending."""
        return self.now.partial

    @property
    def runs(self) -> tuple[Run, ...]:
        return self.now.runs

    @property
    def choices(self) -> tuple[ChoiceMade, ...]:
        return self.now.choices

    @property
    def over(self) -> bool:
        return self.now.over

    # The OpenSpiel API.

    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.position is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.pending is not None:  # OpenSpiel's players count from 0, the model's seats from 1
            return self.pending.chooser - 1
        return self.position.leader - 1

    def _legal_actions(self, player: int) -> list[int]:
        if self.over or self.position is None or player != self.current_player():
            return []
        if self.pending is not None:
            return [CHOICE_BASE + i for i in range(len(self.pending.options))]
        return list(self.now.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(NUM_CARDS)
                if self.pj.rules.table.pack >> c & 1 and c not in self.dealt]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.position is None:
            self._deal_card(action)
        elif self.pending is not None:
            option = action - CHOICE_BASE
            made = ChoiceMade(self.pending.chooser - 1, len(self.runs), self.pending.kind.name,
                              option)
            self.now = self.now._replace(choices=(*self.choices, made))
            self._follow(self.pending.options[option])
        else:
            if action not in self.now.legal:
                raise pyspiel.SpielError(f"illegal lead {action}")
            game = self.position.game
            self.now = self.now._replace(lead=action)
            self._follow(game.run_tree(self.position.played, self.position.leader, action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            count = len(self.dealt)
            whom = self.pj.order[min(count, len(self.pj.order) - 1)]
            return f"deal {card_name(action)} to " + (
                "the dead hand" if whom == self.pj.players else f"seat {whom + 1}")
        if action >= CHOICE_BASE:
            return ("decline" if action == CHOICE_BASE else "take") + " the choice"
        return f"lead {card_name(action)}"

    def is_terminal(self) -> bool:
        return self.over

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state ``player_id`` cannot tell from this one, drawn uniformly: the game draws it
        (``PopeJoanGame.resample``, from :mod:`.worlds`)."""
        return self.get_game().resample(self, player_id, probability_sampler)

    def returns(self) -> list[float]:
        """Each seat's net counters: the turn-up's award and the play's settlement (the
        dressing, the same whatever is played, is left out)."""
        deal, position, board = self.deal, self.position, self.now.board
        if not self.over or deal is None or position is None or board is None:
            return [0.0] * self.pj.players
        transfers = list(turnup_award(deal, self.pj.board).transfers)
        if position.winner is not None:
            transfers += play_settlement(position.game, board, position.played, position.winner)
        return [float(net(transfers, seat)) for seat in range(1, self.pj.players + 1)]

    def __str__(self) -> str:
        if self.deal is None:
            return f"dealing: {len(self.dealt)} cards dealt"
        runs = " / ".join(run.describe() for run in self.runs)
        return f"{self.deal.rules.name} {len(self.runs)} runs: {runs}"

    # The play, through the model.

    def _deal_card(self, card: Card) -> None:
        if not self.pj.rules.table.pack >> card & 1 or card in self.dealt:
            raise pyspiel.SpielError(f"card {card} cannot be dealt now")
        self.now = self.now._replace(dealt=(*self.dealt, card))
        if len(self.dealt) < len(self.pj.order):
            return
        players = self.pj.players
        places = [0] * (players + 1)
        for card_dealt, whom in zip(self.dealt, self.pj.order, strict=True):
            places[whom] |= 1 << card_dealt
        deal = Deal.create(tuple(places[:players]), places[players], self.dealt[-1],
                           self.pj.rules, self.pj.board)
        award = turnup_award(deal, self.pj.board)
        position = Position.from_deal(deal)
        self.now = self.now._replace(
            deal=deal, position=position, over=not award.deal_is_played,
            legal=tuple(sorted(position.legal_leads())),
            board=apply_to_board(self.pj.board, award.transfers))

    def _follow(self, tree: RunTree) -> None:
        """Take the run so far to its next choice, or finish it."""
        assert self.position is not None
        if isinstance(tree, Choice):
            self.now = self.now._replace(pending=tree, partial=run_so_far(tree))
            return
        position = self.position.after(tree)
        self.now = self.now._replace(pending=None, partial=(), lead=None,
                                     runs=(*self.runs, tree), position=position,
                                     over=position.is_over,
                                     legal=tuple(sorted(position.legal_leads())))

    # Views for the observer.

    def dealt_to(self, seat: int) -> Mask:
        """The cards dealt to ``seat`` (or to the dead hand: ``seat == players``) so far."""
        mask = 0
        for card, whom in zip(self.dealt, self.pj.order, strict=False):
            if whom == seat:
                mask |= 1 << card
        return mask

    @property
    def turnup(self) -> Card | None:
        """The turn-up once dealt, where the ruleset shows it."""
        if len(self.dealt) < len(self.pj.order) or not compile_rules(self.pj.rules).turns_up:
            return None
        return self.dealt[-1]

    def sees_dead_hand(self, seat: int) -> bool:
        """The dealer's sight of the dead hand, where the ruleset gives it (once dealt)."""
        return (self.deal is not None and seat == self.pj.players - 1
                and compile_rules(self.pj.rules).dealer_sees_dead_hand)


def run_so_far(choice: Choice) -> tuple[Card, ...]:
    """The cards a run has played when ``choice`` is reached: what its options' runs share."""
    runs = [outcomes(option)[0].cards for option in choice.options]
    shared: list[Card] = []
    for cards in zip(*runs, strict=False):
        if len(set(cards)) > 1:
            break
        shared.append(cards[0])
    return tuple(shared)
