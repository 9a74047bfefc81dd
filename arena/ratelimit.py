"""The arena's one rate limiter: events per key (a peer address, a token, a bot) against rates.

Every limit of the arena is counted here, on the ``limits`` library's moving windows: reads of
the web face and the Arena service per peer (``ARENA_WEB_READ_RATE``, ``ARENA_READ_RATE``),
Rules calls per peer and per token (``ARENA_RULES_CALLS_PER_SECOND``, ``ARENA_RULES_BURST``),
failed authentications per peer (``ARENA_AUTH_FAILURES_PER_MINUTE``) and challenges per bot
(``ARENA_CHALLENGES_PER_MINUTE``). A rate is written in the library's notation
(``"20/second;600/minute"``: every one of them holds; empty = no limit).

There is one way to say "past the limit": the whole seconds to wait (at least 1) until the
oldest counted event leaves its window; ``None`` means go ahead. Callers turn it into
``RESOURCE_EXHAUSTED`` ("try again in N s", ``retry-after``) or HTTP 429 with ``Retry-After``.

Counts live in this process's memory, bounded (``BoundedMemoryStorage``), or in Redis when a
limit must be shared by every server (challenges, when the arena has a Redis).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence

from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter

# Timestamps one in-memory limiter keeps, all keys together: past it the least recently
# counted keys are forgotten, so a spray of addresses costs bounded memory (measured: about
# 55 MB when each of 100 000 addresses holds one; less when keys hold many). It holds e.g.
# 25 bots at a full Rules burst of 4000, or 100 000 readers at once.
MAX_ENTRIES = 100_000


class Unavailable(Exception):
    """The count could not be read (its Redis is out of reach)."""


def parse_rates(text: str) -> list[RateLimitItem]:
    """The rates of ``text`` (``"20/second;600/minute"``; empty: none); ``ValueError`` naming
    the notation for anything else."""
    if not text.strip():
        return []
    try:
        return list(parse_many(text))
    except ValueError:
        raise ValueError(f"{text!r} is no rate: write e.g. '20/second;600/minute' (empty = no limit)") from None


def per_minute(events: int) -> list[RateLimitItem]:
    """At most ``events`` in any 60 seconds; ``0``: no limit."""
    return [RateLimitItemPerMinute(events)] if events > 0 else []


def average_with_burst(per_second: float, burst: int) -> list[RateLimitItem]:
    """``burst`` events at once, then ``per_second`` on average; ``per_second`` 0: no limit.

    One moving window of ``burst / per_second`` seconds holding ``burst`` events. The library
    counts windows in whole seconds, so a window that is not one is rounded up (at least one
    second) and holds ``per_second`` times its length: the average stays ``per_second`` and
    the burst grows to what the longer window holds (never less than ``burst``)."""
    if per_second <= 0:
        return []
    window = max(1, math.ceil(round(burst / per_second, 6)))
    return [RateLimitItemPerSecond(max(burst, math.floor(round(per_second * window, 6))), window)]


class BoundedMemoryStorage(MemoryStorage):
    """The library's in-memory storage with a bound on the timestamps it keeps.

    ``MemoryStorage`` keeps every key it has seen (an expired key's list empties but stays) and
    up to a window's worth of timestamps past each limit: under a spray of addresses it grows
    without end. This one keeps each key's list to the limit's length (older timestamps are
    never read again) and forgets the least recently counted keys beyond ``max_entries``
    timestamps in all. A forgotten key starts afresh: the bound errs towards serving."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        super().__init__()
        self.max_entries = max_entries
        self.sizes: OrderedDict[str, int] = OrderedDict()  # key -> timestamps, least recent first
        self.total = 0
        self.guard = threading.Lock()  # the challenge limiter is called from worker threads

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        acquired = super().acquire_entry(key, limit, expiry, amount)
        with self.locks[key]:
            events = self.events.get(key, [])
            del events[limit:]  # newest first: past the limit-th, outside any window it is asked of
            size = len(events)
        with self.guard:
            self.total += size - self.sizes.pop(key, 0)
            self.sizes[key] = size
            while self.total > self.max_entries and len(self.sizes) > 1:
                oldest, dropped = self.sizes.popitem(last=False)
                self.total -= dropped
                with self.locks[oldest]:  # not while the library's expiry thread trims it
                    self.clear(oldest)
        return acquired

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        # A key asked about is in use, refused or not: it is the last to be forgotten.
        with self.guard:
            if key in self.sizes:
                self.sizes.move_to_end(key)
        return super().get_moving_window(key, limit, expiry)

    def reset(self) -> int | None:
        with self.guard:
            self.sizes.clear()
            self.total = 0
        return super().reset()


class RateLimiter:
    """Counts events per key against ``rates`` (text as in ``parse_rates``, or rate items),
    over moving windows: in this process's bounded memory, or in Redis at ``redis_url`` under
    ``prefix`` (every server then shares one count per key)."""

    def __init__(self, rates: str | Sequence[RateLimitItem], *, redis_url: str | None = None,
                 prefix: str = "arena:", max_entries: int = MAX_ENTRIES) -> None:
        self.rates = parse_rates(rates) if isinstance(rates, str) else list(rates)
        self.limiter: MovingWindowRateLimiter | None = None
        if self.rates:  # no storage (nor its expiry thread) without a rate
            store = (RedisStorage(redis_url, key_prefix=f"{prefix}rate", wrap_exceptions=True) if redis_url
                     else BoundedMemoryStorage(max_entries))
            self.limiter = MovingWindowRateLimiter(store)

    @property
    def enabled(self) -> bool:
        return self.limiter is not None

    def wait(self, *keys: str) -> int | None:
        """Without counting anything: ``None`` if one more event of every key is allowed, else
        the whole seconds (at least 1) until it is. Redis out of reach is ``Unavailable``."""
        if self.limiter is None:
            return None
        until = None
        try:
            for key in keys:
                for rate in self.rates:
                    if not self.limiter.test(rate, key):
                        reset = self.limiter.get_window_stats(rate, key).reset_time
                        until = max(until or reset, reset)
        except StorageError as error:
            raise Unavailable(f"the rate limit's Redis did not answer: {error.storage_error}") from None
        return None if until is None else max(1, math.ceil(until - time.time()))

    def hit(self, *keys: str) -> int | None:
        """Count one event for every key and return ``None``; or, if any key is past a rate,
        count nothing and return the whole seconds to wait (as ``wait``)."""
        refused = self.wait(*keys)
        if refused is not None or self.limiter is None:
            return refused
        try:
            for key in keys:
                for rate in self.rates:
                    if not self.limiter.hit(rate, key):  # another server or thread came first
                        return self.wait(*keys) or 1
        except StorageError as error:
            raise Unavailable(f"the rate limit's Redis did not answer: {error.storage_error}") from None
        return None
