"""``docs/cli.md``, written from the parser: every command's help line, description, usage,
options and examples, so the reference cannot drift from the command line.

``tests/cli/test_reference.py`` fails when the file and the parser disagree; ``pytest
tests/cli/test_reference.py --update-golden`` writes it again.
"""

from __future__ import annotations

import sys
from typing import Final

from . import COMMANDS, build_parsers

WIDTH: Final = 88
"""Columns the help in the reference is wrapped to (never the terminal's)."""

INTRO: Final = """\
Every command of `popejoan` (also run as `python -m popejoan_solver`), as its `--help` shows
it: the help line, the description, the usage and options, and examples. The options that
several commands share are spelt and read the same way everywhere:
"""

SHARED: Final = (
    ("`--rules R`, `--set OPT=V`",
     "the ruleset (`popejoan rules` lists them) and options set on it, repeatable; every "
     "command that deals or solves takes both (a command that reads a deal applies them to "
     "it; a game record is played under the ruleset it names)"),
    ("`--seed N`", "a whole number (negative ones too); each command keeps its own default"),
    ("`--seat N`", "a seat, from 1 (eldest), checked against the number of players"),
    ("`--out FILE`",
     "the file a command writes (`--output` of `graph` and `--record` of `solve` and `play` "
     "are the same option), written whole or not at all"),
    ("`--format text\\|json`, `--json`",
     "`--json` is `--format json` (in `graph`, `--format` names the export and `--json` the "
     "summary's form)"),
)
"""The options several commands share, and what they mean everywhere."""

STATUSES: Final = """\
A bad command line is one line `error: ...` on standard error and exit status 2. Exit
statuses: 0 done; 1 a disagreement (a case, a refuted theorem, a proof that no such deal
exists, an illegal record); 2 bad input; 3 a time limit ran out, or a theorem stayed unknown
or was vacuous; 4 an internal error of a proof (a bug of the tool); 130 interrupted (Ctrl-C);
141 the reader of standard output went away; 143 a batch, study or match stopped by SIGTERM.
"""


def cli_reference() -> str:
    """The text of ``docs/cli.md``."""
    top, parsers = build_parsers(WIDTH)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    lines = ["# The command line", "",
             f"<!-- Written by popejoan_solver/cli/reference.py from the parser (Python "
             f"{version}'s argparse): edit a command's module, then run `pytest "
             "tests/cli/test_reference.py --update-golden`. -->", "",
             INTRO, "| option | meaning |", "|---|---|"]
    lines += [f"| {option} | {meaning} |" for option, meaning in SHARED]
    lines += ["", STATUSES, "## Commands", "", "| command | what it does |", "|---|---|"]
    lines += [f"| [`{c.name}`](#popejoan-{c.name}) | {c.summary} |" for c in COMMANDS]
    lines += ["", "```text", top.format_help().rstrip("\n"), "```"]
    for command in COMMANDS:
        lines += ["", f"## popejoan {command.name}", "", _sentence(command.summary), "",
                  "```text", parsers[command.name].format_help().rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"


def _sentence(text: str) -> str:
    """A help line as a sentence: capital first, full stop last."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def python_version(reference: str) -> str | None:
    """The Python version whose argparse wrote ``reference`` (from its opening comment)."""
    marker = "from the parser (Python "
    start = reference.find(marker)
    if start < 0:
        return None
    return reference[start + len(marker):].split("'", 1)[0]
