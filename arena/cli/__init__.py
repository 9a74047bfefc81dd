"""The ``arena`` command line. Each sub-command lives in its own module of this package and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` on it."""

from __future__ import annotations

import argparse
import importlib
import sys

# Modules that contribute sub-commands, in the order ``arena --help`` lists them.
COMMAND_MODULES = [
    "games_cmd",
    "play_cmd",
    "demo_cmd",
    "tournament_cmd",
    "leaderboard_cmd",
    "match_cmd",
    "ratings_cmd",
    "worker_cmd",
    "serve_cmd",
    "web_cmd",
    "db_cmd",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description=__doc__.splitlines()[0])
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (KeyError, ValueError) as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
