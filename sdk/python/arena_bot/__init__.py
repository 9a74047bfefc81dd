"""The Python bot SDK for the arena (the ``arena-bot`` distribution): subclass ``Bot``,
implement ``act``, call ``run``.

    from arena_bot import Bot, Turn, run

``arena_bot.sdk`` is the threaded SDK, ``arena_bot.aio`` the asyncio one, ``arena_bot.cli`` the
command line the example bots share, ``arena_bot.v1`` the generated protocol code."""

from .sdk import SDK_VERSION, Bot, Challenges, Connection, FinalError, Match, MatchResult, Turn, run

__all__ = ["SDK_VERSION", "Bot", "Challenges", "Connection", "FinalError", "Match", "MatchResult", "Turn", "run"]
