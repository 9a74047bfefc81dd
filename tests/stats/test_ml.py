"""Maximum-likelihood ratings (``arena.stats.ml``): the model's worked numbers, independence of
the order of play, honest intervals over duplicate groups, and Plackett-Luce on N seats."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from arena.stats import ml
from tests.helpers import plain_bradley_terry


def test_ranks_read_as_choices_with_ties_split_symmetrically():
    # Plain Plackett-Luce: first chosen from all three, second from the last two.
    assert ml.choices([(1, 2), (2, 1), (3, 3)]) == ({2: 1.0, 1: 1.0}, {(1, 2, 3): 1.0, (1, 3): 1.0})
    # Two tied for first of three: each chosen from all three with weight 2/2.
    assert ml.choices([(1, 1), (2, 1), (3, 3)]) == ({1: 1.0, 2: 1.0}, {(1, 2, 3): 2.0})
    # All three tied: the two choices split in thirds.
    chosen, sets = ml.choices([(1, 1), (2, 1), (3, 1)])
    assert chosen == pytest.approx({1: 2 / 3, 2: 2 / 3, 3: 2 / 3}) and sets == {(1, 2, 3): 2.0}
    # Two players: a draw is half a win each way, as Elo counts it.
    assert ml.choices([(4, 1), (5, 1)]) == ({4: 0.5, 5: 0.5}, {(4, 5): 1.0})


def test_two_even_bots_sit_at_the_anchor_and_a_win_ratio_gives_its_elo_difference():
    even = ml.units([(("g", 0), [(1, 1), (2, 2)], 5), (("g", 1), [(2, 1), (1, 2)], 5)])
    assert ml.strengths(even) == pytest.approx({1: 1500.0, 2: 1500.0})
    # 30 wins to 10 with no prior: odds 3 to 1, 400 log10(3) = 190.8 Elo apart.
    lopsided = ml.units([(("g", 0), [(1, 1), (2, 2)], 30), (("g", 1), [(2, 1), (1, 2)], 10)])
    fitted = ml.strengths(lopsided, prior=0.0)
    assert fitted[1] - fitted[2] == pytest.approx(400 * math.log10(3), abs=1e-9)
    assert (fitted[1] + fitted[2]) / 2 == pytest.approx(ml.ANCHOR)


def test_a_bot_that_won_everything_gets_a_finite_rating_and_a_sure_los():
    found = ml.units([((0, s), [(1, 1), (2, 2)], 1) for s in range(20)])
    listed = ml.fit(found, replicas=100)
    assert [r.bot for r in listed] == [1, 2]
    assert all(math.isfinite(r.rating) for r in listed)
    assert listed[0].los_next == pytest.approx(1.0) and listed[1].los_next is None


def two_player_rows(rng: random.Random, strengths: list[float], groups: int, draws: float = 0.0):
    """Duplicate groups of two rotations, each game Bradley-Terry with ``strengths`` (natural
    units); a share ``draws`` of the games is drawn instead."""
    rows = []
    for g in range(groups):
        a, b = rng.sample(range(len(strengths)), 2)
        for seats in ((a, b), (b, a)):
            if rng.random() < draws:
                ranking = [(seats[0], 1), (seats[1], 1)]
            else:
                p = 1 / (1 + math.exp(strengths[seats[1]] - strengths[seats[0]]))
                ranking = [(seats[0], 1), (seats[1], 2)] if rng.random() < p else [(seats[0], 2), (seats[1], 1)]
            rows.append(((7, g), ranking, 1))
    return rows


def test_shuffling_the_order_of_play_changes_nothing():
    rows = two_player_rows(random.Random(4), [0.0, 0.4, -0.3, 0.9, 0.1], 300, draws=0.2)
    first = ml.fit(ml.units(rows), replicas=100)
    shuffled = rows[:]
    random.Random(5).shuffle(shuffled)
    again = ml.fit(ml.units(shuffled), replicas=100)
    assert [r.bot for r in again] == [r.bot for r in first]
    for a, b in zip(first, again, strict=True):
        assert a.rating == pytest.approx(b.rating, abs=1e-6)
        assert (a.low, a.high) == pytest.approx((b.low, b.high), abs=1e-6)  # the seeded bootstrap too


def test_agrees_with_a_plain_bradley_terry_fit():
    rows = two_player_rows(random.Random(6), [0.0, 0.6, -0.4, 0.2], 150, draws=0.25)
    games = [(r[0][0], r[1][0], 1.0 if r[0][1] < r[1][1] else 0.5 if r[0][1] == r[1][1] else 0.0)
             for _, r, _ in rows]
    expected = plain_bradley_terry(games)
    assert ml.strengths(ml.units(rows)) == pytest.approx(expected, abs=1e-6)


def test_the_intervals_cover_the_truth_95_percent_of_the_time():
    strengths = [0.0, 0.5, -0.5, 0.25]
    truth = ml.ANCHOR + ml.ELO_PER_NATURAL * (np.array(strengths) - np.mean(strengths))
    rng = random.Random(8)
    covered = total = 0
    for trial in range(250):
        listed = ml.fit(ml.units(two_player_rows(rng, strengths, 150)), replicas=200, seed=trial)
        for r in listed:
            covered += r.low <= truth[r.bot] <= r.high
            total += 1
    assert 0.92 <= covered / total <= 0.98, covered / total


def test_the_bootstrap_counts_a_group_as_one_unit():
    # The two rotations of each deal end alike (the deal decides): as one unit per group the
    # interval is wider than when every match is taken as independent.
    rng = random.Random(9)
    grouped, apart = [], []
    for g in range(200):
        first = rng.random() < 0.6
        for rotation in range(2):
            ranking = [(1, 1), (2, 2)] if first else [(1, 2), (2, 1)]
            grouped.append(((1, g), ranking, 1))
            apart.append(((1, g, rotation), ranking, 1))
    def width(rows):
        return next(r.high - r.low for r in ml.fit(ml.units(rows), replicas=300) if r.bot == 1)
    assert width(grouped) > 1.3 * width(apart)


def test_plackett_luce_recovers_the_order_of_n_player_rankings():
    strengths = [1.2, 0.8, 0.4, 0.0, -0.4, -0.8]
    rng = np.random.default_rng(10)
    rows = []
    for m in range(600):
        seated = rng.choice(len(strengths), 4, replace=False)
        luck = rng.gumbel(size=4) + np.array(strengths)[seated]  # Gumbel noise: exactly Plackett-Luce
        order = np.argsort(-luck)
        rows.append((("match", m), [(int(seated[o]), place + 1) for place, o in enumerate(order)], 1))
    listed = ml.fit(ml.units(rows), replicas=100)
    assert [r.bot for r in listed] == [0, 1, 2, 3, 4, 5]
    truth = ml.ELO_PER_NATURAL * np.array(strengths)
    fitted = np.array([r.rating for r in sorted(listed, key=lambda r: r.bot)])
    assert np.allclose(fitted - fitted.mean(), truth - truth.mean(), atol=40)
    assert all(r.los_next > 0.9 for r in listed[:-1])


def large_rows(rng: np.random.Generator, strengths: list[float], groups: int) -> list:
    """Two-player duplicate groups (a deal played both ways) drawn from Bradley-Terry."""
    rows = []
    for g in range(groups):
        a, b = rng.choice(len(strengths), 2, replace=False)
        for first, second in ((a, b), (b, a)):
            won = rng.random() < 1 / (1 + math.exp(strengths[second] - strengths[first]))
            rows.append(((1, g), [(int(first), 1 if won else 2), (int(second), 2 if won else 1)], 1))
    return rows


def test_one_newton_step_per_replica_gives_the_intervals_of_full_refits():
    """Beyond ``EXACT_UNITS`` a replica is one step from the full fit: on the same resamplings
    its interval ends and LOS are those of replicas fitted to convergence, within a tenth of
    the interval's width (the step's error shrinks as the units grow; at 3,000 it is already
    far below the bootstrap's own sampling error)."""
    found = ml.units(large_rows(np.random.default_rng(12), [0.0, 0.8, -0.6, 0.3, 1.4, -1.2], 3000))
    assert len(found) < ml.EXACT_UNITS
    refitted = {r.bot: r for r in ml.fit(found)}
    stepped = {r.bot: r for r in ml.fit(found, exact_units=0)}
    assert [r.bot for r in ml.fit(found)] == [r.bot for r in ml.fit(found, exact_units=0)]
    for bot, exact in refitted.items():
        width = exact.high - exact.low
        assert stepped[bot].rating == exact.rating
        assert abs(stepped[bot].low - exact.low) < 0.1 * width and abs(stepped[bot].high - exact.high) < 0.1 * width
        if exact.los_next is not None:
            assert stepped[bot].los_next == pytest.approx(exact.los_next, abs=0.01)


