"""Ratings fitted to every rated result of a game at once, as Ordo and BayesElo fit engine
rating lists: the same results give the same ratings in whatever order they were played
(the online Elo of ``arena.ratings`` depends on the order).

The model
---------
Each bot ``i`` has a strength ``theta_i``. A match's final ranks are read as a sequence of
choices (Plackett–Luce): the winner is chosen from all the seats with probability
``exp(theta_w) / sum(exp(theta_j))``, second place from the rest, and so on. For two players
this is Bradley–Terry, ``P(a beats b) = 1 / (1 + exp(theta_b - theta_a))``: one model, so
two-player and N-player games are fitted by the same code.

Tied ranks are split symmetrically: the ``t`` seats of a tied block with ``r`` seats still to
place (the block's own and those below it) are each chosen from those ``r`` with weight
``s / t``, where ``s`` is the number of choices the block would make untied (``t``, or
``t - 1`` when nothing ranks below it). For two players a draw is then half a win each way,
as Elo counts it; with no ties it is plain Plackett–Luce. We chose it over Davidson's draw
model because it needs no extra parameter per game and treats every size of tie alike (it is
Breslow's handling of ties in Cox regression, reweighted so a tie weighs as much as the
choices it replaces).

The log-likelihood only needs, over all the choices: how much each bot was chosen (``W_i``)
and how often each *risk set* (the seats a choice was made from) occurred (``n_R``):
``L = sum_i W_i theta_i - sum_R n_R log(sum_{j in R} exp(theta_j))``. Those sums are the
sufficient data; they add up over matches, so results are aggregated per duplicate group
(``Unit``) and the groups added up.

A prior of ``PRIOR_DRAWS`` virtual draws of every bot against a virtual bot of strength 0 (as
BayesElo's virtual draws) keeps a bot that won or lost everything at a finite rating and makes
the fit unique; its pull fades as a bot's results grow.

The fit is Newton's method on the concave log-likelihood (the model's Hessian is
``sum_R n_R (diag(p_R) - p_R p_R^T)``), with step halving: a few iterations to 1e-12. It is
ours rather than ``choix``'s because choix has no tied rankings and no weights per set, and
the bootstrap needs hundreds of fits at once (below), which numpy arrays do together.

The scale and the anchor
------------------------
Ratings are on the Elo scale, ``400 log10`` of the strength ratio: 400 points is 10 to 1
odds between two bots. The list is anchored at its mean: the mean rating of the game's rated
bots is 1500 (``ANCHOR``), where every bot's online Elo starts. Differences are what the model
fits; the anchor only places them.

The interval and LOS
--------------------
Rotations of one deal are not independent (they share the cards), so the 95 % interval comes
from a bootstrap over whole units: a duplicate group (a tournament's rotations of one game
and deal), or a match with no group. ``replicas`` resamplings of the units, each fitted again
(from the full fit, with its Hessian: a few cheap steps each), give each bot's 2.5th and
97.5th percentiles. Past ``EXACT_UNITS`` units a replica is one such step, summed from each
unit's gradient (``_one_step``): a million results take seconds, not minutes. The bootstrap is seeded: the same results give the same intervals. The
units are put in the order of their keys first, so the order they were read in does not
matter either.

LOS (likelihood of superiority) of a bot over the next on the list: the probability that it
is the stronger, taken as normal with the fitted difference as mean and the replicas'
spread of that difference as standard deviation (so their correlation is counted).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ANCHOR = 1500.0
ELO_PER_NATURAL = 400.0 / math.log(10)
PRIOR_DRAWS = 1.0
REPLICAS = 400
SEED = 26
_TOLERANCE = 1e-12  # largest step in natural units at which a fit has converged
# A replica only places a percentile: a millionth of a natural unit (0.0002 Elo) is plenty.
_REPLICA_TOLERANCE = 1e-6
_MAX_NEWTON = 100
_MAX_CHORD = 200
# Beyond this many units a bootstrap replica is one step from the full fit, not a refit
# (``_one_step``): a million results cost a few seconds, not minutes.
EXACT_UNITS = 20_000
# Beyond this many (units x bots) the one-step bootstrap resamples blocks of units: 20,000
# blocks among 50 bots, whose resampled spread is the units' own to about 1 %.
BLOCK_CELLS = 1_000_000

Ranking = Sequence[tuple[int, int]]  # (bot, rank) of every seat of one match; rank 1 is first


@dataclass
class Unit:
    """The sufficient data of one bootstrap unit (a duplicate group, or a lone match):
    ``chosen[bot]``, how much the bot was chosen, and ``sets[risk set]``, how many choices
    were made from that set (its bots sorted, a bot holding two seats listed twice)."""

    chosen: dict[int, float] = field(default_factory=dict)
    sets: dict[tuple[int, ...], float] = field(default_factory=dict)

    def add(self, ranking: Ranking, count: float = 1.0) -> None:
        """Add ``count`` matches that ended in ``ranking``."""
        chosen, sets = choices(ranking)
        if not self.sets and count == 1.0:  # a unit's first match (most are lone matches): its own dicts
            self.chosen, self.sets = chosen, sets
            return
        for bot, weight in chosen.items():
            self.chosen[bot] = self.chosen.get(bot, 0.0) + count * weight
        for risk, weight in sets.items():
            self.sets[risk] = self.sets.get(risk, 0.0) + count * weight


def choices(ranking: Ranking) -> tuple[dict[int, float], dict[tuple[int, ...], float]]:
    """One match's ranks as weighted choices (see the module's docstring): how much each bot
    was chosen and how many choices each risk set stands for.

    >>> choices([(7, 1), (9, 2)])
    ({7: 1.0}, {(7, 9): 1.0})
    >>> choices([(7, 1), (9, 1)])
    ({7: 0.5, 9: 0.5}, {(7, 9): 1.0})
    """
    chosen: dict[int, float] = {}
    sets: dict[tuple[int, ...], float] = {}
    remaining = sorted(ranking, key=lambda seat: seat[1])
    if len({rank for _, rank in remaining}) == len(remaining):  # no tie: each place one choice
        for place in range(len(remaining) - 1):
            bot = remaining[place][0]
            chosen[bot] = chosen.get(bot, 0.0) + 1.0
            risk = tuple(sorted(b for b, _ in remaining[place:]))
            sets[risk] = sets.get(risk, 0.0) + 1.0
        return chosen, sets
    while remaining:
        best = remaining[0][1]
        block = [bot for bot, rank in remaining if rank == best]
        risk = tuple(sorted(bot for bot, _ in remaining))
        made = len(block) if len(risk) > len(block) else len(block) - 1
        if made:
            for bot in block:
                chosen[bot] = chosen.get(bot, 0.0) + made / len(block)
            sets[risk] = sets.get(risk, 0.0) + made
        remaining = remaining[len(block):]
    return chosen, sets


def units(rows: Iterable[tuple[Hashable, Ranking, float]]) -> dict[Hashable, Unit]:
    """Units from ``(unit key, ranking, count)`` rows: the rankings of a unit's matches, with
    how many of its matches ended so."""
    found: dict[Hashable, Unit] = {}
    for key, ranking, count in rows:
        found.setdefault(key, Unit()).add(ranking, count)
    return found


@dataclass(frozen=True)
class Rated:
    """One bot's line on the list: its rating, 95 % interval, and the likelihood that it is
    stronger than the next bot on the list (None for the last)."""

    bot: int
    rating: float
    low: float
    high: float
    los_next: float | None


class _Data:
    """The units packed in arrays: bots by index, risk sets grouped by size (a 2-D array of
    bot indices each), and each unit's entries (unit, set or bot, weight)."""

    def __init__(self, found: Mapping[Any, Unit]) -> None:
        # One pass over the units into flat columns, risk sets numbered as first met; then
        # numpy renumbers sets and bots in their sorted order.
        keys = sorted(found, key=_sort_key)
        numbered: dict[tuple[int, ...], int] = {}
        chosen_unit: list[int] = []
        chosen_bot: list[int] = []
        chosen_weight: list[float] = []
        set_unit: list[int] = []
        set_first: list[int] = []
        set_weight: list[float] = []
        for u, key in enumerate(keys):
            unit = found[key]
            chosen_bot += unit.chosen
            chosen_weight += unit.chosen.values()
            chosen_unit += [u] * len(unit.chosen)
            set_first += [numbered.setdefault(risk, len(numbered)) for risk in unit.sets]
            set_weight += unit.sets.values()
            set_unit += [u] * len(unit.sets)
        risks = list(numbered)
        self.bots = sorted({b for risk in risks for b in risk})
        index = {b: i for i, b in enumerate(self.bots)}
        order = sorted(range(len(risks)), key=lambda i: (len(risks[i]), risks[i]))
        renumber = np.empty(len(risks), np.int64)
        renumber[order] = np.arange(len(risks))
        self.sizes: list[tuple[int, np.ndarray]] = []  # (offset of the first set, its bot indices)
        start = 0
        while start < len(order):
            width = len(risks[order[start]])
            end = start
            while end < len(order) and len(risks[order[end]]) == width:
                end += 1
            self.sizes.append((start, np.array([[index[b] for b in risks[i]] for i in order[start:end]], np.int64)))
            start = end
        self.units = len(keys)
        self.sets = len(risks)
        self.chosen_unit = np.array(chosen_unit, np.int64)
        self.chosen_bot = np.array([index[b] for b in chosen_bot], np.int64)
        self.chosen_weight = np.array(chosen_weight, float)
        self.set_unit = np.array(set_unit, np.int64)
        self.set_id = renumber[np.array(set_first, np.int64)] if set_first else np.zeros(0, np.int64)
        self.set_weight = np.array(set_weight, float)

    def totals(self, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``W`` (replicas x bots) and ``n`` (replicas x sets) when unit ``u`` is counted
        ``counts[:, u]`` times."""
        replicas = counts.shape[0]
        k, m = len(self.bots), self.sets
        rows = np.arange(replicas)[:, None]
        chosen = np.bincount((rows * k + self.chosen_bot[None, :]).ravel(),
                             (counts[:, self.chosen_unit] * self.chosen_weight).ravel(), replicas * k)
        made = np.bincount((rows * m + self.set_id[None, :]).ravel(),
                           (counts[:, self.set_unit] * self.set_weight).ravel(), replicas * m)
        return chosen.reshape(replicas, k), made.reshape(replicas, m)


def _sort_key(key: Hashable) -> tuple[str, str]:
    return (type(key).__name__, repr(key))


def _probabilities(theta: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Each risk set's choice probabilities (replicas x sets x size)."""
    t = theta[:, idx]
    e = np.exp(t - t.max(axis=2, keepdims=True))
    return e / e.sum(axis=2, keepdims=True)


def _gradient(data: _Data, theta: np.ndarray, chosen: np.ndarray, made: np.ndarray, prior: float) -> np.ndarray:
    """dL/dtheta for every replica (rows of ``theta``). The expected choices of bot ``i`` are
    ``gamma_i * sum over its sets R of n_R / sum_{j in R} gamma_j``, ``gamma = exp(theta)``
    scaled per replica (the prior keeps strengths within far less than exp's range)."""
    replicas, k = theta.shape
    gamma = np.exp(theta - theta.max(axis=1, keepdims=True))
    exposure = np.zeros(replicas * k)
    rows = np.arange(replicas)[:, None] * k
    for offset, idx in data.sizes:
        share = made[:, offset:offset + len(idx)] / gamma[:, idx].sum(axis=2)
        for seat in range(idx.shape[1]):
            exposure += np.bincount((rows + idx[None, :, seat]).ravel(), share.ravel(), replicas * k)
    won = 1.0 / (1.0 + np.exp(-theta))  # against the virtual bot of the prior
    return chosen - gamma * exposure.reshape(replicas, k) + prior * (0.5 - won)


def _information(data: _Data, theta: np.ndarray, made: np.ndarray, prior: float) -> np.ndarray:
    """Minus the Hessian of L at one ``theta`` (a vector)."""
    k = len(theta)
    info = np.zeros(k * k)
    for offset, idx in data.sizes:
        n = made[offset:offset + len(idx)]
        p = _probabilities(theta[None], idx)[0]
        info += np.bincount(idx.ravel() * (k + 1), (p * n[:, None]).ravel(), k * k)
        for a in range(idx.shape[1]):
            for b in range(idx.shape[1]):
                info -= np.bincount(idx[:, a] * k + idx[:, b], n * p[:, a] * p[:, b], k * k)
    won = 1.0 / (1.0 + np.exp(-theta))
    return info.reshape(k, k) + np.diag(prior * won * (1.0 - won))


def _gauged(info: np.ndarray, prior: float) -> np.ndarray:
    """With no prior, L does not change when every strength moves alike: fix that direction
    (the gradient has no part along it, so the step is unchanged in every other)."""
    if prior > 0:
        return info
    return info + 1.0 / len(info)


def _likelihood(data: _Data, theta: np.ndarray, chosen: np.ndarray, made: np.ndarray, prior: float) -> float:
    total = float(chosen @ theta)
    for offset, idx in data.sizes:
        t = theta[idx]
        top = t.max(axis=1)
        total -= float(made[offset:offset + len(idx)] @ (top + np.log(np.exp(t - top[:, None]).sum(axis=1))))
    return total + prior * float(np.sum(0.5 * theta - np.logaddexp(0.0, theta)))


def _newton(data: _Data, chosen: np.ndarray, made: np.ndarray, prior: float,
            start: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The maximum of L (and the information there) for one replica's totals."""
    theta = np.zeros(len(data.bots)) if start is None else start.copy()
    now = _likelihood(data, theta, chosen, made, prior)
    for _ in range(_MAX_NEWTON):
        info = _gauged(_information(data, theta, made, prior), prior)
        step = np.linalg.solve(info, _gradient(data, theta[None], chosen[None], made[None], prior)[0])
        size = 1.0
        while True:  # L is concave: halve the step until it does not fall
            trial = theta + size * step
            then = _likelihood(data, trial, chosen, made, prior)
            if then >= now - 1e-12 * abs(now) or size < 1e-6:
                break
            size /= 2
        theta, now = trial, then
        if np.max(np.abs(size * step)) < _TOLERANCE:
            break
    return theta, _information(data, theta, made, prior)


def _resampled(rng: np.random.Generator, units: int, replicas: int) -> np.ndarray:
    """How often each of ``units`` units is drawn by each of ``replicas`` resamplings (as
    many draws as units, with replacement: a multinomial), replicas x units."""
    counts = np.empty((replicas, units))
    for r in range(replicas):
        counts[r] = np.bincount(rng.integers(0, units, units), minlength=units)
    return counts


def _bootstrap(data: _Data, theta: np.ndarray, info: np.ndarray, replicas: int, seed: int,
               prior: float, chunk: int, exact_units: int = EXACT_UNITS,
               block_cells: int = BLOCK_CELLS) -> np.ndarray:
    """Strengths refitted on ``replicas`` resamplings of the units (replicas x bots), started
    from ``theta`` and stepped with the full fit's information (a chord Newton method: the
    replicas' Hessians are close to it). Up to ``exact_units`` units every replica is refitted
    to ``_REPLICA_TOLERANCE`` (any still moving is finished by Newton); beyond, one step is
    taken (``_one_step``)."""
    rng = np.random.default_rng(seed)
    inverse = np.linalg.inv(_gauged(info, prior))
    if data.units > exact_units:
        return _one_step(data, theta, inverse, replicas, rng, prior, chunk, block_cells)
    out = np.empty((replicas, len(theta)))
    for start in range(0, replicas, chunk):
        size = min(chunk, replicas - start)
        chosen, made = data.totals(_resampled(rng, data.units, size))
        fitted = np.tile(theta, (size, 1))
        moving = np.ones(size, bool)
        for _ in range(_MAX_CHORD):
            step = _gradient(data, fitted[moving], chosen[moving], made[moving], prior) @ inverse
            fitted[moving] += step
            still = np.max(np.abs(step), axis=1) >= _REPLICA_TOLERANCE
            moving[np.flatnonzero(moving)[~still]] = False
            if not moving.any():
                break
        for r in np.flatnonzero(moving):
            fitted[r] = _newton(data, chosen[r], made[r], prior, fitted[r])[0]
        out[start:start + size] = fitted
    return out


def _one_step(data: _Data, theta: np.ndarray, inverse: np.ndarray, replicas: int,
              rng: np.random.Generator, prior: float, chunk: int, block_cells: int) -> np.ndarray:
    """Replicas of a large fit, each one chord step from ``theta``. A replica then moves
    ``O(1/units)`` less than its refit would (the step's error is the square of a move already
    ``O(1/sqrt(units))``), far below the interval's own sampling error at this size.

    The gradient of L at ``theta`` is a sum over the units, so each unit's part is computed
    once and a replica's gradient is its counts times those parts: no pass over the risk sets
    per replica. Beyond ``block_cells / bots`` units, the units are dealt (seeded) into that many
    blocks of whole units and the blocks are resampled: a block's part is a sum of independent
    units, so the resampled totals spread as the units' own do (to a relative error of about
    ``1/sqrt(blocks)``), and a duplicate group still moves as one."""
    k = len(theta)
    blocks = max(1, min(data.units, block_cells // k))
    block_of = np.arange(data.units) if blocks == data.units else rng.permutation(data.units) % blocks
    parts = np.bincount(block_of[data.chosen_unit] * k + data.chosen_bot, data.chosen_weight, blocks * k)
    gamma = np.exp(theta - theta.max())
    for offset, idx in data.sizes:
        inside = (data.set_id >= offset) & (data.set_id < offset + len(idx))
        local = data.set_id[inside] - offset
        p = gamma[idx] / gamma[idx].sum(axis=1, keepdims=True)
        where = block_of[data.set_unit[inside]] * k
        weight = data.set_weight[inside]
        for seat in range(idx.shape[1]):
            parts -= np.bincount(where + idx[local, seat], weight * p[local, seat], blocks * k)
    parts = parts.reshape(blocks, k)
    won = 1.0 / (1.0 + np.exp(-theta))
    out = np.empty((replicas, k))
    for start in range(0, replicas, chunk):
        size = min(chunk, replicas - start)
        # einsum's own loop, not BLAS: BLAS threads spinning on a busy machine made this
        # product ten times slower than the rest of the fit.
        gradient = np.einsum("rb,bk->rk", _resampled(rng, blocks, size), parts) + prior * (0.5 - won)
        out[start:start + size] = theta + gradient @ inverse
    return out


def _elo(theta: np.ndarray) -> np.ndarray:
    """Strengths on the Elo scale, anchored at a mean of ``ANCHOR`` (along the last axis)."""
    return ANCHOR + ELO_PER_NATURAL * (theta - theta.mean(axis=-1, keepdims=True))


def strengths(found: Mapping[Any, Unit], prior: float = PRIOR_DRAWS) -> dict[int, float]:
    """The maximum-likelihood ratings of every bot in ``found`` (no interval): Elo scale,
    mean ``ANCHOR``."""
    if not found:
        return {}
    data = _Data(found)
    chosen, made = data.totals(np.ones((1, data.units)))
    theta, _ = _newton(data, chosen[0], made[0], prior)
    return dict(zip(data.bots, _elo(theta).tolist(), strict=True))


def fit(found: Mapping[Any, Unit], replicas: int = REPLICAS, seed: int = SEED,
        prior: float = PRIOR_DRAWS, chunk: int = 32, exact_units: int = EXACT_UNITS,
        block_cells: int = BLOCK_CELLS) -> list[Rated]:
    """The list, best first: every bot's maximum-likelihood rating, its 95 % bootstrap
    interval over the units, and its LOS over the next bot. Ties of rating are listed by bot.
    ``exact_units`` and ``block_cells`` choose how the bootstrap is computed (``_bootstrap``)."""
    if not found:
        return []
    data = _Data(found)
    chosen, made = data.totals(np.ones((1, data.units)))
    theta, info = _newton(data, chosen[0], made[0], prior)
    rating = _elo(theta)
    if replicas > 0 and data.units > 1:
        boot = _elo(_bootstrap(data, theta, info, replicas, seed, prior, chunk, exact_units, block_cells))
        low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    else:
        boot = np.tile(rating, (1, 1))
        low, high = rating, rating
    order = sorted(range(len(data.bots)), key=lambda i: (-rating[i], data.bots[i]))
    listed = []
    for place, i in enumerate(order):
        los = None
        if place + 1 < len(order):
            j = order[place + 1]
            los = superiority(float(rating[i] - rating[j]), float(np.std(boot[:, i] - boot[:, j])))
        listed.append(Rated(data.bots[i], float(rating[i]), float(min(low[i], rating[i])),
                            float(max(high[i], rating[i])), los))
    return listed


def superiority(difference: float, spread: float) -> float:
    """The probability that a bot ahead by ``difference`` is the stronger, when the estimate
    of that difference spreads with standard deviation ``spread`` (normal)."""
    if spread <= 0:
        return 1.0 if difference > 0 else 0.5 if difference == 0 else 0.0
    return 0.5 * math.erfc(-difference / (spread * math.sqrt(2)))
