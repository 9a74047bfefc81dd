"""Round-robin schedules: which bots meet, in which seats, on which deal.

Every group of bots of each table size plays; within a group the seating rotates so every
bot sits in every seat, and all rotations replay the same deal (duplicate format: the
cards are the same, only who holds them changes). Repetitions draw fresh deals. When a
field is too large for every combination, a balanced set of groups is drawn instead, in
which every pair of bots meets as equally often as the greedy construction can make it.

Deal seeds are keyed: each tournament holds a secret key (``new_deal_key``) that never leaves
the server, and every deal's seed is an HMAC of the group's coordinates under that key. A
finished group's seed is public once its deal is over; without the key it tells nothing
about the master seed or any other deal (a public function of a chosen master seed could be
inverted by trying every seed). The same key and master seed deal the same cards again.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class MatchPlan:
    """One match to schedule: ``seating[seat]`` is the bot in that seat."""

    game: str
    seed: int
    seating: tuple[Any, ...]
    options: dict[str, Any] = field(default_factory=dict)


# Bytes of a tournament's deal key: as many as the HMAC-SHA256 digest, so guessing the key
# is no easier than guessing a digest.
DEAL_KEY_BYTES = 32


def new_deal_key() -> bytes:
    """A fresh secret key for a tournament's deals, drawn from ``secrets``."""
    return secrets.token_bytes(DEAL_KEY_BYTES)


def derive_seed(key: bytes, *parts: Any) -> int:
    """A deal seed from the tournament's secret ``key``, its master seed and the group's
    coordinates (HMAC-SHA256): stable across runs and machines (no use of Python's salted
    ``hash``), and, without ``key``, unrelated to any other deal's seed."""
    if not key:
        raise ValueError("a deal seed needs the tournament's deal key")
    digest = hmac.new(key, ":".join(map(str, parts)).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:6], "big")


def rotations(group: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The cyclic seatings of a group: each member sits in each seat exactly once."""
    return [tuple(group[r:]) + tuple(group[:r]) for r in range(len(group))]


def balanced_groups(bots: Sequence[Any], size: int, meetings: int = 1) -> list[tuple[Any, ...]]:
    """Groups of ``size`` bots in which every pair meets about ``meetings`` times.

    Greedy: each new group starts from the pair that met least and adds the bots that
    met its members least (ties to the bot that played least, then field order), until
    every pair has met ``meetings`` times."""
    n = len(bots)
    if size > n:
        return []
    met = [[0] * n for _ in range(n)]
    played = [0] * n
    groups: list[tuple[Any, ...]] = []
    # Go on until every pair has met ``meetings`` times; a perfect design would need
    # exactly ``ideal`` groups, greedy needs a few more.
    ideal = math.ceil(meetings * math.comb(n, 2) / math.comb(size, 2))
    while len(groups) < 3 * ideal and min(met[a][b] for a, b in itertools.combinations(range(n), 2)) < meetings:
        a, b = min(
            itertools.combinations(range(n), 2),
            key=lambda p: (met[p[0]][p[1]], played[p[0]] + played[p[1]], p),
        )
        members = [a, b]
        while len(members) < size:
            candidates = [c for c in range(n) if c not in members]
            members.append(min(candidates, key=lambda c: (max(met[c][m] for m in members),
                                                          sum(met[c][m] for m in members), played[c], c)))
        for x, y in itertools.combinations(members, 2):
            met[x][y] += 1
            met[y][x] += 1
        for m in members:
            played[m] += 1
        groups.append(tuple(bots[m] for m in sorted(members)))
    return groups


def round_robin(
    game: str,
    bots: Sequence[Any],
    sizes: Sequence[int],
    repetitions: int = 1,
    seed: int = 0,
    options: dict[str, Any] | None = None,
    max_groups: int = 500,
    *,
    key: bytes,
) -> list[MatchPlan]:
    """The matches of a round robin of ``game`` among ``bots`` at each table size.

    Per size: all combinations of bots, or ``balanced_groups`` once there would be more
    than ``max_groups``; per group and repetition one deal (``derive_seed`` under the
    tournament's deal ``key``), played in every rotation."""
    plans = []
    for size in sizes:
        if size > len(bots):
            continue
        if math.comb(len(bots), size) <= max_groups:
            groups = list(itertools.combinations(bots, size))
        else:
            meetings = max(1, max_groups * math.comb(size, 2) // math.comb(len(bots), 2))
            groups = balanced_groups(bots, size, meetings)
        for rep in range(repetitions):
            for index, group in enumerate(groups):
                deal = derive_seed(key, seed, game, size, index, rep)
                for seating in rotations(group):
                    plans.append(MatchPlan(game, deal, seating, dict(options or {})))
    return plans
