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
# _AHEAD[(node, edge)]: the walk bounds for k = 1 .. MAX_MOVE packed in one integer, the
# locations for k more connections at bits k * _SPAN, so a whole check is one big-int test.
_AHEAD: dict[tuple[int, int], int] = {
    key: sum(row[k] << (k * _SPAN) for k in range(1, MAX_MOVE + 1)) for key, row in _WALKS.items()
}


@lru_cache(maxsize=1 << 16)
def _trail_ends(start: str, blocked: int, max_len: int) -> int:
    """Every (length, location) a trail of 1 to ``max_len`` connections from ``start`` can
    end on without reusing a connection or touching ``blocked``: bit length * _SPAN + index.

    A depth-first search over trails that does not enter a connection when every location
    a walk could still reach from there, at every remaining length, has already been found.
    """
    origin = LOCATION_INDEX[start]
    free = _ALL & ~(blocked | 1 << origin)
    # found: bit depth * _SPAN + location for every trail end found so far
    wanted = sum(free << (d * _SPAN) for d in range(1, max_len + 1))
    found = 0

    def walk(node: int, used: int, depth: int) -> None:
        nonlocal found
        depth += 1
        shift = depth * _SPAN
        for nb, edge in _ADJ[node]:
            if used & edge or blocked >> nb & 1:
                continue
            found |= 1 << (shift + nb)
            if depth < max_len and _AHEAD[(nb, edge)] << shift & wanted & ~found:
                walk(nb, used | edge, depth)

    if max_len > 0:
        walk(origin, 0, 0)
    return found & wanted


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


def moves(start: str, blocked: int, sums: int) -> dict[str, int]:
    """Locations a move can end on, each with the lengths that both a trail allows and the
    hand can pay (``sums``: bit mask of the totals some of its cards make). Read-only."""
    if not sums:
        return {}
    return _moves(start, _near(start, blocked, sums.bit_length() - 1), sums)


@lru_cache(maxsize=1 << 16)
def _moves(start: str, blocked: int, sums: int) -> dict[str, int]:
    return _unpack(_trail_ends(start, blocked, sums.bit_length() - 1), sums)
