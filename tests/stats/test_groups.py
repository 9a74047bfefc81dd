"""Scoring paired duplicate groups, and the variance pairing saves."""

from __future__ import annotations

import random

import pytest

from arena.stats.groups import Group, counts, outcomes, pairing_gain, rank_score


def test_a_two_player_group_is_fishtests_pentanomial():
    assert outcomes(2) == [0, 0.25, 0.5, 0.75, 1]
    # B won one seat and drew the other; A's scores are the same matches seen from its side.
    group = Group(candidate=(1.0, 0.5), base=(0.0, 0.5), shared=True)
    assert group.outcome == 0.75


def test_an_n_player_group_compares_the_seats_and_lands_on_the_lattice():
    assert [rank_score(r, 3) for r in (1, 2, 3)] == [1.0, 0.5, 0.0]
    # Three seats: B first, second, last; A in the same seats second, second, first.
    group = Group(candidate=(1.0, 0.5, 0.0), base=(0.5, 0.5, 1.0), shared=False)
    assert group.outcome == pytest.approx(0.5 + ((1.5 - 2.0) / 3) / 2)
    assert any(group.outcome == pytest.approx(o) for o in outcomes(3))
    assert len(outcomes(3)) == 25 and outcomes(3)[0] == 0 and outcomes(3)[-1] == 1


def test_pairing_gains_where_the_deal_decides_and_not_where_matches_are_independent():
    rng = random.Random(3)
    # Independent matches: nothing shared, nothing gained (about 1).
    independent = [Group(candidate=(c := tuple(rng.choice((0.0, 0.5, 1.0)) for _ in range(2))),
                         base=tuple(1 - x for x in c), shared=True) for _ in range(4000)]
    assert pairing_gain(independent) == pytest.approx(1.0, abs=0.1)
    # The deal decides who wins whoever holds the seat: swapping the seats cancels it out.
    lucky = []
    for _ in range(4000):
        seat = rng.random() < 0.5
        first = 1.0 if seat or rng.random() < 0.1 else 0.0
        second = 1.0 if not seat or rng.random() < 0.1 else 0.0
        lucky.append(Group(candidate=(first, second), base=(1 - first, 1 - second), shared=True))
    assert pairing_gain(lucky) > 5
    # N players: A and B in the same seat of the same deal score alike.
    same = []
    for _ in range(2000):
        deal = tuple(rng.choice((0.0, 0.5, 1.0)) for _ in range(3))
        same.append(Group(candidate=tuple(min(1.0, d + (rng.random() < 0.1) / 2) for d in deal),
                          base=deal, shared=False))
    assert pairing_gain(same) > 5
    assert pairing_gain(same[:1]) is None


def test_counts_hold_outcomes_on_the_lattice():
    thirds = [Group(candidate=(1.0, 0.5, 0.0), base=(0.5, 0.5, 1.0), shared=False)] * 3
    assert counts(thirds, 3) == {5 / 12: 3}


def test_a_tie_at_a_table_of_three_keeps_its_own_outcome():
    """Two of three tied for first share places 1 and 2 (``rank_score`` of 1.5: 0.75): B's tie
    against A's outright win is a quarter step of the untied lattice, an outcome of its own,
    neither rounded up to a draw nor down to a loss."""
    tied = Group(candidate=(0.75, 0.5, 0.0), base=(1.0, 0.5, 0.0), shared=False)
    assert tied.outcome == pytest.approx(0.5 - 0.25 / 3 / 2)
    assert any(tied.outcome == pytest.approx(o) for o in outcomes(3))
    (held,) = counts([tied], 3)
    assert held == pytest.approx(tied.outcome, abs=1e-12) and held in outcomes(3)
    # Two players share one table: a draw is half of a win for one and of a loss for the
    # other, so the pentanomial stays as fishtest has it.
    assert outcomes(2) == [0, 0.25, 0.5, 0.75, 1]
