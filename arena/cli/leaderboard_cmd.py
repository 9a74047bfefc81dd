"""``arena leaderboard GAME``: bots by Elo with their 95 % interval; ``--model ml``: by the
maximum-likelihood fit of every rated result (``arena.stats.ml``), with its bootstrap interval
and the likelihood of superiority over the next bot."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from rich import box
from rich.table import Table

from arena import games
from arena.stats import ml
from arena.store import db, ml_board, queries

# A crosstable is read through the seats of its bots: kept to the top few of the board.
CROSSTABLE_MAX = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("leaderboard", help="a game's bots by Elo")
    parser.add_argument("game")
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--model", choices=("elo", "ml"), default="elo",
                        help="elo: the online Elo (default); ml: one maximum-likelihood fit of every "
                             "rated result, the same in whatever order they were played")
    parser.add_argument("--head-to-head", action="store_true",
                        help=f"also how each of the top {CROSSTABLE_MAX} bots fared against each other")
    parser.set_defaults(func=run)


def print_leaderboard(game: str, rows: list[queries.LeaderboardRow]) -> None:
    """The table the CLI and the demo print: the game's name on a line of its own, then its bots."""
    from . import console, print_table

    out = console()
    out.print(game, style="bold", markup=False)
    if not rows:
        out.print("  no rated matches yet")
        return
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for header in ("#", "bot", "Elo", "95% interval", "matches", "win rate", "mean rank", "last played"):
        table.add_column(header, justify="left" if header in ("bot", "last played") else "right", no_wrap=True)
    for r in rows:
        last = r.last_played.strftime("%Y-%m-%d %H:%M") if r.last_played else "-"
        table.add_row(str(r.rank), r.bot, f"{r.elo:.0f}" + ("?" if r.provisional else ""), f"[{r.low:.0f}, {r.high:.0f}]", str(r.matches),
                      f"{r.win_rate:.1%}", f"{r.mean_rank:.2f}", last)
    print_table(table, out)


def print_ml_leaderboard(game: str, rows: list[ml_board.MLRow]) -> None:
    """The maximum-likelihood list: rating, 95 % interval, LOS over the next bot."""
    from . import console, print_table

    out = console()
    out.print(f"{game}: maximum likelihood (mean {ml.ANCHOR:.0f})", style="bold", markup=False, highlight=False)
    if not rows:
        out.print("  no rated matches yet")
        return
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for header in ("#", "bot", "rating", "95% interval", "LOS next"):
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)
    for r in rows:
        table.add_row(str(r.rank), r.bot, f"{r.rating:.0f}", f"[{r.low:.0f}, {r.high:.0f}]",
                      "-" if r.los_next is None else f"{r.los_next:.1%}")
    print_table(table, out)


def ml_json(game: str, rows: list[ml_board.MLRow]) -> dict:
    """The maximum-likelihood list for scripts, with its anchor and bootstrap replicas."""
    return {"game": game, "model": "ml", "anchor": ml.ANCHOR, "replicas": ml.REPLICAS,
            "rows": [asdict(r) for r in rows]}


def print_crosstable(game: str, bots: list[str], meetings: dict[tuple[str, str], queries.Meetings]) -> None:
    """Won-drawn-lost of each row's bot against each column's, in the leaderboard's order."""
    from . import console, print_table

    out = console()
    out.print(f"{game}: head to head (won-drawn-lost)", style="bold", markup=False, highlight=False)
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("bot", no_wrap=True)
    for bot in bots:
        table.add_column(bot, justify="right", no_wrap=True)
    for bot in bots:
        cells = []
        for other in bots:
            met = meetings.get((bot, other))
            cells.append("" if bot == other else "-" if met is None else f"{met.wins}-{met.draws}-{met.losses}")
        table.add_row(bot, *cells)
    print_table(table, out)


def leaderboard_json(game: str, rows: list[queries.LeaderboardRow]) -> dict:
    """The leaderboard for scripts: every field of each row, times in ISO 8601 (UTC)."""
    plain = [asdict(r) | {"last_played": r.last_played.isoformat() if r.last_played else None} for r in rows]
    return {"game": game, "rows": plain}


def run(args: argparse.Namespace) -> int:
    game = games.get(args.game).name
    with db.read() as connection:
        if args.model == "ml":
            fitted = ml_board.current(connection, game, args.limit)
            top = [r.bot for r in fitted[:CROSSTABLE_MAX]]
        else:
            rows = queries.leaderboard(connection, game, args.limit)
            top = [r.bot for r in rows[:CROSSTABLE_MAX]]
        meetings = queries.head_to_head(connection, game, top) if args.head_to_head else {}
    if args.json:
        data = ml_json(game, fitted) if args.model == "ml" else leaderboard_json(game, rows)
        if args.head_to_head:
            data["head_to_head"] = [{"bot": bot, "opponent": other} | asdict(met)
                                    for (bot, other), met in sorted(meetings.items())]
        print(json.dumps(data, indent=2))
    else:
        if args.model == "ml":
            print_ml_leaderboard(game, fitted)
        else:
            print_leaderboard(game, rows)
        if args.head_to_head and len(top) > 1:
            print()
            print_crosstable(game, top, meetings)
    return 0
