"""The search driver: values of positions from an engine under one deadline, with the static
bounds standing in for whatever the deadline cut short."""

from __future__ import annotations

import time
from functools import cached_property
from typing import Protocol

from ..model.board import Board
from ..model.cards import Card, Mask
from ..model.play import Game, Position, Run, RunTree
from ..model.settlement import play_values
from .bounds import StaticBounds
from .objective import INF, Goal, Objective, SearchTimeoutError
from .result import LeadResult, Value


class Engine(Protocol):
    """What the driver needs of a search engine."""

    name: str

    @property
    def nodes(self) -> int: ...

    def value(self, objective: Objective, played: Mask, leader: int,
              known: tuple[int, int] | None = None, guess: int | None = None) -> int: ...

    def at_least(self, objective: Objective, played: Mask, leader: int,
                 threshold: int) -> bool: ...

    def cancel(self) -> None: ...


class Driver:
    """Runs an engine under one deadline and turns a timeout into proven bounds: the one way
    the solver, the leads, grading and single-dummy advice ask an engine for values. A choice
    inside a lead's run is taken by its chooser (:meth:`tree_value`)."""

    def __init__(self, engine: Engine, game: Game, board: Board,
                 deadline: float | None) -> None:
        self.engine = engine
        self.game = game
        self.board = board
        self.deadline = deadline
        self.exact = True

    @cached_property
    def static_bounds(self) -> StaticBounds:
        """The deal's static bounds, built on the first search this driver makes (the compiled
        core's batch of leads makes none here)."""
        return StaticBounds(self.game, self.board)

    def value(self, objective: Objective, played: Mask, leader: int,
              known: Value | None = None, guess: int | None = None) -> Value:
        """The position's value, or bounds past the deadline; ``known`` bounds narrow it and
        ``guess`` is where the search starts (it changes no value, only the nodes)."""
        winner = self.game.winner(played)
        if winner is not None:
            if objective.goal is Goal.FORCED_WIN:
                return Value.exact(int(winner == objective.seat))
            return Value.exact(play_values(self.game, self.board, played, winner)[objective.index])
        fallback = self.static_bounds(objective, played)
        if known is not None:
            fallback = Value(max(fallback.lower, known.lower), min(fallback.upper, known.upper))
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.exact = False
            return fallback
        try:
            return Value.exact(self.engine.value(objective, played, leader,
                                                 (fallback.lower, fallback.upper), guess))
        except SearchTimeoutError:
            self.exact = False
            proven = getattr(self.engine, "bounds", (fallback.lower, fallback.upper))
            return Value(max(proven[0], fallback.lower), min(proven[1], fallback.upper))

    def at_least(self, objective: Objective, played: Mask, leader: int,
                 threshold: int) -> bool | None:
        """Whether the position's value is at least ``threshold``; None past the deadline."""
        if self.game.winner(played) is not None:
            return self.value(objective, played, leader).lower >= threshold
        if self.deadline is not None and time.monotonic() > self.deadline:
            self.exact = False
            return None
        try:
            return self.engine.at_least(objective, played, leader, threshold)
        except SearchTimeoutError:
            self.exact = False
            return None

    def paranoid_values(self, seat: int, position: Position,
                        leads: list[LeadResult] | None) -> tuple[Value, Value]:
        """A seat's guaranteed value and forced win, against all the others.

        A forced win is worth at least the Game stake. The guaranteed value of the seat on lead
        is the best of its ``leads`` when they were computed.
        """
        played, leader = position.played, position.leader
        win = self.value(Objective(Goal.FORCED_WIN, seat), played, leader)
        if leads:
            return Value(max(lead.guaranteed.lower for lead in leads),
                         max(lead.guaranteed.upper for lead in leads)), win
        floor = Value(self.board.game, INF) if win.lower == 1 else None
        return self.value(Objective(Goal.GUARANTEED, seat), played, leader, floor), win

    def best_case(self, seat: int, position: Position, floor: Value | None) -> Value:
        """A seat's best case; ``floor`` (its guaranteed value, if known) is a lower bound.

        MTD(f) starts at the static upper bound and steps down: with every seat playing for
        the target, a high null window lets the bound cut every line that cannot reach it,
        while a low one leaves the search to find its way through them (docs/solver.md)."""
        known = Value(floor.lower, INF) if floor is not None else None
        return self.value(Objective(Goal.BEST_CASE, seat), position.played, position.leader,
                          known, guess=INF)

    def lead_value(self, position: Position, lead: Card) -> LeadResult:
        """A legal lead of the seat on lead with the guaranteed value it keeps after it."""
        position.play(lead)  # checks the lead
        tree = position.game.run_tree(position.played, position.leader, lead)
        return LeadResult(lead, self.tree_value(Objective(Goal.GUARANTEED, position.leader),
                                                position, tree))

    def tree_value(self, objective: Objective, position: Position, tree: RunTree,
                   guess: int | None = None) -> Value:
        """The value of a lead's run from ``position``, each choice in it taken by its
        chooser (bounds combine the same way past the deadline); every search of the tree
        starts from ``guess`` if given."""
        if isinstance(tree, Run):
            after = position.after(tree)
            return self.value(objective, after.played, after.leader, guess=guess)
        values = [self.tree_value(objective, position, option, guess)
                  for option in tree.options]
        pick = max if objective.maximises(tree.chooser) else min
        return Value(pick(v.lower for v in values), pick(v.upper for v in values))

    def tree_at_least(self, objective: Objective, position: Position, tree: RunTree,
                      threshold: int) -> bool | None:
        """Whether a lead's run from ``position`` is worth at least ``threshold``, each choice
        taken by its chooser; None past the deadline."""
        if isinstance(tree, Run):
            after = position.after(tree)
            return self.at_least(objective, after.played, after.leader, threshold)
        answers = []
        for option in tree.options:
            answer = self.tree_at_least(objective, position, option, threshold)
            if answer is None:
                return None
            if answer == objective.maximises(tree.chooser):
                return answer
            answers.append(answer)
        return answers[-1]
