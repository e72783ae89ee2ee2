"""The ``ismcts`` bot: OpenSpiel's information-set MCTS (Cowling, Powley and Whitehouse 2012)
over the Pope Joan game of :mod:`..spiel`, searching from what the seat knows.

Every simulation starts from a deal drawn exactly uniformly from those consistent with the
seat's :class:`~popejoan_solver.seat.Knowledge` (``seat.sample_deals``), rebuilt as an OpenSpiel
state by dealing it card by card and replaying the public line (:func:`state_from`); the true
deal is never read. Options: ``simulations=N`` (default 200) or ``time=S`` seconds a decision,
``uct=C`` (exploration, in counters; default 10), ``worlds=W`` (distinct deals drawn a
decision; default 100), ``peek`` (as dealer, look at the dead hand). Seeded by the decision's
generator, so a run with ``simulations`` is reproducible; one with ``time`` is not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from ..model.cards import Card
from ..model.errors import clip
from ..model.rules import Ruleset
from ..model.table import compile_rules
from ..seat import Knowledge, sample_deals
from ..spiel.game import load
from ..spiel.state import CHOICE_BASE, PopeJoanState
from ..spiel.worlds import state_from
from .base import BotError, ChoiceRequest, LeadRequest

OPTIONS = ("simulations", "time", "uct", "worlds", "peek")
MAX_SIMULATIONS = 100_000


def search_rules(k: Knowledge) -> Ruleset:
    """The ruleset searched: the seat's own, but a dealer who did not look at the dead hand
    where it may is searched as one who may not (its information states must not show it)."""
    table = compile_rules(k.rules)
    dealer = k.players
    if (k.seat == dealer and table.dealer_sees_dead_hand
            and k.known_dead.bit_count() < k.dead_size):
        return k.rules.with_options({"spare_hand": "unseen"})
    return k.rules


@dataclass(frozen=True)
class IsmctsBot:
    """ISMCTS from the seat's knowledge (see the module docstring for the options)."""

    name: str
    peeks: bool
    simulations: int
    seconds: float | None
    uct: float
    worlds: int
    seed: int

    @property
    def sees_all(self) -> bool:
        return False

    def lead(self, request: LeadRequest) -> Card:
        if len(request.legal) == 1:
            return request.legal[0]
        action = self._search(request.knowledge, request.rng.randrange(2**32), None, ())
        return action

    def choose(self, request: ChoiceRequest) -> int:
        if request.options == 1:
            return 0
        k = request.knowledge
        action = self._search(k, request.rng.randrange(2**32), request.lead, request.cards)
        return action - CHOICE_BASE

    def _search(self, k: Knowledge, draw: int, lead: Card | None,
                cards: tuple[Card, ...]) -> int:
        """The most visited action at the root, built from ``worlds`` sampled deals."""
        seed = (draw ^ self.seed) % 2**32
        game = load(k.players, search_rules(k).name, k.board)
        deals = sample_deals(k, self.worlds, seed)
        roots: dict[int, PopeJoanState] = {}

        def world(index: int) -> PopeJoanState:
            """The ``index``-th drawn deal as a state (built when first drawn)."""
            if index not in roots:
                roots[index] = state_from(game, deals[index], k.line, lead, cards)
            return roots[index]

        rng = np.random.RandomState(seed)
        bot = ismcts.ISMCTSBot(game, Rollout(random.Random(seed)), self.uct, self.simulations,
                               random_state=rng)
        bot.set_resampler(lambda state, player: world(rng.randint(len(deals))).clone())
        policy = _run(bot, world(0), self.seconds)
        best = max(p for _, p in policy)
        return int(min(a for a, p in policy if p == best))


class Rollout(mcts.Evaluator):  # type: ignore[misc]
    """OpenSpiel's random-rollout evaluation (one uniformly random playout to the end, uniform
    priors), drawing from a Python generator: numpy's choice costs more than the play."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def evaluate(self, state: PopeJoanState) -> Any:
        working = state.clone()
        while not working.is_terminal():
            legal = working.legal_actions()
            working.apply_action(legal[self.rng.randrange(len(legal))])
        return np.array(working.returns())

    def prior(self, state: PopeJoanState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


def _run(bot: Any, root: PopeJoanState, seconds: float | None) -> list[tuple[int, float]]:
    """The search's final policy: a fixed number of simulations (OpenSpiel's ``run_search``),
    or as many as fit in ``seconds`` (its loop with a deadline, through the bot's public
    methods: the root's node is kept here, as nothing else reads it)."""
    if seconds is None:
        return list(bot.run_search(root))
    bot.reset()
    root_node = bot.create_new_node(root)
    deadline = time.perf_counter() + seconds
    while True:
        bot.run_simulation(bot.sample_root_state(root))
        if time.perf_counter() >= deadline:
            break
    return list(bot.get_final_policy(root, root_node))


def _number(options: Mapping[str, str], key: str, spec: str, default: float, high: float,
            whole: bool) -> float:
    text = options.get(key)
    if text is None:
        return default
    try:
        value = int(text) if whole else float(text)
    except ValueError:
        value = -1
    if not 0 < value <= high:
        kind = "a whole number" if whole else "a number"
        raise BotError(f"bot {clip(spec)!r}: {key} is {kind} above 0 (at most {high:g}), not "
                       f"{clip(text)!r}")
    return value


def make_ismcts_bot(spec: str, options: Mapping[str, str], seed: int) -> IsmctsBot:
    """The bot ``ismcts:OPT=V,...`` names (options checked, one error line each)."""
    unknown = [key for key in options if key not in OPTIONS]
    if unknown:
        raise BotError(f"bot {clip(spec)!r}: unknown option {clip(unknown[0])!r} (options: "
                       f"{', '.join(OPTIONS)})")
    peek = options.get("peek", "no") in ("", "1", "yes", "true", "on")
    if options.get("peek", "no") not in ("", "0", "1", "yes", "no", "true", "false", "on", "off"):
        raise BotError(f"bot {clip(spec)!r}: peek is yes or no, not {clip(options['peek'])!r}")
    seconds = _number(options, "time", spec, 0, 3600, False) if "time" in options else None
    simulations = int(_number(options, "simulations", spec, 200, MAX_SIMULATIONS, True))
    worlds = int(_number(options, "worlds", spec, 100, 10_000, True))
    uct = _number(options, "uct", spec, 10.0, 1e6, False)
    return IsmctsBot(spec, peek, simulations, seconds, uct, worlds, seed % 2**32)
