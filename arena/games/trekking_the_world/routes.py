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
# The longest trail there can be: it uses every connection at most once. Moves are bounded
# by what the cards in hand add up to, never by the map's diameter: other trekkers block
# routes, so the shortest trail to a location may be longer than any on an empty map.
LONGEST_TRAIL: int = len(CONNECTIONS)


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
    for k in range(1, LONGEST_TRAIL + 1):
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
# For each location, its connections as (neighbour, connection bit, ahead) where ahead packs
# the walk bounds for 1 .. LONGEST_TRAIL more connections after arriving at the neighbour:
# the locations for k more connections sit at bits k * _SPAN, so the whole "anything left to
# find?" check at depth d is one big-integer AND with the missing bits shifted down by d.
_STEPS: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(
        (nb, edge, sum(_WALKS[(nb, edge)][k] << (k * _SPAN) for k in range(1, LONGEST_TRAIL + 1)))
        for nb, edge in _ADJ[node]
    )
    for node in range(len(LOCATIONS))
)
# connections touching each location: an occupied location closes all of them
_TOUCHING: tuple[int, ...] = tuple(sum(edge for _, edge in _ADJ[node]) for node in range(len(LOCATIONS)))


def _members(mask: int) -> list[int]:
    """The locations of a bit mask, in index order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _survey(origin: int, closed: int) -> tuple[list[int], int, int]:
    """Breadth-first from ``origin`` over the connections not ``closed``: the locations
    exactly d connections away (bit masks, d = 0, 1, ...), how many open connections that
    part of the map has (no trail there is longer), and its locations with an odd number of
    them (bit mask)."""
    seen = 1 << origin
    rings = [seen]
    frontier = [origin]
    while frontier:
        ring = 0
        for node in frontier:
            for nb, edge in _ADJ[node]:
                if not closed & edge and not seen >> nb & 1:
                    seen |= 1 << nb
                    ring |= 1 << nb
        frontier = _members(ring)
        if ring:
            rings.append(ring)
    ends = odd = 0
    opened = ~closed
    for node in _members(seen):
        degree = (_TOUCHING[node] & opened).bit_count()  # each connection is one bit
        ends += degree
        odd |= (degree & 1) << node
    return rings, ends // 2, odd


@lru_cache(maxsize=1 << 16)
def _trail_ends(start: str, blocked: int, max_len: int) -> int:
    """Every (length, location) a trail of 1 to ``max_len`` connections from ``start`` can
    end on without reusing a connection or touching ``blocked``: bit length * _SPAN + index.

    A depth-first search over trails that does not enter a connection when every location
    a walk could still reach from there, at every remaining length, has already been found.
    Only what a trail could end on is looked for: a location at least as many connections
    away as the length, by a trail no longer than the connections it can reach.
    """
    origin = LOCATION_INDEX[start]
    closed = _closed(blocked)  # an occupied location is never entered
    rings, edges, _ = _survey(origin, closed)
    max_len = min(max_len, edges)
    wanted = 0
    near = 0  # locations at most d connections away
    for d in range(1, max_len + 1):
        near |= rings[d] if d < len(rings) else 0
        wanted |= near << (d * _SPAN)
    missing = wanted  # the (length, location) bits not found yet

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
            if depth < max_len and ahead & missing >> base:
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


@lru_cache(maxsize=1 << 16)
def _trail_exists(origin: int, closed: int, end: int, length: int) -> bool:
    """Is there a trail of exactly ``length`` connections from ``origin`` to ``end`` that
    uses none of ``closed``? A depth-first search that leaves a branch as soon as no trail
    can finish from there: ``end`` must be reachable by a walk of exactly the connections
    left, no farther than that over the open connections, and those must be enough. By
    Euler, the open connections a trail leaves unused hold a join of the locations of odd
    degree other than its own ends, which takes at least half as many connections."""

    def trail(node: int, used: int, last: int, left: int) -> bool:
        if left == 0:
            return node == end
        if not _WALKS[(node, last)][left] >> end & 1:
            return False
        rings, edges, odd = _survey(node, used)
        if not any(ring >> end & 1 for ring in rings[:left + 1]):
            return False  # cut off, or farther than the connections left
        if left > edges - bin(odd ^ 1 << node ^ 1 << end).count("1") // 2:
            return False
        return any(trail(nb, used | edge, edge, left - 1)
                   for nb, edge in _ADJ[node] if not used & edge)

    return trail(origin, closed, 0, length)


def _closed(blocked: int) -> int:
    """The connections touching an occupied location: no trail enters them."""
    closed = 0
    while blocked:
        low = blocked & -blocked
        closed |= _TOUCHING[low.bit_length() - 1]
        blocked ^= low
    return closed


# Up to this length one search finds every (length, location) at once, fast enough for
# every move; only a hand worth more looks further, one location and length at a time.
_SHORT = DIAMETER


def _short_ends(start: str, blocked: int, max_len: int) -> int:
    max_len = min(max_len, _SHORT)
    return _trail_ends(start, _near(start, blocked, max_len), max_len)


def trail_exists(start: str, blocked: int, end: str, length: int) -> bool:
    """Whether a move of exactly ``length`` connections leads from ``start`` to ``end``
    without reusing a connection or touching ``blocked``."""
    if length > LONGEST_TRAIL or end == start or blocked >> LOCATION_INDEX[end] & 1:
        return False
    if length <= _SHORT:
        return bool(_short_ends(start, blocked, length) >> (length * _SPAN + LOCATION_INDEX[end]) & 1)
    return _trail_exists(LOCATION_INDEX[start], _closed(_near(start, blocked, length)),
                         LOCATION_INDEX[end], length)


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
    short = sums & ((2 << _SHORT) - 1)
    ends = _layers(_short_ends(start, blocked, short.bit_length() - 1), short) if short else 0
    longer = sums >> (_SHORT + 1) << (_SHORT + 1)
    if longer:
        # a location not reached by a short move may be by a longer one: try the lengths
        # the hand can pay from the shortest up, and stop at the first that leads there
        rings, _, _ = _survey(LOCATION_INDEX[start], _closed(blocked))
        reachable = sum(rings[1:]) & ~ends
        while reachable:
            low = reachable & -reachable
            end = LOCATIONS[low.bit_length() - 1]
            lengths = longer
            while lengths:
                length = (lengths & -lengths).bit_length() - 1
                if trail_exists(start, blocked, end, length):
                    ends |= low
                    break
                lengths &= lengths - 1
            reachable ^= low
    return tuple(LOCATIONS[i] for i in range(_SPAN) if ends >> i & 1)


def destinations(start: str, blocked: int, sums: int) -> tuple[str, ...]:
    """Locations a move can end on: some trail there avoids ``blocked`` and has a length in
    ``sums`` (bit mask of the totals some cards of the hand make): the whole hand may be
    spent, however far that takes the trekker."""
    if not sums:
        return ()
    return _destinations(start, _near(start, blocked, sums.bit_length() - 1), sums)
