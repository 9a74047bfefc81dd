"""``arena games``: the games, their player counts, options and house bots."""

from __future__ import annotations

import argparse
import json

from arena import games


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("games", help="list games, player counts, options and house bots")
    parser.add_argument("name", nargs="?", help="show one game only")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    listing = [g for g in games.describe_all() if args.name in (None, g["name"])]
    if args.name and not listing:
        games.get(args.name)  # raises with the known names
    if args.json:
        print(json.dumps(listing, indent=2))
        return 0
    for game in listing:
        print(f"{game['name']}  ({game['title']}, {game['min_players']}-{game['max_players']} players)")
        print(f"  house bots: {', '.join(game['bots'])}")
        for name, opt in game["options"].items():
            choices = f" choices={opt['choices']}" if opt["choices"] else ""
            print(f"  --option {name}={json.dumps(opt['default'])}{choices}  {opt['help']}")
        print()
    return 0
