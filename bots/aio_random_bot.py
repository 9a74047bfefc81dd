"""The random bot on the asyncio SDK: ``act`` is a coroutine that runs on the event loop.
``python -m bots.aio_random_bot`` (token from ARENA_BOT_TOKEN)."""

from __future__ import annotations

import random

from arena_bot.aio import AsyncBot, main
from arena_bot.sdk import Turn


class AsyncRandomBot(AsyncBot):
    """A uniformly random legal action, answered by index."""

    max_matches = 4

    def __init__(self, seed: int | None = None) -> None:
        self.random = random.Random(seed)

    async def act(self, turn: Turn) -> int:
        return self.random.randrange(len(turn.legal_actions))


if __name__ == "__main__":
    main(AsyncRandomBot(), "A bot that plays uniformly random legal actions (asyncio SDK).")
