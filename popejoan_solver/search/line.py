"""An optimal line: from a solved position, the leads (and the choices inside their runs) that
keep one seat's guaranteed value, one null-window search per lead tried."""

from __future__ import annotations

from ..model.board import Board
from ..model.play import Choice, Position, Run, RunTree
from ..model.settlement import compartments_taken, going_out
from .driver import Driver
from .objective import Goal, Objective
from .result import LineStep, SeatResult


def optimal_line(driver: Driver, position: Position, board: Board,
                  results: list[SeatResult], focus: int) -> tuple[LineStep, ...]:
    """The line that defends ``focus``'s guaranteed value (none if that value is not exact)."""
    objective = Objective(Goal.GUARANTEED, focus)
    known = [r.guaranteed for r in results if r.seat == focus]
    value = known[0] if known else driver.value(objective, position.played, position.leader)
    if not value.is_exact:
        return ()
    return _principal_line(driver, position, board, objective, value.lower)


def _principal_line(driver: Driver, position: Position, board: Board,
                    objective: Objective, value: int) -> tuple[LineStep, ...]:
    """Follow, from ``position`` (whose exact value is ``value``), leads that keep that value.

    The focus seat takes its first lead whose value is at least ``value``, the others their
    first lead whose value is at most ``value`` — in the order of the legal leads (clubs first,
    lowest first), so ties go to the first; one null-window search per lead tried. Past a time
    limit the line is cut short.
    """
    steps: list[LineStep] = []
    game = position.game
    while not position.is_over:
        maximising = objective.maximises(position.leader)
        chosen: tuple[Run, Position] | None = None
        for lead in position.legal_leads():
            tree = game.run_tree(position.played, position.leader, lead)
            keeps = driver.tree_at_least(objective, position, tree,
                                         value if maximising else value + 1)
            if keeps is None:
                return tuple(steps)
            if keeps == maximising:
                run = _chosen_run(driver, objective, position, tree, value)
                if run is None:
                    return tuple(steps)
                chosen = (run, position.after(run))
                break
        if chosen is None:
            raise AssertionError(f"no lead keeps the value {value} (solver inconsistency)")
        run, after = chosen
        before = set(compartments_taken(game, board, position.played))
        paid = [t for t in compartments_taken(game, board, after.played) if t not in before]
        if run.winner is not None:
            paid += going_out(game, board, after.played, run.winner)
        steps.append(LineStep(run, tuple(paid)))
        position = after
    return tuple(steps)


def _chosen_run(driver: Driver, objective: Objective, position: Position, tree: RunTree,
                value: int) -> Run | None:
    """The run of a lead worth ``value``: at each choice its chooser's first option that keeps
    the value (None past the deadline)."""
    while isinstance(tree, Choice):
        maximising = objective.maximises(tree.chooser)
        for option in tree.options:
            keeps = driver.tree_at_least(objective, position, option,
                                         value if maximising else value + 1)
            if keeps is None:
                return None
            if keeps == maximising:
                tree = option
                break
        else:
            raise AssertionError(f"no option keeps the value {value} (solver inconsistency)")
    return tree
