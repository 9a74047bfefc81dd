"""The simplest bot: a uniformly random legal action. ``python -m bots.random_bot``; the same
bot as the SDK's example ``arena_bot.examples.random_bot`` (``arena-random-bot``)."""

from arena_bot.examples.random_bot import RandomBot, main

__all__ = ["RandomBot", "main"]

if __name__ == "__main__":
    main()
