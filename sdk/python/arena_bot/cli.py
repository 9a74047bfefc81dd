"""Command-line plumbing shared by the example bots: address, token, TLS, and logging."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .sdk import Bot, Connection, run


def parser(description: str, max_matches: int) -> argparse.ArgumentParser:
    """The options every bot process shares: ``--address``, ``--ca`` and ``--max-matches``."""
    parsed = argparse.ArgumentParser(description=description)
    parsed.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    parsed.add_argument("--ca", type=Path, help="PEM root certificate: connect with TLS")
    parsed.add_argument("--max-matches", type=int, default=max_matches)
    return parsed


def connection(args: argparse.Namespace, token: str) -> Connection:
    """The ``Connection`` that parsed ``parser`` options describe, for ``token``."""
    ca = args.ca.read_bytes() if args.ca else None
    return Connection(address=args.address, token=token, root_certificates=ca)


def parse(bot: Any, description: str, argv: list[str] | None = None) -> Connection:
    """Parse ``--address``, ``--token`` (default from ARENA_BOT_TOKEN, so it stays out of
    ``ps``), ``--ca`` and ``--max-matches`` (set on ``bot``, a ``Bot`` or an ``AsyncBot``);
    returns the connection."""
    options = parser(description, getattr(bot, "max_matches", 1))
    options.add_argument("--token", default=os.environ.get("ARENA_BOT_TOKEN", ""),
                         help="better set ARENA_BOT_TOKEN: arguments are visible to other users")
    args = options.parse_args(argv)
    bot.max_matches = args.max_matches
    return connection(args, args.token)


def main(bot: Bot, description: str, argv: list[str] | None = None) -> None:
    """Parse the command line (see ``parse``), then play until interrupted."""
    run(bot, parse(bot, description, argv))
