"""The judgement of a decision: the one scale, intervals, marks and accuracy, against
worked numbers (``arena.stats.judgement``)."""

from __future__ import annotations

import math

import pytest

from arena.stats import judgement


@pytest.mark.parametrize(("ranks", "seat", "score"), [
    ([1, 2], 0, 1.0), ([1, 2], 1, 0.0), ([1, 1], 0, 0.5),          # two players: win probability
    ([1, 2, 3, 4], 1, 2 / 3), ([1, 2, 3, 4], 3, 0.0),               # more: (N - rank) / (N - 1)
    ([1, 1, 3], 0, 0.75), ([1, 1, 3], 2, 0.0), ([2, 1, 2], 0, 0.25),  # a tie: the mean of its places
])
def test_rank_score_is_win_probability_for_two_and_rank_score_for_more(ranks: list[int], seat: int,
                                                                       score: float) -> None:
    assert judgement.rank_score(ranks, seat) == pytest.approx(score)


def test_interval_is_students_95_percent_interval_of_the_mean() -> None:
    # Worked by hand: mean 0.5, sample deviation sqrt(1/3), n = 4, t(3) = 3.182.
    mean, half = judgement.mean_interval([0.0, 1.0, 0.0, 1.0])
    assert mean == 0.5
    assert half == pytest.approx(3.182 * math.sqrt(1 / 3) / 2, rel=1e-6)
    assert judgement.mean_interval([0.25, 0.25, 0.25]) == (0.25, 0.0)
    with pytest.raises(ValueError):
        judgement.mean_interval([1.0])


@pytest.mark.parametrize(("loss", "half", "expected"), [
    (15.0, 0.0, "blunder"), (14.99, 0.0, "mistake"), (10.0, 0.0, "mistake"), (5.0, 0.0, "inaccuracy"),
    (4.99, 0.0, None), (0.0, 0.0, None),
    # The loss less its half-width must reach the band: luck is not called a blunder.
    (30.0, 15.0, "blunder"), (30.0, 15.01, "mistake"), (30.0, 20.0, "mistake"), (30.0, 25.0, "inaccuracy"),
    (30.0, 25.01, None), (-3.0, 1.0, None),
])
def test_a_mark_needs_the_whole_interval_in_its_band(loss: float, half: float, expected: str | None) -> None:
    assert judgement.mark(loss, half) == expected


def test_accuracy_follows_the_lichess_curve() -> None:
    assert judgement.accuracy([]) == 100.0
    assert judgement.decision_accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    assert judgement.decision_accuracy(10.0) == pytest.approx(103.1668 * math.exp(-0.4354) - 3.1669)
    assert judgement.decision_accuracy(1000.0) == 0.0
    assert judgement.accuracy([0.0, 10.0]) == pytest.approx((judgement.decision_accuracy(0.0)
                                                            + judgement.decision_accuracy(10.0)) / 2)
    losses = [judgement.decision_accuracy(d) for d in (0, 1, 5, 10, 20, 50)]
    assert losses == sorted(losses, reverse=True)


def test_the_t_quantile_meets_the_table_and_tends_to_the_normal_one() -> None:
    assert judgement.t95(1) == 12.706 and judgement.t95(30) == 2.042
    # Published values beyond the table: 40, 60, 120 degrees of freedom.
    for freedom, published in ((40, 2.021), (60, 2.000), (120, 1.980)):
        assert judgement.t95(freedom) == pytest.approx(published, abs=1e-3)
    assert judgement.t95(10**6) == pytest.approx(judgement.Z95, abs=1e-5)
    quantiles = [judgement.t95(f) for f in range(1, 200)]
    assert quantiles == sorted(quantiles, reverse=True)
    with pytest.raises(ValueError):
        judgement.t95(0)
