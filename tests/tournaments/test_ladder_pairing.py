"""Who the ladder seats together (``arena.tournaments.ladder.pair``): a pure function of the
bots waiting, the house bots and who has met whom."""

from __future__ import annotations

from collections import Counter

from arena.ratings import provisional
from arena.tournaments.ladder import Entrant, pair

RANDOM, HEURISTIC = Entrant(100, 1200, 60, house=True), Entrant(101, 1700, 60, house=True)


def test_waiting_bots_meet_each_other_before_a_house_bot() -> None:
    a, b, c = Entrant(1), Entrant(2), Entrant(3)
    groups = pair(2, [a, b, c], [RANDOM, HEURISTIC], Counter())
    assert groups[0] == (1, 2)
    assert len(groups) == 2 and groups[1][0] == 3 and groups[1][1] in (100, 101), "the odd one out meets a house bot"


def test_pairs_that_met_least_are_seated_first() -> None:
    a, b, c = Entrant(1), Entrant(2), Entrant(3)
    met = Counter({frozenset((1, 2)): 3, frozenset((1, 3)): 0})
    assert pair(2, [a, b, c], [], met)[0] == (1, 3)


def test_bots_whose_intervals_do_not_overlap_are_kept_apart() -> None:
    strong, weak = Entrant(1, 1750, 40), Entrant(2, 1100, 40)
    # The strong bot meets the house bot near it, not the weak bot far below.
    groups = pair(2, [strong, weak], [RANDOM, HEURISTIC], Counter())
    assert groups == [(1, 101), (2, 100)]


def test_a_wide_interval_overlaps_everyone() -> None:
    newcomer, strong = Entrant(1), Entrant(2, 1750, 40)
    assert pair(2, [newcomer, strong], [RANDOM, HEURISTIC], Counter()) == [(1, 2)]


def test_larger_tables_are_filled_and_no_waiting_bot_sits_twice() -> None:
    seekers = [Entrant(n) for n in range(1, 6)]
    groups = pair(3, seekers, [RANDOM, HEURISTIC], Counter())
    seated = [bot for group in groups for bot in group if bot < 100]
    assert all(len(group) == 3 and len(set(group)) == 3 for group in groups)
    assert sorted(seated) == [1, 2, 3, 4, 5]
    assert pair(3, seekers, [RANDOM, HEURISTIC], Counter()) == groups, "the same input, the same groups"


def test_a_table_that_cannot_be_filled_is_not_made() -> None:
    assert pair(3, [Entrant(1)], [RANDOM], Counter()) == []


def test_a_newcomer_is_provisional_until_its_interval_narrows() -> None:
    assert provisional(0.0)
    assert not provisional(2e-4)
