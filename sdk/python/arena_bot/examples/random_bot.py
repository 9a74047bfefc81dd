"""The simplest bot: a uniformly random legal action. ``arena-random-bot``, or
``python -m arena_bot.examples.random_bot`` (token from ARENA_BOT_TOKEN)."""

from __future__ import annotations

import random

from .. import cli
from ..sdk import Bot, Turn


class RandomBot(Bot):
    max_matches = 4

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    def act(self, turn: Turn) -> str:
        return self.random.choice(turn.legal_actions)


def main(argv: list[str] | None = None) -> None:
    """Play until interrupted; the options are ``arena_bot.cli``'s."""
    cli.main(RandomBot(), "A bot that plays uniformly random legal actions.", argv)


if __name__ == "__main__":
    main()
