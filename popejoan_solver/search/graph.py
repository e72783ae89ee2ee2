"""The explicit state graph of a deal: a node per position, an edge per run a lead can end in
(one per lead, or several where a choice inside the run gives a lead more than one outcome)."""

from __future__ import annotations

import json
from array import array
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files.writing import write_output
from ..model.cards import Mask, card_name, format_cards
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.play import Game, Position, StopReason
from ..model.settlement import turnup_ends_deal

if TYPE_CHECKING:
    import networkx as nx

DEFAULT_MAX_STATES = 200_000


class GraphTooLargeError(PopeJoanError):
    """The state graph has more states than the limit allows."""


@dataclass(frozen=True)
class GraphSummary:
    states: int
    edges: int
    terminal_states: int
    shortest_game: int
    longest_game: int
    acyclic: bool

    def to_json(self) -> dict[str, Any]:
        return {"states": self.states, "edges": self.edges,
                "terminal_states": self.terminal_states, "shortest_game": self.shortest_game,
                "longest_game": self.longest_game, "acyclic": self.acyclic}


def node_id(played: Mask, leader: int) -> str:
    """A stable node name: the played mask in hex and the seat to lead (or out)."""
    return f"{played:013x}:{leader}"


def build_graph(deal: Deal, max_states: int = DEFAULT_MAX_STATES) -> tuple[nx.DiGraph, str]:
    """Every position reachable from the deal's, breadth first; returns the graph and root.

    The search keeps its states in flat arrays and builds the networkx graph only at the end:
    a tenth of the memory while it runs, and an interrupted search is freed at once (a
    networkx graph of millions of states takes seconds to free, which Ctrl-C would wait for).
    Running out of memory is a :class:`GraphTooLargeError`, not a crash.
    """
    try:
        return _build(deal, max_states)
    except MemoryError:
        pass  # raised below, where nothing holds on to what was built any more
    raise GraphTooLargeError(f"the state graph does not fit in memory (--max-states "
                             f"{max_states}); lower --max-states or start from a later position")


def _build(deal: Deal, max_states: int) -> tuple[nx.DiGraph, str]:
    game = Game.from_deal(deal)
    start = Position.from_deal(deal)
    if turnup_ends_deal(deal):
        # The turn-up ends the deal before play: its one state, terminal, with no lead (as
        # `solve` and the referee of game records read the rules).
        space = _StateSpace()
        space.played.append(start.played)
        space.who.append(start.leader)
        return _to_networkx(game, space, ended=True), node_id(start.played, start.leader)
    space = _explore(game, start, max_states)
    return _to_networkx(game, space), node_id(space.played[0], space.who[0])


@dataclass
class _StateSpace:
    """The explored states and edges, in flat arrays (no object per state or edge).

    State ``i`` has played cards ``played[i]`` and ``who[i]``, the seat to lead (the seat
    out, for a finished one after a lead); edge ``j`` goes from ``source[j]`` to
    ``target[j]`` by leading ``lead[j]``, whose run is ``length[j]`` cards long (the lead and
    its successors) and stops for ``reason[j]`` (an index into ``StopReason``).
    """

    played: array[int] = field(default_factory=lambda: array("Q"))
    who: array[int] = field(default_factory=lambda: array("b"))
    source: array[int] = field(default_factory=lambda: array("Q"))
    target: array[int] = field(default_factory=lambda: array("Q"))
    lead: array[int] = field(default_factory=lambda: array("B"))
    length: array[int] = field(default_factory=lambda: array("B"))
    reason: array[int] = field(default_factory=lambda: array("B"))


_REASONS = tuple(StopReason)


