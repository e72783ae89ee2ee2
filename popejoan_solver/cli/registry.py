"""Where ``popejoan``'s commands come from, one registry: the command line's own (a module of
this package each) and those another interface declares as an entry point of this
distribution, in the group :data:`GROUP` of ``pyproject.toml`` (``serve``, the web table's:
``web/serve.py``). The command line so names no other interface, and the web table's command
lives with the web table.

Only this distribution's entry points are read, not every installed package's: another
package cannot add or replace a command (nor be imported by every run of ``popejoan``). The
editable install and a built wheel both carry them; a tree never installed has the command
line's own commands only.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from typing import Final

from ..command import Command
from . import (
    advise,
    batch,
    case,
    certificate,
    check,
    deal,
    find,
    grade,
    graph,
    match,
    play,
    prove,
    rules,
    solve,
    standings,
    stats,
    stops,
    study,
    view,
)

DISTRIBUTION: Final = "popejoan-solver"
"""The distribution whose entry points are read (``pyproject.toml``'s project name)."""

GROUP: Final = "popejoan_solver.commands"
"""The entry points' group: ``name = "module:COMMAND"``, a :class:`~..command.Command` named
``name``."""

OWN: Final[tuple[Command, ...]] = (
    rules.COMMAND, deal.COMMAND, stops.COMMAND, graph.COMMAND, case.COMMAND,
    case.CASES_COMMAND, solve.COMMAND, check.COMMAND, grade.COMMAND, prove.COMMAND,
    find.COMMAND, batch.COMMAND, stats.COMMAND, study.COMMAND, advise.COMMAND, match.COMMAND,
    play.COMMAND, standings.COMMAND, view.COMMAND, certificate.COMMAND,
)
"""The command line's own commands."""

HELP_ORDER: Final = (
    "rules", "deal", "stops", "graph", "case", "cases", "solve", "check", "grade", "prove",
    "find", "batch", "stats", "study", "advise", "match", "play", "serve", "standings", "view",
    "certificate",
)
"""Every command's name, in the order of ``popejoan --help``: the rules and the deal first,
then solving and checking, proofs and searches, many deals at once, one seat's view, bots and
the web (the order of the message naming the commands is kept as scripts saw it). A command
not named here comes last, by name."""


def declared() -> tuple[Command, ...]:
    """The commands declared as entry points of the installed distribution, loaded (none in
    a tree never installed). An entry point that is not the :class:`Command` of its own name
    is a packaging bug, raised as such."""
    try:
        entries = distribution(DISTRIBUTION).entry_points.select(group=GROUP)
    except PackageNotFoundError:
        return ()
    found = []
    for entry in entries:
        command = entry.load()
        if not isinstance(command, Command) or command.name != entry.name:
            raise TypeError(f"entry point {entry.name} = {entry.value} of {GROUP}: not the "
                            f"command {entry.name!r}")
        found.append(command)
    return tuple(found)


def ordered(commands: tuple[Command, ...]) -> tuple[Command, ...]:
    """``commands`` in :data:`HELP_ORDER`; a name given twice is a packaging bug."""
    names = [command.name for command in commands]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"commands declared twice: {', '.join(twice)}")
    rank = {name: i for i, name in enumerate(HELP_ORDER)}
    return tuple(sorted(commands, key=lambda c: (rank.get(c.name, len(rank)), c.name)))


def commands() -> tuple[Command, ...]:
    """Every command of ``popejoan``, in the order of its ``--help``."""
    return ordered(OWN + declared())
