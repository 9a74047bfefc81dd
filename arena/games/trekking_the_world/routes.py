"""Routes on the map: trails of an exact length that reuse no connection.

trekking "Move": the trek cards played must sum EXACTLY to the number of connections used,
no connection may be used twice in one move (loops are fine), and no trekker may pass
through or land on a location occupied by another trekker. Only the end location matters
(souvenirs are collected where you land), so a route is summarised as the set of lengths
with which each location can be reached.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from .data import CONNECTIONS, LOCATION_INDEX, LOCATIONS

# adjacency as (neighbour index, connection bit)
_ADJ: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(
        (LOCATION_INDEX[b if a == loc else a], 1 << edge)
        for edge, (a, b) in enumerate(CONNECTIONS)
        if loc in (a, b)
    )
    for loc in LOCATIONS
)


def _bfs(start: int) -> list[int]:
    dist = [-1] * len(LOCATIONS)
    dist[start] = 0
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nb, _ in _ADJ[node]:
            if dist[nb] < 0:
                dist[nb] = dist[node] + 1
                queue.append(nb)
    return dist


# DISTANCE[a][b]: fewest connections between two locations on an empty map.
DISTANCE: tuple[tuple[int, ...], ...] = tuple(tuple(_bfs(i)) for i in range(len(LOCATIONS)))
DIAMETER: int = max(max(row) for row in DISTANCE)
# Longest move offered: the map's diameter. Every location can be reached by a move of at
# most this length on an empty map; a longer trail only discards more cards.
MAX_MOVE: int = DIAMETER


def neighbours(location: str) -> list[str]:
    """Locations one connection away."""
    return [LOCATIONS[nb] for nb, _ in _ADJ[LOCATION_INDEX[location]]]


def blocked_mask(locations: list[str]) -> int:
    """Bit mask of occupied locations (other trekkers)."""
    mask = 0
    for loc in locations:
        mask |= 1 << LOCATION_INDEX[loc]
    return mask


def _walks() -> dict[tuple[int, int], tuple[int, ...]]:
    """WALKS[(node, edge)][k]: bit mask of the locations where a walk of exactly k more
    connections can end, having arrived at node by edge, never turning straight back.
    A trail never turns straight back (that reuses the connection), so this bounds what a
    branch of the trail search can still find."""
    table: dict[tuple[int, int], list[int]] = {
        (node, edge): [1 << node] for node in range(len(LOCATIONS)) for _, edge in _ADJ[node]
    }
    for node in range(len(LOCATIONS)):
        table[(node, 0)] = [1 << node]
    for k in range(1, MAX_MOVE + 1):
        for (node, edge), row in table.items():
            mask = 0
            for nb, out in _ADJ[node]:
                if out != edge:
                    mask |= table[(nb, out)][k - 1]
            row.append(mask)
    return {key: tuple(row) for key, row in table.items()}


_WALKS = _walks()


_SPAN = len(LOCATIONS)  # bits per length in the packed masks below
_ALL = (1 << _SPAN) - 1
# For each location, its connections as (neighbour, connection bit, ahead) where ahead[d]
# packs the walk bounds for 1 .. MAX_MOVE more connections after arriving there at depth d:
# the locations for k more connections sit at bits (d + k) * _SPAN, so the whole "anything
# left to find?" check is one big-integer AND.
_STEPS: tuple[tuple[tuple[int, int, tuple[int, ...]], ...], ...] = tuple(
    tuple(
        (
            nb,
            edge,
            tuple(
                sum(_WALKS[(nb, edge)][k] << ((d + k) * _SPAN) for k in range(1, MAX_MOVE + 1))
                for d in range(MAX_MOVE + 1)
            ),
        )
        for nb, edge in _ADJ[node]
    )
    for node in range(len(LOCATIONS))
)
# connections touching each location: an occupied location closes all of them
_TOUCHING: tuple[int, ...] = tuple(sum(edge for _, edge in _ADJ[node]) for node in range(len(LOCATIONS)))


@lru_cache(maxsize=1 << 16)
def _trail_ends(start: str, blocked: int, max_len: int) -> int:
    """Every (length, location) a trail of 1 to ``max_len`` connections from ``start`` can
    end on without reusing a connection or touching ``blocked``: bit length * _SPAN + index.

    A depth-first search over trails that does not enter a connection when every location
    a walk could still reach from there, at every remaining length, has already been found.
    """
    origin = LOCATION_INDEX[start]
    free = _ALL & ~(blocked | 1 << origin)
    wanted = sum(free << (d * _SPAN) for d in range(1, max_len + 1))
    missing = wanted  # the (length, location) bits not found yet
    closed = 0  # an occupied location is never entered: its connections count as used
    rest = blocked
    while rest:
        low = rest & -rest
        closed |= _TOUCHING[low.bit_length() - 1]
        rest ^= low

    def walk(node: int, used: int, depth: int) -> None:
        nonlocal missing
        depth += 1
        base = depth * _SPAN
        for nb, edge, ahead in _STEPS[node]:
            if used & edge:
                continue
            bit = 1 << (base + nb)
            if missing & bit:
                missing ^= bit
            if depth < max_len and ahead[depth] & missing:
                walk(nb, used | edge, depth)

    if max_len > 0:
        walk(origin, closed, 0)
    return wanted & ~missing


def _unpack(found: int, lengths: int) -> dict[str, int]:
    """Packed trail ends to {location: bit mask of lengths}, for the lengths in ``lengths``."""
    out: dict[str, int] = {}
    depth = 0
    while lengths >> depth:
        if lengths >> depth & 1:
            layer = found >> (depth * _SPAN) & _ALL
            while layer:
                low = layer & -layer
                loc = LOCATIONS[low.bit_length() - 1]
                out[loc] = out.get(loc, 0) | 1 << depth
                layer ^= low
        depth += 1
    return out


def reach(start: str, blocked: int, max_len: int) -> dict[str, int]:
    """For each location other than ``start``: a bit mask of the trail lengths (1 to
    ``max_len``) that end there without reusing a connection or touching ``blocked``."""
    return _unpack(_trail_ends(start, _near(start, blocked, max_len), max_len), (2 << max_len) - 2)


def _near(start: str, blocked: int, max_len: int) -> int:
    """Only occupied locations a trail of ``max_len`` could touch matter (better caching)."""
    row = DISTANCE[LOCATION_INDEX[start]]
    keep = 0
    while blocked:
        low = blocked & -blocked
        if row[low.bit_length() - 1] <= max_len:
            keep |= low
        blocked ^= low
    return keep


def _layers(found: int, lengths: int) -> int:
    """The locations (bit mask) a trail of one of ``lengths`` ends on."""
    ends = 0
    depth = 1
    lengths >>= 1
    while lengths:
        if lengths & 1:
            ends |= found >> (depth * _SPAN)
        lengths >>= 1
        depth += 1
    return ends & _ALL


@lru_cache(maxsize=1 << 16)
def _destinations(start: str, blocked: int, sums: int) -> tuple[str, ...]:
    ends = _layers(_trail_ends(start, blocked, sums.bit_length() - 1), sums)
    out = []
    while ends:
        low = ends & -ends
        out.append(LOCATIONS[low.bit_length() - 1])
        ends ^= low
    return tuple(out)


def destinations(start: str, blocked: int, sums: int) -> tuple[str, ...]:
    """Locations a move can end on: some trail there avoids ``blocked`` and has a length in
    ``sums`` (bit mask of the totals some cards of the hand make)."""
    if not sums:
        return ()
    return _destinations(start, _near(start, blocked, sums.bit_length() - 1), sums)


def lengths_to(start: str, blocked: int, sums: int, end: str) -> int:
    """Bit mask of the lengths in ``sums`` of the trails from ``start`` to ``end``."""
    if not sums:
        return 0
    max_len = sums.bit_length() - 1
    found = _trail_ends(start, _near(start, blocked, max_len), max_len)
    index = LOCATION_INDEX[end]
    out = 0
    for depth in range(1, max_len + 1):
        if sums >> depth & 1 and found >> (depth * _SPAN + index) & 1:
            out |= 1 << depth
    return out
