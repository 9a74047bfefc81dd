"""The ``arena`` command line. Each sub-command lives in its own module of this package and
exposes ``register(subparsers)``, which adds its parser and sets ``func`` on it."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from arena.errors import ArenaError, first_line, outage

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

# What ``arena --help`` says first: whole sentences for the user (this module's docstring is
# for whoever reads the code).
DESCRIPTION = ("The arena, where bots play card games against each other: play a match in the terminal, "
               "run tournaments, read the leaderboards and serve the gateway bots connect to.")

# Modules that contribute sub-commands, in the order ``arena --help`` lists them.
COMMAND_MODULES = [
    "games_cmd",
    "play_cmd",
    "demo_cmd",
    "test_cmd",
    "tournament_cmd",
    "leaderboard_cmd",
    "match_cmd",
    "ratings_cmd",
    "worker_cmd",
    "serve_cmd",
    "web_cmd",
    "db_cmd",
    "completion_cmd",
]

# Examples shown at the end of each command's help (``arena tournament create --help``), by
# the command's words after ``arena``; a command with sub-commands shows theirs. Kept here, in
# one table, so that every command gets one and a test can parse each with the real parser.
EXAMPLES: dict[str, list[str]] = {
    "games": ["arena games", "arena games crazy_eights --json"],
    "play": ["arena play crazy_eights --players 3 --bots heuristic,random --seed 7",
             "arena play durak --human 0 --option pack=52", "arena play crazy_eights --seed 7 --json"],
    "demo": ["arena demo --games crazy_eights,durak --budget 10"],
    "test": ["arena test heuristic search --game durak", "arena test random heuristic --game crazy_eights --json",
             "arena test heuristic search --game yaniv --players 3 --field random --elo1 10",
             "arena test my-bot@1 my-bot@2 --game durak --address 127.0.0.1:50051 --token=$ARENA_BOT_TOKEN"],
    "tournament create": ["arena tournament create --game crazy_eights --bots heuristic,random,random-2 "
                          "--sizes 2,3 --repetitions 4 --seed 1 --run",
                          "arena tournament create --game all --bots heuristic,search --unrated",
                          "arena tournament create --game durak --bots heuristic,random --json",
                          "arena tournament create --game crazy_eights --bots heuristic,random,random-2 "
                          "--sizes 2,3 --repetitions 4 --same-deals-as 1",
                          "arena tournament create --game yaniv --bots my-bot,heuristic --unrated --run "
                          "--address 127.0.0.1:50051 --token $ARENA_ADMIN_TOKEN"],
    "tournament run": ["arena tournament run 1", "arena tournament run 1 --no-wait --json"],
    "tournament status": ["arena tournament status 1", "arena tournament status 1 --json"],
    "tournament list": ["arena tournament list", "arena tournament list --status running --limit 5",
                        "arena tournament list --json"],
    "tournament retry-failed": ["arena tournament retry-failed 1", "arena tournament retry-failed 1 --json"],
    "tournament cancel": ["arena tournament cancel 1", "arena tournament cancel 1 --json"],
    "leaderboard": ["arena leaderboard crazy_eights --limit 10", "arena leaderboard durak --json"],
    "match show": ["arena match show 42", "arena match show 42 --json"],
    "match analyse": ["arena match analyse 42 --seat 0", "arena match analyse 42 --seat 1 --json",
                      "arena match analyse 42 --seat 0 --address 127.0.0.1:50051"],
    "ratings recompute": ["arena ratings recompute --check", "arena ratings recompute",
                          "arena ratings recompute --check --json"],
    "worker": ["arena worker --concurrency 4 --metrics-port 9808",
               "arena worker --live --concurrency 300"],
    "serve": ["arena serve --address 0.0.0.0:50051 --web 0.0.0.0:8080"],
    "bot register": ["arena bot register mybot --owner me@example.org", "arena bot register mybot --json"],
    "bot revoke": ["arena bot revoke mybot", "arena bot revoke mybot --json"],
    "bot new-version": ["arena bot new-version --token $ARENA_BOT_TOKEN", "arena bot new-version mybot-2 --json"],
    "challenge": ["arena challenge crazy_eights mybot house:heuristic --token $ARENA_BOT_TOKEN",
                  "arena challenge durak mybot house:random --address arena.example.org:443 --tls --json",
                  "arena challenge durak mybot house:random --address localhost:50051 --ca cert.pem"],
    "web": ["arena web --address 127.0.0.1:8080"],
    "db upgrade": ["arena db upgrade"],
    "db current": ["arena db current", "arena db current --json"],
    "completion": ["arena completion bash", "arena completion zsh", "arena completion fish"],
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena", description=DESCRIPTION)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    for words, command in commands(parser):
        show_examples(command, examples_for(words))
    return parser


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) \
        -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every sub-command's parser under ``parser`` with its words (``("tournament", "create")``),
    a command before its own sub-commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                yield (*words, name), command
                yield from commands(command, (*words, name))


def examples_for(words: tuple[str, ...]) -> list[str]:
    """The examples of a command, or of its sub-commands when it has none of its own."""
    key = " ".join(words)
    return EXAMPLES.get(key) or [e for k, found in EXAMPLES.items() if k.startswith(key + " ") for e in found]


def show_examples(command: argparse.ArgumentParser, examples: list[str]) -> None:
    if not examples:
        return
    lines = "\n".join(f"  {e}" for e in examples)
    command.epilog = f"{command.epilog}\n\n" if command.epilog else ""
    command.epilog += f"example{'s' if len(examples) > 1 else ''}:\n{lines}"
    # The examples keep their lines; a module's own choice of formatter keeps the rest.
    formatter = command.formatter_class
    if isinstance(formatter, type) and not issubclass(formatter, argparse.RawDescriptionHelpFormatter):
        # A class made at run time, which the type checker cannot follow: its bases make it a HelpFormatter.
        command.formatter_class = cast("type[argparse.HelpFormatter]", type(
            "ExampleHelpFormatter", (argparse.RawDescriptionHelpFormatter, formatter), {}))


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
    from arena.settings import check

    problem = check()  # every ARENA_* setting, once, before the command touches any
    if problem:
        print_error(problem)
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
        # The user's doing or the surroundings' is one line; anything else is a bug, and
        # keeps its traceback.
        if not isinstance(error, ArenaError) and outage(error) is None:
            raise
        print_error(error_line(error))
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


def error_line(error: BaseException) -> str:
    """The one line an error the user is told about gets, naming the service of an outage
    (``database: ...``, ``broker: ...``)."""
    fault = outage(error)
    line = first_line(error)
    return f"{fault.service}: {line}" if fault is not None and fault.service else line


if __name__ == "__main__":
    sys.exit(main())
