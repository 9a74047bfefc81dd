"""Per-peer rate limits on reads, shared by the web face and the Arena service.

A stranger may read as much as anyone, but not faster than a person or a polite program does:
each peer (its address) gets the rates of one setting, written in the notation of the
``limits`` library (``"20/second;600/minute"``: every one of them holds; empty = no limit).
A refused read learns how many seconds to wait (HTTP ``Retry-After``, gRPC
``RESOURCE_EXHAUSTED`` with the same in its message and trailing metadata).

Counts live in this process's memory (a moving window per peer and rate): the web face and
the gRPC server each count their own readers, which is what bounds each one's work.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


def parse_rates(text: str) -> list[RateLimitItem]:
    """The rates of ``text`` (``"20/second;600/minute"``; empty: none); ``ValueError`` naming
    the notation for anything else."""
    if not text.strip():
        return []
    try:
        return list(parse_many(text))
    except ValueError:
        raise ValueError(f"{text!r} is no rate: write e.g. '20/second;600/minute' (empty = no limit)") from None


class ReadLimiter:
    """Counts reads per peer against ``rates``; ``hit`` says whether one more may go."""

    def __init__(self, rates: str) -> None:
        self.rates = parse_rates(rates)
        # The storage expires old counts from a timer thread: none is started without a rate.
        self.limiter = MovingWindowRateLimiter(MemoryStorage()) if self.rates else None

    @property
    def enabled(self) -> bool:
        return bool(self.rates)

    def hit(self, peer: str) -> int | None:
        """Count one read by ``peer``: ``None`` if allowed, else the whole seconds to wait."""
        if self.limiter is None:
            return None
        for rate in self.rates:
            if not self.limiter.hit(rate, "read", peer):
                reset = self.limiter.get_window_stats(rate, "read", peer).reset_time
                return max(1, math.ceil(reset - time.time()))
        return None
