"""The explicit state graph of a deal: a node per position, an edge per lead and its run."""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..model.cards import Mask, card_name, format_cards
from ..model.deal import Deal
from ..model.errors import PopeJoanError
from ..model.play import Position

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
    """A stable node name: the played mask in hex and the 1-based seat to lead (or out)."""
    return f"{played:013x}:{leader + 1}"


def build_graph(deal: Deal, max_states: int = DEFAULT_MAX_STATES) -> tuple[nx.DiGraph, str]:
    """Every position reachable from the deal's, breadth first; returns the graph and root."""
    import networkx as nx  # loaded on first use: importing it takes about 0.1 s
    start = Position.from_deal(deal)
    graph = nx.DiGraph()
    root = node_id(start.played, start.leader)
    graph.add_node(root, **_node_attrs(start))
    queue = deque([start])
    while queue:
        position = queue.popleft()
        source = node_id(position.played, position.leader)
        for lead in position.legal_leads():
            run, after = position.play(lead)
            target = node_id(after.played, after.winner if after.is_over else after.leader)
            if target not in graph:
                if graph.number_of_nodes() >= max_states:
                    raise GraphTooLargeError(
                        f"the state graph has more than {max_states} states; raise "
                        "--max-states or start from a later position"
                    )
                graph.add_node(target, **_node_attrs(after))
                if not after.is_over:
                    queue.append(after)
            graph.add_edge(source, target, lead=card_name(lead),
                           run=" ".join(card_name(c) for c in run.cards),
                           reason=run.reason.value)
    return graph, root


def _node_attrs(position: Position) -> dict[str, Any]:
    winner = position.winner
    return {"played": format_cards(position.played),
            "leader": 0 if winner >= 0 else position.leader + 1,
            "terminal": winner >= 0, "winner": winner + 1}


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
    """The graph as GraphML, Graphviz DOT or node-link JSON."""
    import networkx as nx
    if fmt == "graphml":
        return "\n".join(nx.generate_graphml(graph)) + "\n"
    if fmt == "json":
        return json.dumps(nx.node_link_data(graph, edges="edges"), indent=1) + "\n"
    if fmt == "dot":
        lines = ["digraph popejoan {"]
        for node, data in graph.nodes(data=True):
            label = f"out: seat {data['winner']}" if data["terminal"] else \
                f"seat {data['leader']} to lead"
            lines.append(f'  "{node}" [label="{label}"];')
        for source, target, data in graph.edges(data=True):
            lines.append(f'  "{source}" -> "{target}" [label="{data["run"]}"];')
        lines.append("}")
        return "\n".join(lines) + "\n"
    raise PopeJoanError(f"unknown graph format {fmt!r} (graphml, dot, json)")
