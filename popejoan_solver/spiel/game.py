"""Pope Joan as an OpenSpiel game: ``pyspiel.load_game("python_pope_joan", {...})``.

The deal is dealt card by card, one chance node per card (at most 51 outcomes each), to the
recipients the model's own dealing gives (:func:`.setup.dealing_order`); then the seat on lead
picks a lead (action = card index) and a chooser takes or declines a choice inside a run
(actions 52 and 53). Runs, stops, choices and the settlement are the model's (:mod:`..model.play`,
:mod:`..model.settlement`), never restated here. Imports ``pyspiel``: the ``openspiel`` extra.

The modules import one way: :mod:`.setup` (what the parameters fix), :mod:`.state` (a state),
:mod:`.observer` and :mod:`.worlds` (what a seat sees, and the deals it cannot tell apart),
then this one, the game that holds them.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from ..model.board import Board
from ..model.cards import NUM_CARDS
from ..model.rules import DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, Ruleset
from .observer import PopeJoanObserver
from .setup import Setup, board_parameter, dealing_order, setup, spiel_text, utility_bounds
from .state import CHOICE_BASE, NUM_ACTIONS, PopeJoanState
from .worlds import resample

GAME_NAME = "python_pope_joan"

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


def _setup_of(params: dict[str, Any]) -> Setup:
    """The setup a game's parameters give (cached: :func:`.setup.setup`)."""
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

    def resample(self, state: PopeJoanState, player: int, sampler: Any) -> PopeJoanState:
        """A state of this game ``player`` cannot tell from ``state``, drawn uniformly
        (:func:`.worlds.resample`): what the state's ``resample_from_infostate`` answers."""
        return resample(state, player, sampler)


def load(players: int = 4, rules: str = DEFAULT_RULESET, board: Board | None = None) -> Any:
    """``pyspiel.load_game`` for Pope Joan with these parameters."""
    params: dict[str, Any] = {"players": players, "rules": spiel_text(rules)}
    if board is not None:
        params["board"] = board_parameter(board)
    return pyspiel.load_game(GAME_NAME, params)


pyspiel.register_game(_GAME_TYPE, PopeJoanGame)

__all__ = ["CHOICE_BASE", "GAME_NAME", "PopeJoanGame", "PopeJoanState",
           "dealing_order", "load", "utility_bounds"]
