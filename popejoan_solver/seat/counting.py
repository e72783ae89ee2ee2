"""Exact counting and uniform drawing of card placements under per-card constraints.

The placements counted are the ways to put each hidden card in one of the locations it is
allowed (a bit mask over seats ``0..n-1`` and the dead hand ``n``) so that every location
receives exactly the number of cards it needs. Cards with the same allowed set are
interchangeable, so they are grouped; a placement is then a matrix ``k[group][location]`` with
the cards dealt out within it, and the count is the sum over matrices of
``prod_groups multinomial(size; row)``. A dynamic programme in Python's exact integers computes
it cell by cell (a row's multinomial is one binomial per cell), memoised on the counts left,
over the groups or over the locations, whichever has fewer states (:class:`Placements`).

Drawing is sequential conditional sampling with these exact counts: for each cell draw
``r = randrange(count(state))`` and take the first number of cards whose cumulative
``weight * count(next state)`` exceeds ``r``; then deal each group's cards to its locations by a
shuffle. Every placement is drawn with probability exactly ``1 / count`` (up to the generator's
own uniformity: ``random.Random`` with ``randrange`` and ``shuffle``, which draw exact
integers).

The work is bounded: past :data:`MAX_STEPS` states computed, a :class:`CountingLimitError`
is raised rather than running on (the worst real positions measured take about 55,000; see
docs/seat.md and docs/performance.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb, factorial, prod
from typing import Final

from ..model.cards import Card, Mask, iter_mask
from ..model.errors import PopeJoanError

MAX_STEPS: Final = 150_000
"""States of the programme one count may compute before it is refused (bounds its time, a few
seconds, and the memo's memory)."""


class CountingLimitError(PopeJoanError):
    """A count whose dynamic programme would compute more than :data:`MAX_STEPS` states."""


@dataclass(frozen=True)
class Group:
    """Interchangeable hidden cards: those allowed in exactly the locations of ``places``."""

    places: Mask
    cards: tuple[Card, ...]


def group_cards(allowed: Sequence[tuple[Card, Mask]]) -> tuple[Group, ...]:
    """The cards grouped by allowed set, smallest group first (the largest, forced, last)."""
    by_places: dict[Mask, list[Card]] = {}
    for card, places in allowed:
        by_places.setdefault(places, []).append(card)
    groups = [Group(places, tuple(sorted(cards))) for places, cards in by_places.items()]
    return tuple(sorted(groups, key=lambda g: (len(g.cards), g.places)))


def _multinomial(total: int, parts: Sequence[int]) -> int:
    result = factorial(total)
    for part in parts:
        result //= factorial(part)
    return result


class _Matrices:
    """Count matrices ``k[row][col]`` with row sums ``sizes``, column sums ``need`` and zeros
    outside each row's ``cols``, each weighted by ``prod_rows multinomial(size; row)``: a
    dynamic programme over the cells, row by row, memoised on (row, cell, cards left in the
    row, column sums left). A row's multinomial is the product of one binomial per cell,
    ``C(left, k)``, so no row's splits are ever enumerated whole."""

    def __init__(self, sizes: Sequence[int], cols: Sequence[tuple[int, ...]],
                 need: Sequence[int], limit: int | None = None) -> None:
        self.sizes = tuple(sizes)
        self.cols = tuple(cols)
        self.need = tuple(need)
        self.memo: dict[tuple[int, int, int, tuple[int, ...]], int] = {}
        self.steps = 0
        self.limit = MAX_STEPS if limit is None else limit
        # the last row that has each column: there the column takes all it still needs
        self.final = [max((r for r, cs in enumerate(self.cols) if c in cs), default=-1)
                      for c in range(len(self.need))]

    def start(self) -> tuple[int, int, int, tuple[int, ...]]:
        """The state before the first cell."""
        return 0, 0, self.sizes[0] if self.sizes else 0, self.need

    def _options(self, row: int, cell: int, left: int,
                 rem: tuple[int, ...]) -> range:
        """The numbers of cards the cell may take."""
        col = self.cols[row][cell]
        if cell == len(self.cols[row]) - 1:  # the row's last cell takes what is left
            return range(left, left + 1) if left <= rem[col] else range(0)
        if self.final[col] == row:  # the column's last row fills it
            return range(rem[col], rem[col] + 1) if rem[col] <= left else range(0)
        return range(min(left, rem[col]) + 1)

    def next_state(self, row: int, cell: int, left: int, rem: tuple[int, ...],
                   k: int) -> tuple[int, int, int, tuple[int, ...]]:
        col = self.cols[row][cell]
        rem = (*rem[:col], rem[col] - k, *rem[col + 1:])
        left -= k
        if cell + 1 < len(self.cols[row]):
            return row, cell + 1, left, rem
        return self.next_state_empty(row, rem)

    def count(self, row: int, cell: int, left: int, rem: tuple[int, ...]) -> int:
        if row == len(self.sizes):
            return 0 if any(rem) else 1
        cols = self.cols[row]
        if not cols:
            return self.count(*self.next_state_empty(row, rem)) if not left else 0
        key = (row, cell, left, rem)
        found = self.memo.get(key)
        if found is not None:
            return found
        self.steps += 1
        if self.steps > self.limit:
            raise CountingLimitError(
                f"too many ways to split the hidden cards to count them exactly "
                f"(over {self.limit:,} steps): the seat knows too little here")
        col = cols[cell]
        room = rem[col]
        total = 0
        if cell == len(cols) - 1:  # the row's last cell takes what is left
            if left <= room:
                after = (*rem[:col], room - left, *rem[col + 1:]) if left else rem
                total = self.count(*self.next_state_empty(row, after))
        elif left <= sum(rem[c] for c in cols[cell:]):
            head, tail = rem[:col], rem[col + 1:]
            for k in self._options(row, cell, left, rem):
                rest = self.count(row, cell + 1, left - k, (*head, room - k, *tail))
                if rest:
                    total += comb(left, k) * rest
        self.memo[key] = total
        return total

    def next_state_empty(self, row: int,
                         rem: tuple[int, ...]) -> tuple[int, int, int, tuple[int, ...]]:
        """The state at the start of the row after ``row``."""
        row += 1
        return row, 0, self.sizes[row] if row < len(self.sizes) else 0, rem

    def draw(self, rng: random.Random) -> list[list[int]]:
        """One matrix drawn with probability proportional to its weight: each row's cells."""
        rows: list[list[int]] = [[] for _ in self.sizes]
        state = self.start()
        while state[0] < len(self.sizes):
            row, cell, left, rem = state
            if not self.cols[row]:
                state = self.next_state_empty(row, rem)
                continue
            r = rng.randrange(self.count(*state))
            for k in self._options(row, cell, left, rem):
                after = self.next_state(row, cell, left, rem, k)
                weight = comb(left, k) * self.count(*after)
                if r < weight:
                    break
                r -= weight
            else:  # pragma: no cover - the counts add up by construction
                raise AssertionError("sampling walked past the count")
            rows[row].append(k)
            state = after
        return rows

    def every(self, state: tuple[int, int, int, tuple[int, ...]],
              done: list[list[int]]) -> Iterator[list[list[int]]]:
        """Every matrix of nonzero weight, as each row's cells."""
        row, cell, left, rem = state
        if row == len(self.sizes):
            if not any(rem):
                yield [list(r) for r in done]
            return
        if not self.cols[row]:
            yield from self.every(self.next_state_empty(row, rem), done)
            return
        for k in self._options(row, cell, left, rem):
            after = self.next_state(row, cell, left, rem, k)
            if self.count(*after):
                done[row].append(k)
                yield from self.every(after, done)
                done[row].pop()


class Placements:
    """The placements of grouped cards into locations with fixed needs: count, draw, list.

    A placement is a matrix of how many cards of each group go to each location (with the
    cards dealt out within it): the matrices are counted over the groups (memo on the needs
    left) or over the locations (memo on the group sizes left), whichever has the fewer
    states; the two counts differ by the constant ``prod size! / prod need!``, and both draw
    the matrix with the same law."""

    def __init__(self, groups: Sequence[Group], need: Sequence[int],
                 limit: int | None = None) -> None:
        self.groups = tuple(groups)
        self.need = tuple(need)
        self.locations = [tuple(iter_mask(g.places)) for g in self.groups]
        sizes = [len(g.cards) for g in self.groups]
        by_groups = prod(n + 1 for n in self.need if n > 0)
        by_places = prod(size + 1 for size in sizes)
        self.transposed = by_places < by_groups
        if self.transposed:
            cols = [tuple(i for i, places in enumerate(self.locations) if loc in places)
                    for loc in range(len(self.need))]
            self.dp = _Matrices(self.need, cols, sizes, limit)
        else:
            self.dp = _Matrices(sizes, self.locations, self.need, limit)

    @property
    def steps(self) -> int:
        return self.dp.steps

    def total(self) -> int:
        """The number of placements (0 when the needs cannot be met)."""
        sizes = [len(g.cards) for g in self.groups]
        if sum(self.need) != sum(sizes) or min(self.need, default=0) < 0:
            return 0
        count = self.dp.count(*self.dp.start())
        if not self.transposed:
            return count
        scale, down = 1, 1
        for size in sizes:
            scale *= factorial(size)
        for n in self.need:
            down *= factorial(n)
        return count * scale // down

    def _matrix(self, rows: list[list[int]]) -> list[list[int]]:
        """``k[group][location]`` from the DP's rows."""
        k = [[0] * len(self.need) for _ in self.groups]
        for row, split in enumerate(rows):
            for col, n in zip(self.dp.cols[row], split, strict=True):
                if self.transposed:
                    k[col][row] = n
                else:
                    k[row][col] = n
        return k

    def draw(self, rng: random.Random) -> tuple[Mask, ...]:
        """One placement drawn uniformly: the cards each location receives."""
        if not self.total():
            raise CountingLimitError("no placement to draw")
        k = self._matrix(self.dp.draw(rng))
        got = [0] * len(self.need)
        for index, group in enumerate(self.groups):
            cards = list(group.cards)
            rng.shuffle(cards)
            start = 0
            for place in self.locations[index]:
                for card in cards[start:start + k[index][place]]:
                    got[place] |= 1 << card
                start += k[index][place]
        return tuple(got)

    def every(self) -> Iterator[tuple[Mask, ...]]:
        """Every placement, each once (in a fixed order)."""
        for rows in self.dp.every(self.dp.start(), [[] for _ in self.dp.sizes]):
            k = self._matrix(rows)
            yield from self._deal_groups(k, 0, (0,) * len(self.need))

    def _deal_groups(self, k: list[list[int]], index: int,
                     got: tuple[Mask, ...]) -> Iterator[tuple[Mask, ...]]:
        if index == len(self.groups):
            yield got
            return
        places = self.locations[index]
        split = tuple(k[index][p] for p in places)
        for dealt in _deal_out(self.groups[index].cards, places, split):
            merged = list(got)
            for place, mask in dealt:
                merged[place] |= mask
            yield from self._deal_groups(k, index + 1, tuple(merged))


def _deal_out(cards: tuple[Card, ...], places: tuple[int, ...],
              split: tuple[int, ...]) -> Iterator[list[tuple[int, Mask]]]:
    """Every way to give ``split[i]`` of ``cards`` to ``places[i]``."""
    if not places:
        yield []
        return
    for chosen in combinations(cards, split[0]):
        rest = tuple(c for c in cards if c not in chosen)
        mask = 0
        for card in chosen:
            mask |= 1 << card
        for tail in _deal_out(rest, places[1:], split[1:]):
            yield [(places[0], mask), *tail]


def can_place(groups: Sequence[Group], index: int, place: int, need: Sequence[int]) -> bool:
    """Whether some placement puts a card of ``groups[index]`` at location ``place``: a
    maximum flow from the groups (their sizes) to the locations (their needs) once that card
    is placed, which is cheap where counting may not be."""
    if need[place] < 1 or not groups[index].places >> place & 1:
        return False
    sizes = [len(g.cards) for g in groups]
    sizes[index] -= 1
    room = list(need)
    room[place] -= 1
    return _max_flow([g.places for g in groups], sizes, room) == sum(sizes)


def _max_flow(places: Sequence[Mask], sizes: Sequence[int], room: Sequence[int]) -> int:
    """Cards of each group sent to allowed locations within their room (augmenting paths;
    at most 52 augmentations over a graph of groups and locations)."""
    flow = [[0] * len(room) for _ in places]
    supply = list(sizes)
    left = list(room)
    total = 0
    while True:
        path = _augmenting(places, flow, supply, left)
        if path is None:
            return total
        start, hops, end = path
        supply[start] -= 1
        left[end] -= 1
        for group, loc, sign in hops:
            flow[group][loc] += sign
        total += 1


def _augmenting(places: Sequence[Mask], flow: list[list[int]], supply: list[int],
                left: list[int]) -> tuple[int, list[tuple[int, int, int]], int] | None:
    """A path from a group with supply to a location with room, alternating forward edges
    (allowed) and backward edges (cards already sent), by breadth-first search."""
    for start in (g for g, s in enumerate(supply) if s > 0):
        parent: dict[int, tuple[int, int]] = {}  # location -> (group it was reached from)
        seen_groups = {start}
        frontier = [start]
        while frontier:
            nxt: list[int] = []
            for group in frontier:
                for loc in range(len(left)):
                    if loc in parent or not places[group] >> loc & 1:
                        continue
                    parent[loc] = (group, 0)
                    if left[loc] > 0:
                        return start, _unwind(parent, loc, flow), loc
                    for back, row in enumerate(flow):
                        if row[loc] > 0 and back not in seen_groups:
                            seen_groups.add(back)
                            nxt.append(back)
                            parent[-1 - back] = (loc, 0)
            frontier = nxt
    return None


def _unwind(parent: dict[int, tuple[int, int]], loc: int,
            flow: list[list[int]]) -> list[tuple[int, int, int]]:
    """The flow changes along the path ending at ``loc``."""
    hops: list[tuple[int, int, int]] = []
    while True:
        group = parent[loc][0]
        hops.append((group, loc, +1))
        back = parent.get(-1 - group)
        if back is None:
            return hops
        prev = back[0]
        hops.append((group, prev, -1))
        loc = prev


def relaxed(groups: Sequence[Group], need: Sequence[int], limit: int) -> Placements:
    """Placements of the same cards under fewer constraints, countable within ``limit``: the
    two smallest groups merged (allowed where either was) until the count fits. Its draws,
    kept when every card is where it is allowed, are uniform over the true placements."""
    current = list(groups)
    while True:
        found = Placements(current, need, limit)
        try:
            found.total()
        except CountingLimitError:
            if len(current) < 2:
                raise
            first, second = sorted(current, key=lambda g: len(g.cards))[:2]
            rest = [g for g in current if g is not first and g is not second]
            merged = [(c, first.places | second.places) for c in first.cards + second.cards]
            current = list(group_cards([*merged, *((c, g.places) for g in rest
                                                     for c in g.cards)]))
            continue
        return found
