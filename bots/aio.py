"""The asyncio Python bot SDK, kept importable as ``bots.aio``: it lives in the ``arena-bot``
distribution (sdk/python) as ``arena_bot.aio``."""

from arena_bot.aio import (
    AIO_SDK_VERSION,
    STREAMS_PER_CHANNEL,
    AsyncBot,
    AsyncSession,
    ChannelPool,
    Connection,
    FinalError,
    Fleet,
    Match,
    MatchResult,
    Turn,
    in_thread,
    main,
    play,
    play_many,
    run,
    run_fleet,
)

__all__ = ["AIO_SDK_VERSION", "STREAMS_PER_CHANNEL", "AsyncBot", "AsyncSession", "ChannelPool", "Connection",
           "FinalError", "Fleet", "Match", "MatchResult", "Turn", "in_thread", "main", "play", "play_many", "run",
           "run_fleet"]
