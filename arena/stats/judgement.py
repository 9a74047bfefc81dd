"""Judging one decision by the value of each action: the scale, the interval, the marks.

The model, to check by hand:

- **Scale.** A seat's result on one scale for every table size: its rank score
  ``(N - rank) / (N - 1)``, a tie counting as the mean of the places it spans. Two players: a
  win is 1, a draw 0.5, a loss 0 (the win probability); more: 1 for first, 0 for last.
- **Interval.** An action's value is the mean of its results over K sampled deals; its 95 %
  interval is ``mean ± t · s / √K``, ``s`` the sample deviation and ``t`` Student's 97.5 %
  quantile with K − 1 degrees of freedom (1.96 for many deals; wider for few, where the
  normal one would call too much of the luck a mistake).
  The loss of the chosen action is the mean of the paired differences *best − chosen* over
  the same deals (common random numbers), with the interval of those differences: the luck of
  a deal that both actions meet cancels out of it.
- **Marks** (Lichess's advice thresholds, on the win-percentage scale: ``Advice.scala``):
  a loss of at least 5, 10 and 15 percentage points is an inaccuracy, a mistake and a
  blunder; here it is given only when the loss *less its half-width* still reaches the band,
  so a loss the deals cannot tell from luck is never called a blunder.
- **Accuracy** (Lichess's per-move formula, ``AccuracyPercent.scala``): a decision that loses
  ``d`` points scores ``103.1668 · e^(−0.04354 d) − 3.1669``, clipped to 0..100; a seat's
  accuracy is the plain mean over its judged decisions (100 for none).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from math import fsum

from . import groups

# The 95 % two-sided normal quantile.
Z95 = 1.959963984540054
# Student's t 97.5 % quantiles for 1 to 30 degrees of freedom (any statistics table).
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)

# (mark, least loss in percentage points), the worst first.
MARKS: tuple[tuple[str, float], ...] = (("blunder", 15.0), ("mistake", 10.0), ("inaccuracy", 5.0))


def rank_score(ranks: Sequence[int], seat: int) -> float:
    """``seat``'s result on the one scale, from the ranks of every seat (1 = best, ties share
    a rank): ``(N - r) / (N - 1)`` with ``r`` the mean of the places its tie spans.

    >>> rank_score([1, 2], 0), rank_score([1, 1], 1), rank_score([2, 1, 3], 0)
    (1.0, 0.5, 0.5)
    """
    players = len(ranks)
    if players < 2:
        return 1.0
    mine = ranks[seat]
    tied = sum(1 for r in ranks if r == mine)
    return groups.rank_score(mine + (tied - 1) / 2, players)


def t95(freedom: int) -> float:
    """Student's t 97.5 % quantile with ``freedom`` degrees of freedom: the table up to 30,
    then the Cornish-Fisher expansion around the normal quantile (within 0.001 there)."""
    if freedom < 1:
        raise ValueError("at least one degree of freedom")
    if freedom <= len(T95):
        return T95[freedom - 1]
    z = Z95
    return z + (z**3 + z) / (4 * freedom) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * freedom**2)


def mean_interval(values: Sequence[float]) -> tuple[float, float]:
    """``(mean, half-width of its 95 % interval)`` of ``values`` (at least two)."""
    if len(values) < 2:
        raise ValueError("an interval needs at least two values")
    mean = fsum(values) / len(values)
    spread = fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, t95(len(values) - 1) * math.sqrt(spread / len(values))


def mark(loss: float, half_width: float) -> str | None:
    """The mark of a decision that lost ``loss`` percentage points, ``± half_width``: the
    worst band the loss still reaches less its half-width, or None.

    >>> mark(16.0, 0.5), mark(16.0, 4.0), mark(16.0, 12.0)
    ('blunder', 'mistake', None)
    """
    sure = loss - half_width
    for name, least in MARKS:
        if sure >= least:
            return name
    return None


def decision_accuracy(loss: float) -> float:
    """Lichess's accuracy of one decision that lost ``loss`` percentage points (0..100)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * max(0.0, loss)) - 3.1669))


def accuracy(losses: Sequence[float]) -> float:
    """A seat's accuracy: the mean of its decisions' (100 with none judged)."""
    if not losses:
        return 100.0
    return fsum(decision_accuracy(loss) for loss in losses) / len(losses)
