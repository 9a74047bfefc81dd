"""Elo per (bot, game) with a 95 % interval.

A match of N players counts as the N(N-1)/2 pairwise games implied by its final ranks
(win, draw or loss), each with K scaled by 1/(N-1), all computed from the ratings before
the match. Deltas are pure functions of (ratings, ranks, K): the store applies them in the
result's transaction, and ``recompute`` replays them in completion order to the same floats.

Interval: a Gaussian approximation of the posterior of each bot's strength on the Elo
scale. Every pairwise game adds its Fisher information p(1-p)(ln 10 / 400)^2 (scaled like
K) to the bot's total, on top of a prior of 350 Elo standard deviation; the half-width is
1.96 / sqrt(information). It is kept on the rating row, so the leaderboard reads it
with no extra work at any number of matches (a bootstrap would resample every match of
every bot on each read, or need a batch job to keep fresh).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

INITIAL = 1500.0
DEFAULT_K = 32.0
PRIOR_SD = 350.0
_C = math.log(10) / 400.0


def expected(rating: float, opponent: float) -> float:
    """Probability that ``rating`` beats ``opponent`` under Elo's logistic curve."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def pairwise_score(rank: int, other: int) -> float:
    """1 for a better (lower) rank, 0.5 for the same, 0 for worse."""
    return 1.0 if rank < other else 0.5 if rank == other else 0.0


def match_update(
    ratings: Sequence[float], ranks: Sequence[int], k: float = DEFAULT_K, bots: Sequence[int] | None = None
) -> tuple[list[float], list[float]]:
    """Elo deltas and information gained per seat for one match.

    ``bots`` (bot id per seat) makes a bot that holds two seats play no game against itself."""
    n = len(ratings)
    deltas = [0.0] * n
    info = [0.0] * n
    if n < 2:
        return deltas, info
    scale = 1.0 / (n - 1)
    for i in range(n):
        for j in range(i + 1, n):
            if bots is not None and bots[i] == bots[j]:
                continue
            p = expected(ratings[i], ratings[j])
            change = k * scale * (pairwise_score(ranks[i], ranks[j]) - p)
            deltas[i] += change
            deltas[j] -= change
            gained = scale * p * (1.0 - p) * _C * _C
            info[i] += gained
            info[j] += gained
    return deltas, info


def interval(elo: float, information: float) -> tuple[float, float]:
    """The 95 % interval around ``elo`` given the accumulated ``information``."""
    half = 1.96 / math.sqrt(1.0 / PRIOR_SD**2 + information)
    return elo - half, elo + half


# A rating whose 95 % interval is wider than this either side is provisional, shown with a
# "?" as Lichess marks a rating it is not yet sure of: about ten even results from the prior.
PROVISIONAL_HALF_WIDTH = 200.0


def provisional(information: float) -> bool:
    """Whether a rating with this much information is still provisional."""
    low, high = interval(0.0, information)
    return (high - low) / 2 > PROVISIONAL_HALF_WIDTH


def win_credit(rank: int, ranks: Sequence[int]) -> float:
    """1 for an outright win, 1/k for a first place shared by k seats, else 0."""
    return 1.0 / list(ranks).count(1) if rank == 1 else 0.0
