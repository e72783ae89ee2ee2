"""How well sampling suits Pope Joan: the game-tree properties of Long, Sturtevant, Buro and
Furtak ("Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree
Search", AAAI 2010) measured on random playouts of seeded deals.

Our readings for an n-player general-sum game whose leaves lie at many depths
(docs/studies/pimc-measures.md gives the reasons):

- leaf correlation: at the last decision of a random playout that has at least two legal leads,
  do all of them give the mover the same double-dummy value (its paranoid value after the
  lead, ``search.lead_values``)? The fraction that do.
- bias: at the leaves of random playouts, how often each seat ends ahead (net counters above
  0) and goes out; summarised by the largest distance of a seat's going-out rate from 1/n.
- disambiguation factor: between two consecutive leads of the same seat, the share of its
  uncertainty (the log of the number of deals consistent with what it knows,
  ``seat.count_deals``) that the play in between removed; averaged over such pairs.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model.deal import Deal, deal_random, position_deal
from ..model.play import Choice, Position, Run
from ..model.rules import Ruleset
from ..model.settlement import apply_to_board, settle, turnup_award
from ..search.leads import lead_values
from ..seat import CountingLimitError, count_deals, knowledge


@dataclass(frozen=True)
class Decision:
    """A lead decision met on a random playout: the seat (from 1), the runs before it, the
    options."""

    seat: int
    line: tuple[Run, ...]
    options: int


@dataclass(frozen=True)
class Playout:
    """One deal played out at random: its lead decisions, its runs and what each seat won."""

    deal: Deal
    decisions: tuple[Decision, ...]
    runs: tuple[Run, ...]
    winner: int | None
    """Seat that went out; None if no one did (the turn-up ended the deal)."""
    values: tuple[int, ...]
    """What each seat won: seat ``i + 1``'s at index ``i``."""


def random_playout(deal: Deal, rng: random.Random) -> Playout:
    """Every lead and every choice inside a run uniformly at random, by the model's play."""
    position = Position.from_deal(deal)
    played_out = turnup_award(deal, deal.board_or_dressed).deal_is_played
    decisions: list[Decision] = []
    runs: list[Run] = []
    while played_out and not position.is_over:
        legal = position.legal_leads()
        decisions.append(Decision(position.leader, tuple(runs), len(legal)))
        lead = rng.choice(legal)
        tree = position.game.run_tree(position.played, position.leader, lead)
        while isinstance(tree, Choice):
            tree = rng.choice(tree.options)
        runs.append(tree)
        position = position.after(tree)
    settled = settle(deal, position.played, position.winner)
    values = tuple(settled.net(s) for s in range(1, deal.players + 1))
    return Playout(deal, tuple(decisions), tuple(runs), position.winner, values)


def last_decision_correlated(playout: Playout) -> bool | None:
    """Whether every legal lead at the playout's last real decision (two or more leads) gives
    its mover the same exact double-dummy value; None when the playout had no such decision."""
    real = [d for d in playout.decisions if d.options >= 2]
    return indifferent(playout.deal, real[-1]) if real else None


def indifferent(deal: Deal, decision: Decision) -> bool:
    """Whether every legal lead at ``decision`` gives its mover the same exact double-dummy
    value (its paranoid value after the lead, as ``search.lead_values`` gives it)."""
    position = Position.from_deal(deal)
    for run in decision.line:
        position = position.after(run)
    board = apply_to_board(deal.board_or_dressed,
                           turnup_award(deal, deal.board_or_dressed).transfers)
    evals = lead_values(position_deal(deal, position, board), forced_win=False)
    values = {(e.guaranteed.lower, e.guaranteed.upper) for e in evals}
    return len(values) == 1


def indifference_by_depth(playout: Playout, deepest: int) -> list[tuple[int, bool]]:
    """For each real decision of the playout, its distance from the last one (0 = the last,
    counted in real decisions, capped at ``deepest``) and whether it is indifferent."""
    real = [d for d in playout.decisions if d.options >= 2]
    return [(min(len(real) - 1 - i, deepest), indifferent(playout.deal, d))
            for i, d in enumerate(real)]


def hidden_at_last(playout: Playout) -> tuple[int, int] | None:
    """At the playout's last real decision: the number of deals consistent with what its mover
    knows and how many cards it cannot place; None without such a decision (or when the count
    is refused as too costly)."""
    real = [d for d in playout.decisions if d.options >= 2]
    if not real:
        return None
    k = knowledge(playout.deal, real[-1].seat, real[-1].line)
    try:
        return count_deals(k), k.hidden.bit_count()
    except CountingLimitError:
        return None


