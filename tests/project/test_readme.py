"""README.md against the code it describes: the layout table is generated from each package's
docstring, so that it cannot drift (``pytest --update-golden tests/project/test_readme.py``
rewrites it)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PACKAGE = ROOT / "popejoan_solver"
README = ROOT / "README.md"
BEGIN = "<!-- layout: generated from each package's docstring (tests/project/test_readme.py) -->"
END = "<!-- end of layout -->"

ORDER = ("model", "files", "intervals", "search", "logic", "seat", "advice", "bots", "jobs",
         "studies", "command", "cli", "web", "spiel")
"""The packages in the order of their layers (docs/design.md); any other comes after, by name."""

OTHER_PATHS = (
    ("popejoan_solver/data/cases/", "every worked example of the sources, as TOML data, shipped "
                                    "in the package (`cases/` links to it)"),
    ("benchmarks/", "the benchmarks; their figures in `docs/performance.md`"),
    ("tools/", "the mutation runner (`tools/mutants.py`, docs/proofs.md)"),
    ("tests/", "the test suite; `tests/sources/` the passages of the sources the rules quote"),
    ("docs/", "rules, notation, solver, proofs, performance, design, the contract; "
              "`docs/studies/` the study reports"),
)
"""Rows for what is not a package of the library, written here by hand."""

_ROLE = re.compile(r":(?:func|mod|class|data|meth|attr):`~?\.?([^`]+)`")


def summary(docstring: str) -> str:
    """The first sentence of a docstring's first paragraph, its reStructuredText markup turned
    into Markdown (``x`` and :func:`x` become `x`)."""
    paragraph = " ".join(docstring.strip().split("\n\n")[0].split())
    sentence = re.split(r"(?<=\.)\s+(?=[A-Z])", paragraph, maxsplit=1)[0]
    sentence = _ROLE.sub(r"`\1`", sentence).replace("``", "`")
    return sentence.replace("|", "\\|")


def docstring_of(path: Path) -> str:
    """A module's docstring, read without importing it (an extra may be missing)."""
    text = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    if not text:
        raise AssertionError(f"{path.relative_to(ROOT)} has no docstring to describe it")
    return text


def parts() -> list[tuple[str, Path]]:
    """The library's packages and top-level modules (its dunder modules aside), in layer order."""
    found = {p.parent.name: p for p in PACKAGE.glob("*/__init__.py")}
    found |= {p.name: p for p in PACKAGE.glob("*.py") if not p.name.startswith("__")}
    rank = {name: i for i, name in enumerate(ORDER)}

    def key(name: str) -> tuple[int, str]:
        return rank.get(name.removesuffix(".py"), len(ORDER)), name

    return [(name, found[name]) for name in sorted(found, key=key)]


def layout_table() -> str:
    """README's layout table: a row per package (its docstring's first sentence), then the
    other top-level paths."""
    rows = ["| path | what |", "|---|---|"]
    for name, path in parts():
        shown = f"popejoan_solver/{name}" + ("" if name.endswith(".py") else "/")
        rows.append(f"| `{shown}` | {summary(docstring_of(path))} |")
    rows += [f"| `{path}` | {what} |" for path, what in OTHER_PATHS]
    return "\n".join(rows) + "\n"


def with_table(readme: str, table: str) -> str:
    """README's text with the generated table between its markers."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + table + readme[end:]


def test_the_summary_is_the_first_sentence_in_markdown() -> None:
    text = """Bots (``docs/bots.md``): the registry (:func:`make_bot`), :mod:`.bot`. More
    words here.

    Another paragraph."""
    assert summary(text) == "Bots (`docs/bots.md`): the registry (`make_bot`), `bot`."
    assert summary("One | two: no full stop") == "One \\| two: no full stop"


def test_the_readme_layout_table_matches_the_packages(update_golden: bool) -> None:
    readme = README.read_text(encoding="utf-8")
    expected = with_table(readme, layout_table())
    if update_golden:
        README.write_text(expected, encoding="utf-8")
        return
    assert readme == expected, ("README.md's layout table and the packages' docstrings "
                                "disagree: run pytest --update-golden tests/project/test_readme.py")


def test_the_readme_python_example_prints_cards(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's "From Python" example, run as the README has it, prints the stops as cards
    (``'QC'``), not card numbers (``str`` of a card, which is an int)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### From Python\n\n```python\n(.*?)```", readme, re.S)
    assert block is not None
    exec(compile(block.group(1), "README.md", "exec"), {})  # the README's own code
    guaranteed, stops = capsys.readouterr().out.splitlines()
    assert guaranteed == "-1 0"
    assert stops.startswith("['QC', '7D', ")
