"""The state graph (``popejoan_solver/search/graph.py``): written atomically, and a graph too
large for memory is an error."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from popejoan_solver.model.errors import PopeJoanError
from popejoan_solver.model.notation import parse_deal_text
from popejoan_solver.search import graph as graph_module
from popejoan_solver.search.graph import GraphTooLargeError, build_graph, write_atomically

GRAPH_DEAL = ("hoyle-modernized: 34TJ..27. 27.T.Q.9K Q.A67K..2 6.5J.5.TJ | "
              "A589K.2349Q.A34689TJK.A345678Q ^3D")
"""A deal of six cards a hand: 565 states, about 100 KB of DOT, built in a moment."""


def test_write_atomically_leaves_all_or_nothing(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "g.dot"
    write_atomically(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, "half\n")
    assert target.read_text() == "new\n"  # the old file, untouched
    with pytest.raises(KeyboardInterrupt):
        write_atomically(tmp_path / "other.dot", "half\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.dot"]  # no temporary file left
    monkeypatch.undo()
    with pytest.raises(PopeJoanError, match="cannot write"):
        write_atomically(tmp_path / "missing" / "g.dot", "text\n")


def test_a_graph_too_large_for_memory_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(*args: Any) -> Any:
        raise MemoryError

    monkeypatch.setattr(graph_module, "_to_networkx", no_memory)
    with pytest.raises(GraphTooLargeError, match="does not fit in memory"):
        build_graph(parse_deal_text(GRAPH_DEAL))
