"""Elo properties: zero-sum, order of ranks respected, K scaling, the interval narrows."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from arena import ratings

elos = st.floats(800, 2200, allow_nan=False)


@given(st.lists(st.tuples(elos, st.integers(1, 4)), min_size=2, max_size=6))
def test_deltas_are_zero_sum_and_bounded(seats):
    values = [e for e, _ in seats]
    ranks = [r for _, r in seats]
    deltas, info = ratings.match_update(values, ranks, 32)
    assert math.isclose(sum(deltas), 0.0, abs_tol=1e-9)
    assert all(abs(d) <= 32 for d in deltas)
    assert all(i >= 0 for i in info)


@given(elos, st.integers(2, 6))
def test_equal_ratings_better_rank_gains_more(elo, n):
    ranks = list(range(1, n + 1))
    deltas, _ = ratings.match_update([elo] * n, ranks, 32)
    assert all(a > b for a, b in zip(deltas, deltas[1:], strict=False))
    # Winner of an N-player match among equals gains K/2 in total: K/(N-1) per pair.
    assert math.isclose(deltas[0], 32 * 0.5, rel_tol=1e-9)


@given(elos, elos)
def test_two_player_elo_is_textbook(a, b):
    deltas, _ = ratings.match_update([a, b], [1, 2], 20)
    assert math.isclose(deltas[0], 20 * (1 - 1 / (1 + 10 ** ((b - a) / 400))), rel_tol=1e-9)


def test_draw_between_equals_changes_nothing():
    deltas, _ = ratings.match_update([1500, 1500, 1500], [1, 1, 1], 32)
    assert deltas == [0.0, 0.0, 0.0]


def test_same_bot_in_two_seats_plays_no_game_against_itself():
    deltas, info = ratings.match_update([1500, 1500], [1, 2], 32, bots=[7, 7])
    assert deltas == [0.0, 0.0] and info == [0.0, 0.0]


@given(st.lists(st.floats(0, 1e-3), min_size=1, max_size=20))
def test_interval_narrows_with_information(gains):
    widths = []
    total = 0.0
    for gain in gains:
        total += gain
        low, high = ratings.interval(1500, total)
        widths.append(high - low)
    assert all(a >= b for a, b in zip(widths, widths[1:], strict=False))
    assert widths[0] <= 2 * 1.96 * ratings.PRIOR_SD + 1e-9
