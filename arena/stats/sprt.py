"""The generalized sequential probability ratio test (GSPRT) with the normalized Elo model,
as chess engine testing (fishtest, OpenBench) runs it, for outcomes scored in [0, 1].

An outcome is one independent unit of play: a single game (scored 0, ½, 1: the trinomial
model), or a duplicate group (for two players, one deal played twice with the seats swapped:
0, ¼, ½, ¾, 1, the pentanomial model; for more players, see ``arena.stats.groups``).

Normalized Elo measures an edge in units of the noise rather than of the score: with ``mu``
the mean outcome and ``sigma`` its standard deviation, an outcome's *t-value* is
``(mu - 1/2) / sigma``, and the normalized Elo of a game is its t-value times
``800 / ln 10``. An outcome that stands for ``games`` games (2 for a pair) has a t-value
``sqrt(games)`` times a game's. A test's hypotheses are in normalized Elo: H0, the edge is
``elo0``; H1, it is ``elo1``. Its cost in games depends on the normalized edge alone, whatever
the game's draws or luck, which is why fishtest chose it.

The GSPRT replaces the unknown distribution of outcomes under each hypothesis by its maximum
likelihood estimate among the distributions (on the outcomes that can occur) whose t-value
is the hypothesis's; the log-likelihood ratio of the observed outcomes between the two
estimates is compared with Wald's bounds ``ln(beta / (1 - alpha))`` and
``ln((1 - beta) / alpha)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Normalized Elo of one game per unit of its t-value.
NELO_PER_T = 800 / math.log(10)
# A pseudo-count given to every outcome that can occur (as fishtest does): until an outcome
# has been seen the likelihood must not call it impossible, or a hypothesis that needs it
# would be rejected outright.
PSEUDO_COUNT = 1e-3
# The most normalized Elo a bound may name: far past any edge worth a sequential test, and
# small enough that the constrained estimates below stay well defined.
MAX_NELO = 400.0

Pdf = list[tuple[float, float]]  # (outcome, probability), outcomes ascending


@dataclass(frozen=True)
class Hypotheses:
    """H0: the normalized Elo of B over A is ``elo0``; H1: it is ``elo1`` (> ``elo0``). ``alpha``:
    the chance of accepting H1 when H0 holds; ``beta``: of accepting H0 when H1 holds."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not all(math.isfinite(x) for x in (self.elo0, self.elo1)) or \
                not -MAX_NELO <= self.elo0 < self.elo1 <= MAX_NELO:
            raise ValueError(f"bounds elo0 {self.elo0:g}, elo1 {self.elo1:g}: expected "
                             f"-{MAX_NELO:g} <= elo0 < elo1 <= {MAX_NELO:g}")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError(f"alpha {self.alpha:g}, beta {self.beta:g}: expected each between 0 and 0.5")

    @property
    def lower(self) -> float:
        """At or below this log-likelihood ratio, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this log-likelihood ratio, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def verdict(self, llr: float) -> str | None:
        """``"H1"``, ``"H0"`` or None (play on)."""
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else None


def moments(pdf: Pdf) -> tuple[float, float]:
    """Mean and variance of a distribution."""
    mean = sum(a * p for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def observed_pdf(counts: Mapping[float, float], support: Sequence[float]) -> Pdf:
    """The observed frequencies of ``counts`` (outcome -> how often) over every outcome of
    ``support``, each with a pseudo-count."""
    outcomes = sorted(set(support) | set(counts))
    weights = [counts.get(a, 0) + PSEUDO_COUNT for a in outcomes]
    total = sum(weights)
    return [(a, w / total) for a, w in zip(outcomes, weights, strict=True)]


def mle_t_value(pdf: Pdf, t: float, ref: float = 0.5) -> Pdf:
    """The distribution on ``pdf``'s outcomes most likely to have given the frequencies of
    ``pdf`` among those with t-value ``(mean - ref) / sd`` equal to ``t``.

    At the observed t-value the answer is ``pdf`` itself; from there the target is moved
    towards ``t``, in one step where ``_constrained`` manages it and in smaller ones where
    it does not (far from the guess it starts from, the equation may have no root)."""
    outcomes = [a for a, _ in pdf]
    seen = [f for _, f in pdf]
    mean, var = moments(pdf)
    reached, guess = (mean - ref) / math.sqrt(var), seen
    target = t
    for _ in range(200):
        solved = _constrained(outcomes, seen, guess, target, ref)
        if solved is None:
            target = (reached + target) / 2
            continue
        reached, guess = target, solved
        if reached == t:
            return list(zip(outcomes, guess, strict=True))
        target = t
    raise ArithmeticError(f"no most likely distribution with t-value {t:g} found")


def _constrained(outcomes: Sequence[float], seen: Sequence[float], guess: Sequence[float],
                 t: float, ref: float) -> list[float] | None:
    """The maximum of sum(f_i log p_i) under sum(p_i) = 1 and g(p) = mean - ref - t sd = 0,
    from a nearby ``guess``; None when it cannot be reached from there.

    Lagrange's condition is p_i = f_i / (1 + theta psi_i), with
    psi_i = (a_i - ref) - t ((a_i - mean)^2 + sd^2) / (2 sd): the gradient of g shifted so that
    sum(p_i psi_i) = g(p). For the mean and sd of the current guess, theta solves
    sum(f_i psi_i / (1 + theta psi_i)) = 0, which keeps sum(p_i) = 1 and makes g vanish; the
    guess is updated until it stops moving."""
    p = list(guess)
    for _ in range(100):
        mean, var = moments(list(zip(outcomes, p, strict=True)))
        sd = math.sqrt(var)
        psi = [(a - ref) - t * ((a - mean) ** 2 + var) / (2 * sd) for a in outcomes]
        if not max(psi) > 0 > min(psi):
            return None
        theta = _secular_root(seen, psi)
        new = [f / (1 + theta * s) for f, s in zip(seen, psi, strict=True)]
        moved = max(abs(x - y) for x, y in zip(new, p, strict=True))
        p = new
        if moved < 1e-11:  # closer, rounding makes it wander by about 1e-12
            return p
    return None


def _secular_root(weights: Sequence[float], psi: Sequence[float]) -> float:
    """The theta where sum(w_i psi_i / (1 + theta psi_i)) = 0, with every 1 + theta psi_i > 0.

    The sum falls from +inf to -inf across that interval, so the root is one and bracketed:
    Newton's steps, kept inside the bracket by bisection."""
    top, bottom = max(psi), min(psi)
    low, high = -1 / top, -1 / bottom
    theta = 0.0
    for _ in range(200):
        value = sum(w * s / (1 + theta * s) for w, s in zip(weights, psi, strict=True))
        if abs(value) < 1e-15:
            break
        slope = -sum(w * s * s / (1 + theta * s) ** 2 for w, s in zip(weights, psi, strict=True))
        if value > 0:
            low = theta
        else:
            high = theta
        step = theta - value / slope
        theta = step if low < step < high else (low + high) / 2
        if high - low < 1e-15:
            break
    return theta


