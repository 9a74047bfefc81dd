"""Command-line plumbing shared by the example bots: address, token, TLS, and logging."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .sdk import Bot, Challenges, Connection, run


def parser(description: str, max_matches: int) -> argparse.ArgumentParser:
    """The options every bot process shares: ``--address``, ``--ca``, ``--max-matches``,
    ``--every-decision`` and the challenge policy (``--accept-challenges``, ``--challenge-games``, ``--challenge-from``,
    ``--max-challenges``, each defaulting to its ``ARENA_*`` variable)."""
    parsed = argparse.ArgumentParser(description=description)
    parsed.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    parsed.add_argument("--ca", type=Path, help="PEM root certificate: connect with TLS")
    parsed.add_argument("--max-matches", type=int, default=max_matches)
    parsed.add_argument("--every-decision", action="store_true",
                        help="be asked for decisions with a single legal action too "
                             "(by default the referee applies them and lists them in the next turn)")
    policy = parsed.add_argument_group("challenges from other bots (declined unless accepted)")
    policy.add_argument("--accept-challenges", action="store_true",
                        default=os.environ.get("ARENA_ACCEPT_CHALLENGES") == "1",
                        help="accept challenges from other bots (default ARENA_ACCEPT_CHALLENGES=1)")
    policy.add_argument("--challenge-games", type=names, metavar="GAME,...",
                        default=os.environ.get("ARENA_CHALLENGE_GAMES", ""),
                        help="only in these games (default ARENA_CHALLENGE_GAMES, else every game)")
    policy.add_argument("--challenge-from", type=names, metavar="BOT,...",
                        default=os.environ.get("ARENA_CHALLENGE_FROM", ""),
                        help="only from these bots (default ARENA_CHALLENGE_FROM, else any bot)")
    policy.add_argument("--max-challenges", type=int, metavar="N", default=os.environ.get("ARENA_MAX_CHALLENGES", "1"),
                        help="challenges at once, beside --max-matches (default ARENA_MAX_CHALLENGES, else 1)")
    return parsed


def names(text: str) -> tuple[str, ...]:
    """``"a, b"`` -> ``("a", "b")``."""
    return tuple(name.strip() for name in text.split(",") if name.strip())


def challenges(args: argparse.Namespace, default: Challenges) -> Challenges:
    """The bot's challenge policy: ``default`` (the bot's own), unless the options accept."""
    if not args.accept_challenges:
        return default
    return Challenges(accept=True, games=args.challenge_games, from_bots=args.challenge_from,
                      max_at_once=args.max_challenges)


def connection(args: argparse.Namespace, token: str) -> Connection:
    """The ``Connection`` that parsed ``parser`` options describe, for ``token``."""
    ca = args.ca.read_bytes() if args.ca else None
    return Connection(address=args.address, token=token, root_certificates=ca)


def parse(bot: Any, description: str, argv: list[str] | None = None) -> Connection:
    """Parse ``--address``, ``--token`` (default from ARENA_BOT_TOKEN, so it stays out of
    ``ps``), ``--ca``, ``--max-matches``, ``--every-decision`` and the challenge policy (set on ``bot``, a ``Bot`` or
    an ``AsyncBot``); returns the connection."""
    options = parser(description, getattr(bot, "max_matches", 1))
    options.add_argument("--token", default=os.environ.get("ARENA_BOT_TOKEN", ""),
                         help="better set ARENA_BOT_TOKEN: arguments are visible to other users")
    args = options.parse_args(argv)
    if args.max_matches < 1 or args.max_challenges < 1:
        options.error("--max-matches and --max-challenges must be at least 1")
    bot.max_matches = args.max_matches
    if args.every_decision:
        bot.every_decision = True
    bot.challenges = challenges(args, getattr(bot, "challenges", Challenges()))
    return connection(args, args.token)


def main(bot: Bot, description: str, argv: list[str] | None = None) -> None:
    """Parse the command line (see ``parse``), then play until interrupted."""
    run(bot, parse(bot, description, argv))
