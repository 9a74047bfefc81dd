"""The house ladder's lines under a leaderboard (``arena.cli.ladder``): each step judged by
the sequential test of ``arena test`` over duplicate pairs, scored for the upper bot."""

from __future__ import annotations

import pytest

from arena.cli import ladder
from arena.stats import sprt
from arena.stats.groups import Group, counts, outcomes

WON = Group((1.0, 1.0), (0.0, 0.0), shared=True)  # the upper bot won both seatings
SPLIT = Group((1.0, 0.0), (0.0, 1.0), shared=True)
LOST = Group((0.0, 0.0), (1.0, 1.0), shared=True)


def line(pairs: list[Group], shown: bool = True) -> tuple[ladder.Step, str]:
    step = ladder.judge("search", "heuristic", shown, pairs)
    return step, ladder.describe([step])[1]


def test_a_clear_edge_settles_h1_with_its_llr_and_interval():
    step, text = line([WON] * 20 + [SPLIT] * 15 + [LOST] * 5)
    expected = sprt.llr(counts([WON] * 20 + [SPLIT] * 15 + [LOST] * 5, 2), ladder.HYPOTHESES, outcomes(2))
    assert step.llr == pytest.approx(expected) and step.llr >= ladder.HYPOTHESES.upper
    assert step.verdict == "H1" and step.settled
    assert text.startswith("  search against heuristic: 40 duplicate pairs, LLR +3.06 (bounds -2.94, +2.94; "
                           "H0 0, H1 50): H1 settled, search is better; Elo +137 [+56, +236] (95 %)")
    # Settled needs the board to show the step too.
    assert not ladder.judge("search", "heuristic", False, [WON] * 40).settled


def test_equal_bots_stay_undecided_then_reach_h0():
    step, text = line([WON, LOST] * 30)
    assert step.verdict == "undecided" and "undecided, too few pairs; Elo +0 [-90, +90] (95 %)" in text
    assert line([WON, LOST] * 200)[0].verdict == "H0"


def test_few_or_alike_pairs_give_no_interval_and_none_says_so():
    assert line([WON])[1].endswith("1 duplicate pair, LLR +0.18 (bounds -2.94, +2.94; H0 0, H1 50): "
                                   "undecided, too few pairs; Elo not estimated (the one pair scored 1)")
    assert line([SPLIT] * 3)[1].endswith("Elo not estimated (all 3 pairs scored 0.5)")
    step, text = line([])
    assert step.estimate is None and text == "  search against heuristic: no duplicate pairs yet; undecided"
