"""Command-line plumbing shared by the example bots: address, token, TLS, and logging."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from .sdk import Bot, Connection, run


def main(bot: Bot, description: str, argv: list[str] | None = None) -> None:
    """Parse ``--address``, ``--token`` (default from ARENA_BOT_TOKEN, so it stays out of
    ``ps``), ``--ca`` and ``--max-matches``, then play until interrupted."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    parser.add_argument("--token", default=os.environ.get("ARENA_BOT_TOKEN", ""),
                        help="better set ARENA_BOT_TOKEN: arguments are visible to other users")
    parser.add_argument("--ca", type=Path, help="PEM root certificate: connect with TLS")
    parser.add_argument("--max-matches", type=int, default=bot.max_matches)
    args = parser.parse_args(argv)
    bot.max_matches = args.max_matches
    ca = args.ca.read_bytes() if args.ca else None
    run(bot, Connection(address=args.address, token=args.token, root_certificates=ca))
