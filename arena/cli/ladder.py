"""The house bots' ladder under a game's leaderboard: does the board put the search above the
heuristic and the heuristic above random, and do their meetings say so beyond chance?

A leaderboard is a sample. Where one bot beats another in most matches a few dozen meetings
settle their order; where it wins 55 matches in 100 (the search against the heuristic in a
game of much luck) a demo's few meetings cannot, and the board's order is then the luck's. So
each step of the ladder is printed with the two bots' meetings and a sign test over them, and
the reader is told which orders the sample settles and which it merely shows."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection

from arena import ratings
from arena.store import queries

from .leaderboard_cmd import print_leaderboard

# A step of the ladder is settled when its meetings would be this unlikely between equals.
SETTLED = 0.05


@dataclass(frozen=True)
class Step:
    """One rung: ``upper`` should stand above ``lower``."""

    upper: str
    lower: str
    shown: bool  # the leaderboard puts upper above lower
    met: queries.Meetings
    chance: float  # the one-sided sign test over their decisive meetings: upper won this many

    @property
    def settled(self) -> bool:
        return self.shown and self.chance < SETTLED


def steps(ladder: list[str], rows: list[queries.LeaderboardRow],
          meetings: dict[tuple[str, str], queries.Meetings]) -> list[Step]:
    """The rungs of ``ladder`` (best bot first) on this leaderboard; a bot the board lacks
    stands below every other."""
    place = {row.bot: row.rank for row in rows}
    out = []
    for upper, lower in zip(ladder, ladder[1:], strict=False):
        met = meetings.get((upper, lower), queries.Meetings(0, 0, 0))
        shown = place.get(upper, len(rows) + 1) < place.get(lower, len(rows) + 2)
        # One-sided: the ladder says beforehand which of the two should win.
        out.append(Step(upper, lower, shown, met, ratings.sign_test(met.wins, met.losses)))
    return out


def describe(rungs: list[Step]) -> list[str]:
    """Lines for the leaderboard's foot: the ladder, then each step's meetings."""
    order = " > ".join([rungs[0].upper] + [r.lower for r in rungs])
    upside_down = [f"{r.lower} above {r.upper}" for r in rungs if not r.shown]
    lines = [f"ladder {order}: " + ("shown" if not upside_down else "not shown (" + "; ".join(upside_down) + ")")]
    for r in rungs:
        m = r.met
        verdict = "settled" if r.settled else "not settled by so few meetings"
        lines.append(f"  {r.upper} against {r.lower}: won {m.wins}, drew {m.draws}, lost {m.losses}; "
                     f"{verdict} (one-sided sign test p = {r.chance:.2g})")
    return lines


def print_board(connection: Connection, game: str, ladder: list[str]) -> list[Step]:
    """``game``'s leaderboard, and under it how it stands on ``ladder`` (best bot first; fewer
    than two bots: the board alone). Returns the rungs."""
    from . import console

    rows = queries.leaderboard(connection, game)
    print_leaderboard(game, rows)
    if len(ladder) < 2 or not rows:
        return []
    rungs = steps(ladder, rows, queries.head_to_head(connection, game, ladder))
    for line in describe(rungs):
        console().print(line, markup=False, highlight=False)
    return rungs
