"""``arena leaderboard GAME``: bots by Elo with their 95 % interval."""

from __future__ import annotations

import argparse

from arena import games
from arena.store import db, queries


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("leaderboard", help="a game's bots by Elo")
    parser.add_argument("game")
    parser.add_argument("--limit", type=int, default=50)
    parser.set_defaults(func=run)


def print_leaderboard(game: str, rows: list[queries.LeaderboardRow]) -> None:
    """The table the CLI and the demo print."""
    print(f"{game}")
    if not rows:
        print("  no rated matches yet")
        return
    print(f"  {'#':>3} {'bot':<16} {'Elo':>6} {'95% interval':>15} {'matches':>8} {'win rate':>9} "
          f"{'mean rank':>10}  last played")
    for r in rows:
        last = r.last_played.strftime("%Y-%m-%d %H:%M") if r.last_played else "-"
        print(f"  {r.rank:>3} {r.bot:<16} {r.elo:>6.0f} {f'[{r.low:.0f}, {r.high:.0f}]':>15} {r.matches:>8} "
              f"{r.win_rate:>9.1%} {r.mean_rank:>10.2f}  {last}")


def run(args: argparse.Namespace) -> int:
    game = games.get(args.game).name
    with db.read() as connection:
        rows = queries.leaderboard(connection, game, args.limit)
    print_leaderboard(game, rows)
    return 0