def test_resampled_blocks_of_whole_groups_spread_as_the_groups_do():
    """With more units than the bootstrap's budget, blocks of whole groups are resampled: the
    intervals match those of resampling the groups themselves, within the blocks' sampling
    error (about 1/sqrt(blocks) of the variance)."""
    found = ml.units(large_rows(np.random.default_rng(13), [0.0, 0.8, -0.6, 0.3], 4000))
    # Many replicas, so that the percentiles' own sampling error is small beside the blocks'.
    groups = {r.bot: r.high - r.low for r in ml.fit(found, exact_units=0, replicas=3000)}
    blocks = {r.bot: r.high - r.low for r in ml.fit(found, exact_units=0, block_cells=4 * 1000, replicas=3000)}
    for bot, width in groups.items():
        assert blocks[bot] == pytest.approx(width, rel=0.1)
    # Blocks must hold whole groups: blocks of single matches would narrow the interval of
    # results whose two rotations end alike (test_the_bootstrap_counts_a_group_as_one_unit).
    rng = random.Random(9)
    grouped = []
    for g in range(3000):
        first = rng.random() < 0.6
        grouped += [((1, g), [(1, 1), (2, 2)] if first else [(1, 2), (2, 1)], 1)] * 2
    apart = [((1, g, r), ranking, 1) for r, ((_, g), ranking, _count) in enumerate(grouped)]
    def width(rows):
        return next(r.high - r.low for r in ml.fit(ml.units(rows), exact_units=0, block_cells=2 * 500) if r.bot == 1)
    assert width(grouped) > 1.3 * width(apart)
