"""``arena games``: the games, their player counts, options and house bots."""

from __future__ import annotations

import argparse
import json

from rich import box
from rich.table import Table

from arena import games


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("games", help="list games, player counts, options and house bots")
    parser.add_argument("name", nargs="?", help="show one game only")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def games_table(listing: list[dict]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("game", style="bold", no_wrap=True)
    table.add_column("title")
    table.add_column("players", justify="right", no_wrap=True)
    table.add_column("house bots")
    table.add_column("options")
    for game in listing:
        table.add_row(game["name"], game["title"], f"{game['min_players']}-{game['max_players']}",
                      ", ".join(game["bots"]), ", ".join(game["options"]) or "-")
    return table


def options_table(game: dict) -> Table:
    """A game's rule options as ``--option NAME=VALUE`` takes them: the default written as a value."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("--option", style="bold", no_wrap=True)
    table.add_column("choices")
    table.add_column("what it does")
    for name, opt in game["options"].items():
        choices = ", ".join(json.dumps(c) for c in opt["choices"]) or "-"
        table.add_row(f"{name}={json.dumps(opt['default'])}", choices, opt["help"])
    return table


def run(args: argparse.Namespace) -> int:
    from . import console, print_table

    listing = [g for g in games.describe_all() if args.name in (None, g["name"])]
    if args.name and not listing:
        games.get(args.name)  # raises with the known names
    if args.json:
        print(json.dumps(listing, indent=2))
        return 0
    out = console()
    if not args.name:
        print_table(games_table(listing), out)
        out.print("\nA game's options: arena games NAME", markup=False)
        return 0
    for game in listing:
        out.print(f"{game['name']}  ({game['title']}, {game['min_players']}-{game['max_players']} players)",
                  style="bold", markup=False)
        out.print(f"house bots: {', '.join(game['bots'])}", markup=False)
        if game["options"]:
            print_table(options_table(game), out)
    return 0
