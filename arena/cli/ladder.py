"""The house bots' ladder under a game's leaderboard: does the board put the search above the
heuristic and the heuristic above random, and do their meetings say so beyond chance?

A leaderboard is a sample. Where one bot beats another in most matches a few dozen meetings
settle their order; where it wins 55 matches in 100 (the search against the heuristic in a
game of much luck) a demo's few meetings cannot, and the board's order is then the luck's. So
each step of the ladder is judged as ``arena test`` judges a candidate against its base: the
sequential test (``arena.stats.sprt``, α = β = 0.05) over the duplicate pairs the two bots
played head to head (one deal, seats swapped), with the Elo difference and its 95 % interval.
The reader is told which orders the sample settles and which it merely shows.

Only the two-player tables count: at a table of three the two rungs sit with each other and
a third bot, so the field each faces is not the same (``arena test`` holds it fixed)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection

from arena.stats import sprt
from arena.stats.groups import counts, outcomes
from arena.store import queries

from .leaderboard_cmd import print_leaderboard

# The hypotheses of every step, in normalized Elo: is the upper bot clearly better (H1, 50) or
# not (H0, 0)? The ladder's steps are large edges (docs/games/README.md), and H1 at 50 settles
# such an edge in a few dozen pairs, where ``arena test``'s default H1 of 5, made to find
# small improvements, needs hundreds. ``arena test LOWER UPPER --elo1 50`` runs the same test.
HYPOTHESES = sprt.Hypotheses(elo0=0.0, elo1=50.0)


@dataclass(frozen=True)
class Step:
    """One rung: ``upper`` should stand above ``lower``."""

    upper: str
    lower: str
    shown: bool  # the leaderboard puts upper above lower
    pairs: int  # duplicate pairs the two played head to head
    llr: float  # the sequential test's log-likelihood ratio over them, for upper
    estimate: sprt.Estimate | None  # upper's edge in Elo (None: no pairs)

    @property
    def verdict(self) -> str:
        """``"H1"`` (upper is better), ``"H0"`` (not better by the test's H1) or ``"undecided"``."""
        return HYPOTHESES.verdict(self.llr) or "undecided"

    @property
    def settled(self) -> bool:
        return self.shown and self.verdict == "H1"


def judge(upper: str, lower: str, shown: bool, pairs: list) -> Step:
    """A rung judged on its duplicate pairs (``arena.stats.groups.Group``, scored for upper)."""
    if not pairs:
        return Step(upper, lower, shown, 0, 0.0, None)
    llr = sprt.llr(counts(pairs, 2), HYPOTHESES, outcomes(2))
    return Step(upper, lower, shown, len(pairs), llr, sprt.estimate([g.outcome for g in pairs]))


def steps(connection: Connection, game: str, ladder: list[str], rows: list[queries.LeaderboardRow]) -> list[Step]:
    """The rungs of ``ladder`` (best bot first) on this leaderboard; a bot the board lacks
    stands below every other."""
    place = {row.bot: row.rank for row in rows}
    out = []
    for upper, lower in zip(ladder, ladder[1:], strict=False):
        shown = place.get(upper, len(rows) + 1) < place.get(lower, len(rows) + 2)
        out.append(judge(upper, lower, shown, queries.duplicate_pairs(connection, game, upper, lower)))
    return out


def signed(value: float) -> str:
    return f"{value:+.0f}"


def elo(e: sprt.Estimate) -> str:
    """The Elo difference with its 95 % interval. Pairs that all scored alike show no spread
    to draw an interval from (one would read as certainty), so none is given."""
    if e.score_low == e.score_high:
        which = "the one pair" if e.outcomes == 1 else f"all {e.outcomes} pairs"
        return f"Elo not estimated ({which} scored {e.score:g})"
    return f"Elo {signed(e.elo)} [{signed(e.elo_low)}, {signed(e.elo_high)}] (95 %)"


def describe(rungs: list[Step]) -> list[str]:
    """Lines for the leaderboard's foot: the ladder, then each step's test."""
    order = " > ".join([rungs[0].upper] + [r.lower for r in rungs])
    upside_down = [f"{r.lower} above {r.upper}" for r in rungs if not r.shown]
    lines = [f"ladder {order}: " + ("shown" if not upside_down else "not shown (" + "; ".join(upside_down) + ")")]
    h = HYPOTHESES
    for r in rungs:
        if r.estimate is None:
            lines.append(f"  {r.upper} against {r.lower}: no duplicate pairs yet; undecided")
            continue
        verdict = {"H1": f"H1 settled, {r.upper} is better",
                   "H0": f"H0, {r.upper} is not better by {h.elo1:g} normalized Elo",
                   "undecided": "undecided, too few pairs"}[r.verdict]
        pairs = f"{r.pairs} duplicate pair" + ("s" if r.pairs != 1 else "")
        lines.append(f"  {r.upper} against {r.lower}: {pairs}, LLR {r.llr:+.2f} "
                     f"(bounds {h.lower:+.2f}, {h.upper:+.2f}; H0 {h.elo0:g}, H1 {h.elo1:g}): {verdict}; "
                     f"{elo(r.estimate)}")
    return lines


def print_board(connection: Connection, game: str, ladder: list[str]) -> list[Step]:
    """``game``'s leaderboard, and under it how it stands on ``ladder`` (best bot first; fewer
    than two bots: the board alone). Returns the rungs."""
    from . import console

    rows = queries.leaderboard(connection, game)
    print_leaderboard(game, rows)
    if len(ladder) < 2 or not rows:
        return []
    rungs = steps(connection, game, ladder, rows)
    for line in describe(rungs):
        console().print(line, markup=False, highlight=False)
    return rungs
