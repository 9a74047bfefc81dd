"""The threaded Python bot SDK, kept importable as ``bots.sdk``: it lives in the ``arena-bot``
distribution (sdk/python) as ``arena_bot.sdk``."""

from arena_bot.sdk import (
    FINAL_CODES,
    SDK_VERSION,
    Bot,
    Challenges,
    Connection,
    FinalError,
    Match,
    MatchResult,
    Session,
    Turn,
    keep_playing,
    play,
    run,
    run_until_final,
)

__all__ = ["FINAL_CODES", "SDK_VERSION", "Bot", "Challenges", "Connection", "FinalError", "Match", "MatchResult", "Session",
           "Turn", "keep_playing", "play", "run", "run_until_final"]
