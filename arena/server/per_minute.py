"""Events per key in any minute, with the wait before the next one is allowed.

A moving window from the ``limits`` library: counted in Redis when the arena has one (every
server then shares one count per key), else in this process. The calls block (Redis), so
the servicer makes them in a thread.
"""

from __future__ import annotations

import time

from limits import RateLimitItemPerMinute, storage, strategies
from limits.errors import StorageError


class Unavailable(Exception):
    """The count could not be read (its Redis is out of reach)."""


class PerMinute:
    """At most ``per_minute`` events per key in any 60 seconds; ``0`` = no limit. Keys are
    kept under ``prefix`` in Redis (``redis_url``), so that several arenas may share one."""

    def __init__(self, per_minute: int, redis_url: str | None = None, prefix: str = "arena:") -> None:
        self.per_minute = per_minute
        self.item = RateLimitItemPerMinute(max(1, per_minute))
        store = (storage.RedisStorage(redis_url, key_prefix=f"{prefix}rate", wrap_exceptions=True) if redis_url
                 else storage.MemoryStorage())
        self.limiter = strategies.MovingWindowRateLimiter(store)

    def retry_after(self, key: str) -> float | None:
        """Count one event for ``key`` and return None; or, past the limit, count nothing and
        return the seconds until the oldest event of the window leaves it. Redis out of reach
        is ``Unavailable``."""
        try:
            if self.per_minute <= 0 or self.limiter.hit(self.item, key):
                return None
            reset, _ = self.limiter.get_window_stats(self.item, key)
        except StorageError as error:
            raise Unavailable(f"the rate limit's Redis did not answer: {error.storage_error}") from None
        return max(0.0, reset - time.time())
