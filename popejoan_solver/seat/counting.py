"""Exact counting and uniform drawing of card placements under per-card constraints.

The placements counted are the ways to put each hidden card in one of the locations it is
allowed (a bit mask over seats ``0..n-1`` and the dead hand ``n``) so that every location
receives exactly the number of cards it needs. Cards with the same allowed set are
interchangeable, so they are grouped; the count is a sum over the groups, one after the other,
of every way to split a group's ``g`` cards among its locations (``k_a`` cards to location
``a``): ``multinomial(g; k) * count(rest, need - k)``, memoised on (group, needs left), in
Python's exact integers. The largest group goes last: its split is forced by the needs left,
so it costs one multinomial and no enumeration.

Drawing is sequential conditional sampling with these exact counts: for each group draw
``r = randrange(count(group, needs))`` and walk the splits in a fixed order until their
cumulative count exceeds ``r``; then deal the group's cards to its locations by a shuffle.
Every placement is drawn with probability exactly ``1 / count`` (up to the generator's own
uniformity: ``random.Random`` with ``randrange`` and ``shuffle``, which draw exact integers).

The work is bounded: past :data:`MAX_STEPS` splits examined, a :class:`CountingLimitError`
is raised rather than running on (the worst real positions take a few thousand; see
docs/seat.md).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import factorial
from typing import Final

from ..model.cards import Card, Mask, iter_mask
from ..model.errors import PopeJoanError

MAX_STEPS: Final = 2_000_000
"""Splits examined by one count before it is refused (bounds time and the memo's memory)."""


class CountingLimitError(PopeJoanError):
    """A count whose dynamic programme would examine more than :data:`MAX_STEPS` splits."""


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


class Placements:
    """The placements of grouped cards into locations with fixed needs: count, draw, list."""

    def __init__(self, groups: Sequence[Group], need: Sequence[int]) -> None:
        self.groups = tuple(groups)
        self.need = tuple(need)
        self.locations = [tuple(iter_mask(g.places)) for g in self.groups]
        self.memo: dict[tuple[int, tuple[int, ...]], int] = {}
        self.steps = 0

    def total(self) -> int:
        """The number of placements (0 when the needs cannot be met)."""
        if sum(self.need) != sum(len(g.cards) for g in self.groups) or min(self.need,
                                                                            default=0) < 0:
            return 0
        return self._count(0, self.need)

    def _splits(self, index: int, rem: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        """Every split of group ``index``'s cards among its locations within ``rem``, as the
        number of cards per location of ``self.locations[index]``."""
        places = self.locations[index]
        size = len(self.groups[index].cards)
        room = [rem[a] for a in places]
        after = [0] * (len(places) + 1)
        for i in range(len(places) - 1, -1, -1):
            after[i] = after[i + 1] + room[i]
        if after[0] < size:
            return
        split = [0] * len(places)

        def walk(i: int, left: int) -> Iterator[tuple[int, ...]]:
            if i == len(places) - 1:
                if left <= room[i]:
                    split[i] = left
                    yield tuple(split)
                return
            for k in range(max(0, left - after[i + 1]), min(left, room[i]) + 1):
                split[i] = k
                yield from walk(i + 1, left - k)

        yield from walk(0, size)

    def _after(self, index: int, rem: tuple[int, ...], split: tuple[int, ...]) -> tuple[int, ...]:
        left = list(rem)
        for place, k in zip(self.locations[index], split, strict=True):
            left[place] -= k
        return tuple(left)

    def _count(self, index: int, rem: tuple[int, ...]) -> int:
        if index == len(self.groups):
            return 1 if not any(rem) else 0
        key = (index, rem)
        found = self.memo.get(key)
        if found is not None:
            return found
        size = len(self.groups[index].cards)
        total = 0
        if index == len(self.groups) - 1:  # the last group's split is forced
            places = self.groups[index].places
            if all(places >> a & 1 or not r for a, r in enumerate(rem)):
                total = _multinomial(size, [rem[a] for a in self.locations[index]])
        else:
            for split in self._splits(index, rem):
                self.steps += 1
                if self.steps > MAX_STEPS:
                    raise CountingLimitError(
                        f"too many ways to split the hidden cards to count them exactly "
                        f"(over {MAX_STEPS:,} steps): the seat knows too little here")
                rest = self._count(index + 1, self._after(index, rem, split))
                if rest:
                    total += _multinomial(size, split) * rest
        self.memo[key] = total
        return total

    def draw(self, rng: random.Random) -> tuple[Mask, ...]:
        """One placement drawn uniformly: the cards each location receives."""
        rem = self.need
        got = [0] * len(self.need)
        for index, group in enumerate(self.groups):
            r = rng.randrange(self._count(index, rem))
            size = len(group.cards)
            for split in self._splits(index, rem):
                after = self._after(index, rem, split)
                weight = _multinomial(size, split) * self._count(index + 1, after)
                if r < weight:
                    break
                r -= weight
            else:  # pragma: no cover - the counts add up by construction
                raise AssertionError("sampling walked past the count")
            cards = list(group.cards)
            rng.shuffle(cards)
            start = 0
            for place, k in zip(self.locations[index], split, strict=True):
                for card in cards[start:start + k]:
                    got[place] |= 1 << card
                start += k
            rem = after
        return tuple(got)

    def every(self) -> Iterator[tuple[Mask, ...]]:
        """Every placement, each once (in a fixed order)."""
        yield from self._every(0, self.need, (0,) * len(self.need))

    def _every(self, index: int, rem: tuple[int, ...],
               got: tuple[Mask, ...]) -> Iterator[tuple[Mask, ...]]:
        if index == len(self.groups):
            if not any(rem):
                yield got
            return
        for split in self._splits(index, rem):
            after = self._after(index, rem, split)
            if not self._count(index + 1, after):
                continue
            for dealt in _deal_out(self.groups[index].cards, self.locations[index], split):
                merged = list(got)
                for place, mask in dealt:
                    merged[place] |= mask
                yield from self._every(index + 1, after, tuple(merged))


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
