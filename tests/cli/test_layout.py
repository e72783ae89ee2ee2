"""The command-line package's shape: the launcher imports it and never the other way, no
interface imports it, no private name crosses its modules, no function over 60 lines or
cyclomatic complexity 15."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "popejoan_solver"
CLI = PACKAGE / "cli"


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, names, level) of every import of a file, at any depth."""
    found: list[tuple[str, list[str], int]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.append((node.module or "", [a.name for a in node.names], node.level))
        elif isinstance(node, ast.Import):
            found += [(a.name, [], 0) for a in node.names]
    return found


def _absolute(path: Path, module: str, level: int) -> str:
    if level == 0:
        return module
    parts = list(path.relative_to(ROOT).with_suffix("").parts)[:-level]
    return ".".join([*parts, module] if module else parts)


def test_the_command_line_never_imports_the_launcher() -> None:
    for path in CLI.glob("*.py"):
        for module, names, level in _imports(path):
            target = _absolute(path, module, level)
            assert target != "popejoan_solver.__main__", path.name
            assert not (target == "popejoan_solver" and "__main__" in names), path.name


def test_no_interface_imports_the_command_line() -> None:
    for folder in ("web", "spiel"):
        for path in (PACKAGE / folder).rglob("*.py"):
            for module, _, level in _imports(path):
                target = _absolute(path, module, level)
                assert not target.startswith("popejoan_solver.cli"), path


def test_no_private_name_crosses_the_command_lines_modules() -> None:
    for path in CLI.glob("*.py"):
        for module, names, level in _imports(path):
            if _absolute(path, module, level).startswith("popejoan_solver"):
                assert not [n for n in names if n.startswith("_")], (path.name, module, names)


def test_no_function_is_over_60_lines() -> None:
    for path in CLI.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                assert node.end_lineno - node.lineno < 60, (path.name, node.name)


@pytest.mark.skipif(shutil.which("ruff", path=str(Path(sys.executable).parent)) is None,
                    reason="ruff is not installed beside this Python")
def test_no_function_is_over_complexity_15() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None
    done = subprocess.run([ruff, "check", "--no-cache", "--select", "C901", "--config",
                           "lint.mccabe.max-complexity=15", str(CLI)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout


def test_the_command_line_loads_without_the_launcher() -> None:
    code = ("import sys, popejoan_solver.cli; "
            "print('popejoan_solver.__main__' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    assert done.stdout.strip() == "False"
