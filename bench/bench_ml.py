"""What the maximum-likelihood leaderboard (``arena.stats.ml``) costs as results grow: 1e4,
1e5 and 1e6 synthetic rated results among 50 bots, two players (duplicate groups of two
rotations) and four players (lone matches). Each figure is a ratio against one plain
Bradley-Terry point fit (no interval) of the 1e4 two-player results, measured in the same run:

- ``units``: summing the results per unit (``ml.units``; the store hands over rows already
  counted per unit and ranking, so this is its worst case: every match its own row);
- ``point``: the Newton fit alone;
- ``list``: the whole list as the leaderboard shows it (fit, bootstrap of ``ml.REPLICAS``
  replicas over the units, LOS); past ``ml.EXACT_UNITS`` units a replica is one Newton step;
- ``refit``: the same list with every replica refitted to convergence, as the bootstrap was
  computed at every size before (up to 1e5 results: beyond, it takes minutes).

The web face keeps the list and fits again only when rated results arrive (at most every
``arena.web.caches.ML_CHECK_SECONDS``), on a thread no reader waits for, so ``list`` is paid
once per new results, not per request. ``python -m bench ml``; ``BENCH_ML_QUICK=1`` stops at
1e5.
"""

from __future__ import annotations

import os
import time

import numpy as np

from arena.stats import ml

BOTS = 50
REFIT_UP_TO = 100_000
SIZES = (10_000, 100_000) if os.environ.get("BENCH_ML_QUICK") else (10_000, 100_000, 1_000_000)


def two_player(results: int, rng: np.random.Generator) -> list:
    strength = rng.normal(0, 1, BOTS)
    pairs = rng.integers(0, BOTS, size=(results // 2, 2))
    pairs[:, 1] = (pairs[:, 0] + 1 + rng.integers(0, BOTS - 1, len(pairs))) % BOTS
    rows = []
    for group, (a, b) in enumerate(pairs.tolist()):
        for first, second in ((a, b), (b, a)):
            p = 1 / (1 + np.exp(strength[second] - strength[first]))
            won = rng.random() < p
            rows.append(((1, group), [(first, 1 if won else 2), (second, 2 if won else 1)], 1))
    return rows


def four_player(results: int, rng: np.random.Generator) -> list:
    strength = rng.normal(0, 1, BOTS)
    rows = []
    for m in range(results):
        seated = rng.choice(BOTS, 4, replace=False)
        order = np.argsort(-(strength[seated] + rng.gumbel(size=4)))
        rows.append(((-1, m), [(int(seated[o]), place + 1) for place, o in enumerate(order)], 1))
    return rows


def timed(work) -> tuple[float, object]:
    started = time.perf_counter()
    value = work()
    return time.perf_counter() - started, value


def main() -> None:
    rng = np.random.default_rng(26)
    base_units = ml.units(two_player(SIZES[0], rng))
    baseline, _ = timed(lambda: ml.strengths(base_units))
    print(f"baseline: one plain Bradley-Terry point fit of {SIZES[0]:,} two-player results, "
          f"{BOTS} bots: {baseline * 1000:.1f} ms")
    print(f"{'seats':>5} {'results':>10} {'units':>9} {'units x':>9} {'point x':>9} {'list x':>9} {'list s':>8}"
          f" {'refit x':>9}")
    for seats, make in ((2, two_player), (4, four_player)):
        for size in SIZES:
            rows = make(size, rng)
            built, found = timed(lambda rows=rows: ml.units(rows))
            point, _ = timed(lambda found=found: ml.strengths(found))
            whole, _ = timed(lambda found=found: ml.fit(found))
            refit = "-"
            if size <= REFIT_UP_TO:
                refit = f"{timed(lambda found=found: ml.fit(found, exact_units=len(found)))[0] / baseline:.1f}"
            print(f"{seats:>5} {size:>10,} {len(found):>9,} {built / baseline:>9.1f} {point / baseline:>9.1f} "
                  f"{whole / baseline:>9.1f} {whole:>8.2f} {refit:>9}", flush=True)


if __name__ == "__main__":
    main()