def _explore(game: Game, start: Position, max_states: int) -> _StateSpace:
    """Breadth first from ``start``; at most ``max_states`` states, else GraphTooLargeError."""
    space = _StateSpace()
    index: dict[int, int] = {start.played << 3 | (start.leader - 1): 0}  # 3 bits: 8 seats
    space.played.append(start.played)
    space.who.append(start.leader)
    queue = deque([0])
    reason_index = {r: i for i, r in enumerate(_REASONS)}
    while queue:
        state = queue.popleft()
        position = Position(game, space.played[state], space.who[state])
        for lead, run in ((card, run) for card in position.legal_leads()
                          for run in position.outcomes(card)):
            after = position.after(run)
            over = run.winner is not None
            who = after.leader if run.winner is None else run.winner
            key = after.played << 3 | (who - 1)
            target = index.get(key)
            if target is None:
                if len(index) >= max_states:
                    raise GraphTooLargeError(
                        f"the state graph has more than {max_states} states; raise "
                        "--max-states or start from a later position")
                target = index[key] = len(space.played)
                space.played.append(after.played)
                space.who.append(who)
                if not over:
                    queue.append(target)
            space.source.append(state)
            space.target.append(target)
            space.lead.append(lead)
            space.length.append(len(run.cards))
            space.reason.append(reason_index[run.reason])
    return space


def _to_networkx(game: Game, space: _StateSpace, ended: bool = False) -> nx.DiGraph:
    """The explored states as a networkx graph with the attributes :func:`export` writes;
    ``ended``: the turn-up ended the deal, its one state terminal with no one out (winner 0)
    and no one to lead (leader 0)."""
    import networkx as nx  # loaded on first use: importing it takes about 0.1 s
    graph = nx.DiGraph()
    names = [node_id(p, w) for p, w in zip(space.played, space.who, strict=True)]
    for name, played, who in zip(names, space.played, space.who, strict=True):
        winner = game.winner(played)
        over = ended or winner is not None
        graph.add_node(name, played=format_cards(played), leader=0 if over else who,
                       terminal=over, winner=0 if winner is None else winner)
    successor = game.table.successor
    for source, target, lead, length, reason in zip(space.source, space.target, space.lead,
                                                   space.length, space.reason, strict=True):
        cards = [lead]
        while len(cards) < length:
            cards.append(successor[cards[-1]])
        graph.add_edge(names[source], names[target], lead=card_name(lead),
                       run=" ".join(card_name(c) for c in cards),
                       reason=_REASONS[reason].value)
    return graph


def summarise(graph: nx.DiGraph, root: str) -> GraphSummary:
    import networkx as nx
    terminals = [n for n, done in graph.nodes(data="terminal") if done]
    depth = nx.single_source_shortest_path_length(graph, root)
    acyclic = nx.is_directed_acyclic_graph(graph)
    longest = _longest_from(graph, root) if acyclic else -1
    return GraphSummary(graph.number_of_nodes(), graph.number_of_edges(), len(terminals),
                        min((depth[t] for t in terminals), default=0), longest, acyclic)


def _longest_from(graph: nx.DiGraph, root: str) -> int:
    import networkx as nx
    longest: dict[str, int] = {}
    for node in reversed(list(nx.topological_sort(graph))):
        longest[node] = max((1 + longest[s] for s in graph.successors(node)), default=0)
    return longest[root]


def export(graph: nx.DiGraph, fmt: str) -> str:
    """The graph as GraphML, Graphviz DOT or node-link JSON; a text too large for memory is a
    :class:`GraphTooLargeError`, not a crash."""
    try:
        return _export(graph, fmt)
    except MemoryError:
        pass  # raised below, where nothing holds on to the partial text any more
    raise GraphTooLargeError("the exported graph does not fit in memory; lower --max-states "
                             "or start from a later position")


def _export(graph: nx.DiGraph, fmt: str) -> str:
    import networkx as nx
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(graph)) + "\n"
    if fmt == "json":
        return json.dumps(nx.node_link_data(graph, edges="edges"), indent=1) + "\n"
    if fmt == "dot":
        lines = ["digraph popejoan {"]
        for node, data in graph.nodes(data=True):
            label = (f"seat {data['leader']} to lead" if not data["terminal"]
                     else f"out: seat {data['winner']}" if data["winner"]
                     else "ended by the turn-up")
            lines.append(f'  "{node}" [label="{label}"];')
        for source, target, data in graph.edges(data=True):
            lines.append(f'  "{source}" -> "{target}" [label="{data["run"]}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"
    raise PopeJoanError(f"unknown graph format {fmt!r} (graphml, dot, json)")


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` whole or not at all, by the rules every output file follows
    (:func:`~popejoan_solver.files.writing.write_output`): a failed or interrupted run
    (Ctrl-C) leaves neither a half-written ``path`` nor a temporary file; an error is a
    :class:`PopeJoanError` naming ``path``."""
    write_output(path, text)
