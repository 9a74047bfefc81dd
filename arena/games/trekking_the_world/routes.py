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


@lru_cache(maxsize=1 << 16)
def reach(start: str, blocked: int, max_len: int) -> dict[str, int]:
    """For each location other than ``start``: a bit mask of the trail lengths (1 to
    ``max_len``) that end there without reusing a connection or touching ``blocked``.

    A depth-first search over trails, cut off where every location a walk could still
    reach at every remaining length has already been found. Results are shared between
    states: treat the returned dict as read-only."""
    origin = LOCATION_INDEX[start]
    free = ~(blocked | 1 << origin)
    found = [0] * (max_len + 1)  # found[d]: locations reached by a trail of length d

    def walk(node: int, used: int, depth: int) -> None:
        depth += 1
        rest = max_len - depth
        for nb, edge in _ADJ[node]:
            if used & edge or blocked >> nb & 1:
                continue
            found[depth] |= 1 << nb
            if rest:
                # go on only if some location may still be found at some length from here
                walks = _WALKS[(nb, edge)]
                for k in range(1, rest + 1):
                    if walks[k] & free & ~found[depth + k]:
                        walk(nb, used | edge, depth)
                        break

    if max_len > 0:
        walk(origin, 0, 0)
    out: dict[str, int] = {}
    for depth in range(1, max_len + 1):
        mask = found[depth] & free
        while mask:
            low = mask & -mask
            loc = LOCATIONS[low.bit_length() - 1]
            out[loc] = out.get(loc, 0) | 1 << depth
            mask ^= low
    return out


@lru_cache(maxsize=1 << 16)
def moves(start: str, blocked: int, sums: int) -> dict[str, int]:
    """Locations a move can end on, each with the lengths that both a trail allows and the
    hand can pay (``sums``: bit mask of the totals some of its cards make). Read-only."""
    if not sums:
        return {}
    routes = reach(start, blocked, sums.bit_length() - 1)
    return {loc: mask & sums for loc, mask in routes.items() if mask & sums}
