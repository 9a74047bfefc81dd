"""What every player can tell of a hidden hand, for ``resample_hidden``.

A player forced to act because it held nothing playable (a pass in Bastard Brag, a take in
Shithead) shows the table that none of its hidden cards could be played then; a card it
draws later may be anything. A hand's hidden cards are kept as groups by when they came, each
group with the keys (cards, or ranks) it cannot hold: ``[count, sorted barred keys]``, plain
lists so that states clone and serialise as they are. Which group a played card came from is
not always known: it is taken from the biggest group that may hold it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

Groups = list[list[Any]]


def gain(groups: Groups, count: int) -> None:
    """``count`` cards nobody else saw join the hand: a group that bars nothing."""
    if count > 0:
        groups.append([count, []])


def lose(groups: Groups, key: str | None) -> Groups:
    """The hand parts with a card of ``key`` (None: one the others did not see); returns the
    groups left."""
    able = [g for g in groups if g[0] and (key is None or key not in g[1])] or [g for g in groups if g[0]]
    if able:
        max(able, key=lambda g: g[0])[0] -= 1
    return [g for g in groups if g[0] > 0]


def bar(groups: Groups, keys: Iterable[str]) -> Groups:
    """Every card now in the hand is none of ``keys`` (groups barring the same keys merge)."""
    barred = set(keys)
    merged: dict[tuple[str, ...], int] = {}
    for count, old in groups:
        joined = tuple(sorted(barred.union(old)))
        merged[joined] = merged.get(joined, 0) + count
    return [[count, list(keys)] for keys, count in merged.items()]


def fitted(groups: Groups, size: int) -> Groups:
    """The groups made to add up to ``size`` hidden cards (a position set up by hand, or a
    state from before groups were kept): the least constrained give way first, and what is
    missing bars nothing."""
    groups = [list(g) for g in groups if g[0] > 0]
    excess = sum(g[0] for g in groups) - size
    for group in sorted(groups, key=lambda g: len(g[1])):
        cut = min(max(excess, 0), group[0])
        group[0] -= cut
        excess -= cut
    if excess < 0:
        groups.append([-excess, []])
    return [g for g in groups if g[0] > 0]


def deal(pool: list[str], groups: Groups, key: Callable[[str], str] = str) -> list[str]:
    """Cards for the groups, popped from the (shuffled) ``pool``: the most constrained groups
    first, each card the last in the pool its group may hold (none may: the last card)."""
    hand = []
    for count, barred in sorted(groups, key=lambda g: -len(g[1])):
        ruled_out = set(barred)
        for _ in range(count):
            at = next((i for i in range(len(pool) - 1, -1, -1) if key(pool[i]) not in ruled_out), len(pool) - 1)
            hand.append(pool.pop(at))
    return hand

