"""The ``arena`` command line. Each sub-command lives in its own module of this package and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` on it."""

from __future__ import annotations

import argparse
import importlib
import os
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
    except BrokenPipeError:
        # The reader went away (`arena games | head -1`): stop quietly, and keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as error:
        if not isinstance(error, (KeyError, ValueError)) and not outage(error):
            raise
        print(f"arena: {one_line(error)}", file=sys.stderr)
        return 2


def outage(error: BaseException) -> bool:
    """A fault of the surroundings rather than a bug: the database or the broker cannot be
    reached or read. The user gets one line, not a traceback."""
    import sqlalchemy.exc

    if isinstance(error, (sqlalchemy.exc.SQLAlchemyError, ConnectionError, TimeoutError)):
        return True
    module = type(error).__module__
    return module.startswith(("redis.", "kombu.", "psycopg"))


def one_line(error: BaseException) -> str:
    """The gist of an error on one line (SQLAlchemy's messages run to many, with the SQL)."""
    text = str(error).strip().strip("'\"")
    first = text.splitlines()[0] if text else type(error).__name__
    if type(error).__module__.startswith("sqlalchemy"):
        first = first.split("\n")[0]
        if getattr(error, "orig", None) is not None:
            first = str(error.orig).strip().splitlines()[0] or first  # type: ignore[attr-defined]
        return f"database: {first}"
    if type(error).__module__.startswith(("redis.", "kombu.")):
        return f"broker: {first}"
    return first


if __name__ == "__main__":
    sys.exit(main())
