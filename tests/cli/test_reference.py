"""docs/cli.md is the parser's: written by ``popejoan_solver.cli.reference`` (``pytest
tests/cli/test_reference.py --update-golden`` writes it again), and this test fails when the
file and the command line disagree."""

from __future__ import annotations

import re
import sys

from popejoan_solver.cli import COMMANDS
from popejoan_solver.cli.reference import cli_reference, python_version
from tests.conftest import ROOT

REFERENCE = ROOT / "docs" / "cli.md"


def _sections(text: str) -> dict[str, set[str]]:
    """Each command's section of the reference: the options it names."""
    parts = re.split(r"^## popejoan ([a-z]+)$", text, flags=re.MULTILINE)
    return {name: set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", body))
            for name, body in zip(parts[1::2], parts[2::2], strict=True)}


def test_docs_cli_md_is_written_from_the_parser(update_golden: bool) -> None:
    written = cli_reference()
    if update_golden:
        REFERENCE.write_text(written, encoding="utf-8")
    recorded = REFERENCE.read_text(encoding="utf-8")
    hint = "docs/cli.md and the parser disagree: run pytest tests/cli/test_reference.py " \
           "--update-golden"
    # Every command, with the same options, whatever Python formats the help ...
    assert _sections(recorded) == _sections(written), hint
    assert list(_sections(recorded)) == [c.name for c in COMMANDS]
    # ... and, under the Python whose argparse wrote it, the same text to the byte.
    if python_version(recorded) == f"{sys.version_info.major}.{sys.version_info.minor}":
        assert recorded == written, hint


def test_the_reference_shows_every_description_and_example() -> None:
    text = " ".join(REFERENCE.read_text(encoding="utf-8").split())
    for command in COMMANDS:
        assert " ".join(command.description.split()) in text, command.name
        for example in command.examples:
            assert example in text, example


def test_the_check_sees_a_missing_option() -> None:
    written = cli_reference()
    dropped = written.replace("--tt-entries", "--tt-size")
    assert _sections(dropped) != _sections(written)
