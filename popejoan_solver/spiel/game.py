"""Pope Joan as an OpenSpiel game: ``pyspiel.load_game("python_pope_joan", {...})``.

The deal is dealt card by card, one chance node per card (at most 51 outcomes each), to the
recipients the model's own dealing gives (:func:`dealing_order`); then the seat on lead picks a
lead (action = card index) and a chooser takes or declines a choice inside a run (actions 52 and
53). Runs, stops, choices and the settlement are the model's (:mod:`..model.play`,
:mod:`..model.settlement`), never restated here. Imports ``pyspiel``: the ``openspiel`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple

import pyspiel

from ..model.board import Board
from ..model.cards import NUM_CARDS, Card, Mask, card_name
from ..model.deal import Deal, deal_random, shuffled_pack
from ..model.errors import DealError, NotationError
from ..model.play import Choice, Position, Run, RunTree, outcomes
from ..model.rules import DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, Ruleset, get_ruleset
from ..model.settlement import apply_to_board, net, play_settlement, turnup_award
from ..model.table import compile_rules
from .observer import PopeJoanObserver

GAME_NAME = "python_pope_joan"
CHOICE_BASE = NUM_CARDS
"""Action ``CHOICE_BASE + i`` takes option ``i`` of a choice inside a run (0 declines)."""
MAX_OPTIONS = 2
NUM_ACTIONS = CHOICE_BASE + MAX_OPTIONS

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Pope Joan (popejoan-solver)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 4, "rules": DEFAULT_RULESET, "board": ""},
)


@cache
def dealing_order(rules: Ruleset, players: int) -> tuple[int, ...]:
    """Who receives each card dealt, in order (a seat, or ``players`` for the dead hand): read
    off the model's :func:`deal_random`, which deals a shuffled pack by position; the last card
    is the turn-up."""
    seed = "openspiel-dealing-order"
    cards = shuffled_pack(seed, 0, rules.pack)
    deal = deal_random(players, seed, rules)
    if deal.turnup != cards[-1]:
        raise AssertionError("the model's dealing no longer turns up the last card dealt")
    return tuple(players if deal.holder(card) < 0 else deal.holder(card) for card in cards)


def spiel_text(text: str) -> str:
    """A ruleset name or board as a game parameter: OpenSpiel's game strings split on ``=``
    and ``,``, so ``OPT=V,OPT=V`` is written ``OPT:V;OPT:V``."""
    return text.replace("=", ":").replace(",", ";")


def parse_board(text: str) -> Board | None:
    """The ``board`` parameter: empty for a fresh dressing, else ``pope:6;game:3;...``."""
    if not text.strip():
        return None
    counts: dict[str, int] = {}
    for item in text.replace(";", ",").split(","):
        name, sep, value = item.replace(":", "=").partition("=")
        if not sep or not value.strip().isdigit():
            raise NotationError(f"board parameter: COMPARTMENT:COUNT;..., not {item!r}")
        counts[name.strip()] = int(value)
    return Board.from_json(counts)


def board_parameter(board: Board) -> str:
    """The ``board`` parameter that gives ``board``."""
    return ";".join(f"{c.value}:{n}" for c, n in board.items())


@dataclass(frozen=True)
class Bounds:
    """Honest bounds on one seat's return in counters."""

    low: int
    high: int


def utility_bounds(rules: Ruleset, players: int, board: Board) -> Bounds:
    """At best a seat takes the whole board, a stake for every card in the others' hands and
    every award paid by each opponent; at worst it pays for a full hand and every award."""
    table = compile_rules(rules)
    hand = rules.cards_per_player(players)
    per_card = max(table.per_card_left, 1)  # the Pope turned up: a stake a card dealt
    from_each = sum(a.from_each for a in table.awards(0))
    return Bounds(low=-(per_card * hand + from_each),
                  high=board.total() + (per_card * hand + from_each) * (players - 1))


@dataclass(frozen=True)
class Setup:
    """What a game's parameters fix: the ruleset, the players, the board, the dealing."""

    rules: Ruleset
    players: int
    board: Board
    order: tuple[int, ...]
    bounds: Bounds

    def __deepcopy__(self, memo: dict[int, Any]) -> Setup:
        """Never changed: a cloned state shares it."""
        return self