def llr(counts: Mapping[float, float], hypotheses: Hypotheses, support: Sequence[float],
        games: int = 2) -> float:
    """The GSPRT's log-likelihood ratio of H1 against H0 for ``counts`` (outcome -> how many
    times it was seen; outcomes in [0, 1], scored for B) where every outcome stands for
    ``games`` games and ``support`` lists every outcome that can occur."""
    n = sum(counts.values())
    if n == 0:
        return 0.0
    pdf = observed_pdf(counts, support)
    t0, t1 = (nelo / NELO_PER_T * math.sqrt(games) for nelo in (hypotheses.elo0, hypotheses.elo1))
    p0, p1 = mle_t_value(pdf, t0), mle_t_value(pdf, t1)
    return n * sum(f * math.log(q1 / q0) for (_, f), (_, q0), (_, q1) in zip(pdf, p0, p1, strict=True))


@dataclass(frozen=True)
class Estimate:
    """What the outcomes say of B's edge: its mean score with a 95 % interval, that score as
    logistic Elo, and the normalized Elo."""

    outcomes: int
    score: float
    score_low: float
    score_high: float
    elo: float
    elo_low: float
    elo_high: float
    nelo: float
    nelo_low: float
    nelo_high: float


# The 95 % two-sided quantile of the normal distribution.
Z95 = 1.959963984540054
# Logistic Elo is infinite at a score of 0 or 1: scores are held this far inside.
SCORE_MARGIN = 1e-4


def logistic_elo(score: float) -> float:
    """The Elo difference at which the stronger side expects ``score`` (held inside (0, 1))."""
    score = min(1 - SCORE_MARGIN, max(SCORE_MARGIN, score))
    return -400 * math.log10(1 / score - 1) + 0.0  # + 0.0: no "-0" at an even score


def estimate(values: Sequence[float], games: int = 2) -> Estimate:
    """The estimate from outcomes (each standing for ``games`` games): the interval of the mean
    from the outcomes' own variance (the central limit theorem), mapped to Elo; normalized
    Elo from the t-value, whose standard error is about 1 / sqrt(n)."""
    n = len(values)
    if n == 0:
        raise ValueError("no outcomes to estimate from")
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / n
    half = Z95 * math.sqrt(var / n)
    low, high = max(0.0, mean - half), min(1.0, mean + half)
    per_t = NELO_PER_T / math.sqrt(games)
    nelo = (mean - 0.5) / math.sqrt(var) * per_t if var > 0 else 0.0
    nhalf = Z95 / math.sqrt(n) * per_t
    return Estimate(n, mean, low, high, logistic_elo(mean), logistic_elo(low), logistic_elo(high),
                    nelo, nelo - nhalf, nelo + nhalf)