def information_sizes(playout: Playout, seat: int) -> list[int | None]:
    """The number of deals consistent with what ``seat`` knows at each of its leads; None
    where the exact count is refused as too costly (``seat.CountingLimitError``)."""
    sizes: list[int | None] = []
    for decision in playout.decisions:
        if decision.seat == seat:
            try:
                sizes.append(count_deals(knowledge(playout.deal, seat, decision.line)))
            except CountingLimitError:
                sizes.append(None)
    return sizes


def disambiguation(sizes: list[int | None]) -> list[float]:
    """For each pair of consecutive sizes, both counted and the first above 1: the share of
    the log-size removed in between (0: nothing learnt; 1: the deal is known)."""
    return [1 - math.log(after) / math.log(before)
            for before, after in itertools.pairwise(sizes)
            if before is not None and after is not None and before > 1]


@dataclass
class Measures:
    """The three properties for one ruleset and number of players, with their sample sizes."""

    rules: str
    players: int
    deals: int = 0
    correlated: int = 0
    decisions: int = 0
    out: list[int] = field(default_factory=list)
    ahead: list[int] = field(default_factory=list)
    df: list[float] = field(default_factory=list)
    first_sizes: list[int] = field(default_factory=list)
    known: int = 0
    leads: int = 0
    uncounted: int = 0
    """Leads whose information set was too costly to count exactly (left out of the factor)."""

    @property
    def leaf_correlation(self) -> float:
        return self.correlated / self.decisions if self.decisions else math.nan

    @property
    def out_rates(self) -> tuple[float, ...]:
        return tuple(n / self.deals for n in self.out)

    @property
    def ahead_rates(self) -> tuple[float, ...]:
        return tuple(n / self.deals for n in self.ahead)

    @property
    def bias(self) -> float:
        """The largest distance of a seat's going-out rate from 1/n (0: no seat favoured)."""
        return max(abs(r - 1 / self.players) for r in self.out_rates)

    @property
    def disambiguation_factor(self) -> float:
        return sum(self.df) / len(self.df) if self.df else math.nan

    def to_json(self) -> dict[str, object]:
        return {"rules": self.rules, "players": self.players, "deals": self.deals,
                "leaf_correlation": self.leaf_correlation, "last_decisions": self.decisions,
                "bias": self.bias, "out_rates": self.out_rates, "ahead_rates": self.ahead_rates,
                "disambiguation_factor": self.disambiguation_factor,
                "disambiguation_pairs": len(self.df),
                "median_first_information_set": _median(self.first_sizes),
                "leads_knowing_the_deal": self.known / self.leads if self.leads else math.nan,
                "leads": self.leads, "leads_uncounted": self.uncounted}


def _median(values: list[int]) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    middle = len(ordered) // 2
    return float(ordered[middle]) if len(ordered) % 2 else (ordered[middle - 1]
                                                           + ordered[middle]) / 2


def measure(rules: Ruleset, players: int, deals: int, seed: int) -> Measures:
    """The measures over ``deals`` seeded deals (deal ``i`` is ``deal_random(players, seed,
    rules, i)``), each played out at random with its own seeded generator."""
    found = Measures(rules.name, players, out=[0] * players, ahead=[0] * players)
    for playout in playouts(rules, players, deals, seed):
        add_playout(found, playout)
    return found


def playouts(rules: Ruleset, players: int, deals: int, seed: int) -> Iterator[Playout]:
    """The random playouts of :func:`measure`: deal ``i`` with its own seeded generator."""
    for index in range(deals):
        yield random_playout(deal_random(players, seed, rules, index),
                             random.Random(f"pimc-measures:{seed}:{index}"))


def add_playout(found: Measures, playout: Playout) -> None:
    """Fold one playout into the measures."""
    found.deals += 1
    if playout.winner is not None:
        found.out[playout.winner - 1] += 1
    for seat, value in enumerate(playout.values):
        found.ahead[seat] += value > 0
    correlated = last_decision_correlated(playout)
    if correlated is not None:
        found.decisions += 1
        found.correlated += correlated
    for seat in range(1, playout.deal.players + 1):
        sizes = information_sizes(playout, seat)
        if sizes and sizes[0] is not None:
            found.first_sizes.append(sizes[0])
        found.df += disambiguation(sizes)
        found.known += sum(size == 1 for size in sizes)
        found.uncounted += sum(size is None for size in sizes)
        found.leads += len(sizes)
