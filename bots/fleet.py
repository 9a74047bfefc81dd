"""Many random bots in one process: ``python -m bots.fleet --tokens-file FILE``.

The file holds one bot a line: its token, or its name and token separated by white space
(the name only labels log lines); blank lines and lines starting with ``#`` are skipped.
Keep the file readable by you alone: it holds every bot's token."""

from __future__ import annotations

from pathlib import Path

from arena_bot.aio import Fleet, run_fleet
from arena_bot.cli import challenges, connection, names, parser

from .aio_random_bot import AsyncRandomBot


def read_tokens(path: Path) -> list[tuple[str, str]]:
    """``(name, token)`` pairs from a tokens file; a line without a name is named
    ``bot-<line number>``. ``ValueError`` names the bad line, never its content."""
    bots = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) > 2:
            raise ValueError(f"{path}:{number}: expected 'TOKEN' or 'NAME TOKEN'")
        bots.append((fields[0], fields[1]) if len(fields) == 2 else (f"bot-{number}", fields[0]))
    if not bots:
        raise ValueError(f"{path}: no tokens")
    return bots


def main(argv: list[str] | None = None) -> None:
    options = parser("Random bots, one per token, in one process (asyncio SDK).", AsyncRandomBot.max_matches)
    options.add_argument("--tokens-file", type=Path, required=True,
                         help="one bot a line: TOKEN, or NAME TOKEN")
    options.add_argument("--streams-per-channel", type=int, default=16,
                         help="streams on one connection; the server's ARENA_MAX_STREAMS (default 16)")
    options.add_argument("--seed", type=int, help="seed the bots' choices (bot n gets seed + n)")
    options.add_argument("--games", type=names, default=(), metavar="GAME,...",
                         help="the games the bots play, on the ladder and wherever seated (default every game)")
    args = options.parse_args(argv)
    if args.streams_per_channel < 1:
        options.error("--streams-per-channel must be at least 1")
    try:
        tokens = read_tokens(args.tokens_file)
    except (OSError, ValueError) as error:
        options.error(str(error))
    fleet = Fleet(args.streams_per_channel)
    for n, (name, token) in enumerate(tokens):
        bot = AsyncRandomBot(None if args.seed is None else args.seed + n)
        bot.max_matches = args.max_matches
        bot.games = list(args.games)
        bot.challenges = challenges(args, bot.challenges)
        fleet.add(bot, connection(args, token), name)
    run_fleet(fleet)


if __name__ == "__main__":
    main()
