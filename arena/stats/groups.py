"""Paired duplicate groups, scored: the independent unit of ``arena test``.

A group compares B (the candidate) with A (the base) on one deal, seat by seat:

- two players: A and B meet, the deal played twice with the seats swapped;
- N players: A and B each take the same seat of the same deal against the same field of
  other bots, once per seat (2 N matches).

Each match scores a bot by its rank, ``(N - rank) / (N - 1)`` (1 for first, 0 for last; a
shared rank scores as that rank). The group's outcome is B's mean score minus A's, mapped
from [-1, 1] onto [0, 1]: ``1/2 + (B - A) / 2``. For two players A's score is one minus B's,
so the outcome is B's mean score: fishtest's pentanomial 0, ¼, ½, ¾, 1.

Pairing pays where the deal's luck is shared: A and B hold the same cards, so what the deal
gives or takes cancels in the difference. ``pairing_gain`` measures it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def rank_score(rank: float, players: int) -> float:
    """A match's score for the bot ranked ``rank`` (1 = first) of ``players`` (a fractional
    rank: the mean place of a tie, ``arena.stats.judgement.rank_score``)."""
    return (players - rank) / (players - 1)


def _steps(players: int) -> int:
    """The outcomes of a group lie on multiples of 1 / this. Two players share a table: a seat's
    difference is a win, a draw or a loss (2 steps), averaged over the two seats and halved:
    fishtest's pentanomial. At more, a seat's score moves by 1 / (N - 1) a place, and by half
    that where a tie shares two places; averaged over N seats and halved."""
    return 4 if players == 2 else 4 * players * (players - 1)


def outcomes(players: int) -> list[float]:
    """Every outcome a group at a table of ``players`` can have (``_steps``)."""
    steps = _steps(players)
    return [k / steps for k in range(steps + 1)]


@dataclass(frozen=True)
class Group:
    """One group's match scores, seat by seat: ``candidate[s]`` is B's score in seat ``s``,
    ``base[s]`` A's. ``shared``: A and B sat at the same tables (two players)."""

    candidate: tuple[float, ...]
    base: tuple[float, ...]
    shared: bool

    @property
    def outcome(self) -> float:
        return 0.5 + (mean(self.candidate) - mean(self.base)) / 2


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def variance(values: Sequence[float]) -> float:
    m = mean(values)
    return sum((v - m) ** 2 for v in values) / len(values)


def pairing_gain(groups: Sequence[Group]) -> float | None:
    """How many times fewer groups a paired test needs than the same matches unpaired: the
    variance a group's outcome would have were its matches independent (each match's score
    drawn on its own from the scores seen in that role), over the variance the paired outcomes
    show. The games a sequential test needs grow with the variance of what it counts, so this
    is also its ratio of games. None until it can be measured (two groups, some variance)."""
    if len(groups) < 2:
        return None
    paired = variance([g.outcome for g in groups])
    seats = len(groups[0].candidate)
    candidate = variance([s for g in groups for s in g.candidate])
    if groups[0].shared:
        # One match holds both: the outcome is the mean of the seats' scores of B.
        unpaired = candidate / seats
    else:
        base = variance([s for g in groups for s in g.base])
        unpaired = (candidate + base) / (4 * seats)
    if paired <= 0:
        return None
    return unpaired / paired


def counts(groups: Sequence[Group], players: int) -> dict[float, int]:
    """How often each outcome was seen, outcomes held exactly on ``outcomes(players)`` (sums of
    thirds and fifths are not exact in binary)."""
    steps = _steps(players)
    seen: dict[float, int] = {}
    for group in groups:
        outcome = round(group.outcome * steps) / steps
        seen[outcome] = seen.get(outcome, 0) + 1
    return seen
