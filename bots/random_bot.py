"""The simplest bot: a uniformly random legal action. ``python -m bots.random_bot``."""

from __future__ import annotations

import random

from .cli import main
from .sdk import Bot, Turn


class RandomBot(Bot):
    max_matches = 4

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    def act(self, turn: Turn) -> str:
        return self.random.choice(turn.legal_actions)


if __name__ == "__main__":
    main(RandomBot(), "A bot that plays uniformly random legal actions.")
