"""Where the commands come from (``popejoan_solver/cli/registry.py``): the command line's own
and the entry points of this distribution, one list in the order of ``popejoan --help``; the
web table's ``serve`` among them without the command line naming the web package."""

from __future__ import annotations

import tomllib
from importlib.metadata import EntryPoint, EntryPoints
from types import SimpleNamespace

import pytest

from popejoan_solver.cli import COMMANDS, STOPPED_BY_CTRL_C, registry
from popejoan_solver.command import Command
from popejoan_solver.web import serve
from tests.conftest import ROOT


def _declared_in_pyproject() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entries: dict[str, str] = project["entry-points"][registry.GROUP]
    return entries


def test_every_command_is_listed_once_in_the_help_order() -> None:
    assert [command.name for command in COMMANDS] == list(registry.HELP_ORDER)


def test_serve_is_the_web_tables_own_command_found_by_its_entry_point() -> None:
    assert _declared_in_pyproject() == {"serve": "popejoan_solver.web.serve:COMMAND"}
    assert serve.COMMAND in COMMANDS
    assert serve.COMMAND not in registry.OWN
    assert frozenset({"serve"}) == STOPPED_BY_CTRL_C


def test_the_installed_metadata_declares_what_pyproject_declares() -> None:
    """The entry points the installed distribution carries are pyproject's: an editable
    install made before an entry point changed needs ``pip install -e .`` again."""
    installed = registry.distribution(registry.DISTRIBUTION).entry_points.select(
        group=registry.GROUP)
    assert {entry.name: entry.value for entry in installed} == _declared_in_pyproject(), \
        "the installed metadata is stale: pip install -e . again"


def _installed(monkeypatch: pytest.MonkeyPatch, *entries: EntryPoint) -> None:
    """Make the registry read ``entries`` as the distribution's entry points."""
    found = SimpleNamespace(entry_points=EntryPoints(entries))
    monkeypatch.setattr(registry, "distribution", lambda name: found)


def test_an_entry_point_that_is_not_its_command_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch, EntryPoint("serve", "popejoan_solver.cli.rules:COMMAND",
                                       registry.GROUP))
    with pytest.raises(TypeError, match="not the command 'serve'"):
        registry.declared()
    _installed(monkeypatch, EntryPoint("serve", "popejoan_solver.web.serve:run",
                                       registry.GROUP))
    with pytest.raises(TypeError, match="not the command 'serve'"):
        registry.declared()


def test_a_command_declared_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch, EntryPoint("rules", "popejoan_solver.cli.rules:COMMAND",
                                       registry.GROUP))
    with pytest.raises(ValueError, match="declared twice: rules"):
        registry.commands()


def test_only_this_distributions_group_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    _installed(monkeypatch,
               EntryPoint("serve", "popejoan_solver.web.serve:COMMAND", registry.GROUP),
               EntryPoint("other", "popejoan_solver.cli.rules:COMMAND", "another.group"))
    assert registry.declared() == (serve.COMMAND,)


def test_a_tree_never_installed_has_the_command_lines_own(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise registry.PackageNotFoundError(name)

    monkeypatch.setattr(registry, "distribution", missing)
    assert registry.commands() == registry.OWN


def test_a_command_not_in_the_help_order_comes_last_by_name() -> None:
    def command(name: str) -> Command:
        return Command(name=name, summary="s", description="d",
                       examples=(f"popejoan {name}",), add_arguments=lambda parser: None,
                       run=lambda args: 0)

    extra = (command("zeta"), command("alpha"))
    names = [c.name for c in registry.ordered((*extra, *registry.OWN))]
    assert names[-2:] == ["alpha", "zeta"]
    assert names[:-2] == [name for name in registry.HELP_ORDER if name != "serve"]