@cache
def setup(players: int, rules_text: str, board_text: str) -> Setup:
    """The setup for a game's parameters (cached); bad ones raise the model's errors."""
    rules = get_ruleset(rules_text.replace(":", "=").replace(";", ","))
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise DealError(f"Pope Joan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                        f"not {players}")
    given = parse_board(board_text)
    board = given if given is not None else compile_rules(rules).dressing(players).layout
    return Setup(rules, players, board, dealing_order(rules, players),
                 utility_bounds(rules, players, board))


def _setup_of(params: dict[str, Any]) -> Setup:
    return setup(int(params.get("players", 4)), str(params.get("rules", DEFAULT_RULESET)),
                 str(params.get("board", "")))


class PopeJoanGame(pyspiel.Game):  # type: ignore[misc]
    """The game for one number of players, one ruleset and one board."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        pj = _setup_of(params)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_CARDS,
            num_players=pj.players,
            min_utility=float(pj.bounds.low),
            max_utility=float(pj.bounds.high),
            utility_sum=None,
            max_game_length=3 * len(pj.order),  # the deal, then a lead or choice per card
        )
        params["rules"] = spiel_text(pj.rules.name)
        params["board"] = (board_parameter(pj.board) if str(params.get("board", "")).strip()
                           else "")
        super().__init__(_GAME_TYPE, info, params)

    @property
    def setup(self) -> Setup:
        """This game's setup (read from its parameters)."""
        return _setup_of(self.get_parameters())

    @property
    def rules(self) -> Ruleset:
        return self.setup.rules

    @property
    def order(self) -> tuple[int, ...]:
        return self.setup.order

    def new_initial_state(self) -> PopeJoanState:
        return PopeJoanState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: Any = None) -> PopeJoanObserver:
        return PopeJoanObserver(
            iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


@dataclass(frozen=True)
class ChoiceMade:
    """A choice taken or declined inside run ``run`` (public only when taken)."""

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

    def __init__(self, game: PopeJoanGame) -> None:
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
        if self.pending is not None:
            return self.pending.chooser
        return self.position.leader

    def _legal_actions(self, player: int) -> list[int]:
        if self.over or self.position is None or player != self.current_player():
            return []
        if self.pending is not None:
            return [CHOICE_BASE + i for i in range(len(self.pending.options))]
        return list(self.now.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = [c for c in range(NUM_CARDS)
                if self.pj.rules.pack >> c & 1 and c not in self.dealt]
        return [(card, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.position is None:
            self._deal_card(action)
        elif self.pending is not None:
            option = action - CHOICE_BASE
            made = ChoiceMade(self.pending.chooser, len(self.runs), self.pending.kind.name,
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
        """A state ``player_id`` cannot tell from this one, drawn uniformly (``.worlds``)."""
        from .worlds import resample
        return resample(self, player_id, probability_sampler)

    def returns(self) -> list[float]:
        """Each seat's net counters: the turn-up's award and the play's settlement (the
        dressing, the same whatever is played, is left out)."""
        deal, position, board = self.deal, self.position, self.now.board
        if not self.over or deal is None or position is None or board is None:
            return [0.0] * self.pj.players
        transfers = list(turnup_award(deal, self.pj.board).transfers)
        if position.winner >= 0:
            transfers += play_settlement(position.game, board, position.played, position.winner)
        return [float(net(transfers, seat)) for seat in range(self.pj.players)]

    def __str__(self) -> str:
        if self.deal is None:
            return f"dealing: {len(self.dealt)} cards dealt"
        runs = " / ".join(run.describe() for run in self.runs)
        return f"{self.deal.rules.name} {len(self.runs)} runs: {runs}"

    # The play, through the model.

    def _deal_card(self, card: Card) -> None:
        if not self.pj.rules.pack >> card & 1 or card in self.dealt:
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


def load(players: int = 4, rules: str = DEFAULT_RULESET, board: Board | None = None) -> Any:
    """``pyspiel.load_game`` for Pope Joan with these parameters."""
    params: dict[str, Any] = {"players": players, "rules": spiel_text(rules)}
    if board is not None:
        params["board"] = board_parameter(board)
    return pyspiel.load_game(GAME_NAME, params)


pyspiel.register_game(_GAME_TYPE, PopeJoanGame)

__all__ = ["CHOICE_BASE", "GAME_NAME", "PopeJoanGame", "PopeJoanState",
           "dealing_order", "load", "utility_bounds"]
