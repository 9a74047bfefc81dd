"""The ``arena`` command line. Each sub-command lives in its own module of this package and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` on it."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

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


def console(stderr: bool = False) -> Console:
    """A rich console on stdout (or stderr) as they are at the call: colours and styles only on a
    terminal, no colour where ``NO_COLOR`` is set, and off a terminal no escape codes and no
    wrapping, so that a file or a pipe gets whole lines to grep."""
    from rich.console import Console

    out = Console(stderr=stderr, highlight=False)
    if not out.is_terminal:
        out.width = 10_000
    return out


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
        print_error(one_line(error))
        return 2


def print_table(table: RenderableType, out: Console | None = None) -> None:
    """A rich table as drawn on a terminal; elsewhere plain lines, without the padding rich gives
    the last column (trailing blanks in a file or a pipe help nobody)."""
    out = out or console()
    if out.is_terminal:
        out.print(table)
        return
    with out.capture() as captured:
        out.print(table)
    out.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))
    out.file.flush()


def print_error(message: str) -> None:
    """``arena: message`` on stderr, one line however long (a terminal may fold it, no newline
    is added), the prefix in red on a terminal."""
    from rich.text import Text

    console(stderr=True).print(Text.assemble(("arena:", "bold red"), " ", message), soft_wrap=True)


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
