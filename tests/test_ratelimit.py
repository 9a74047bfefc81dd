"""The arena's one rate limiter (``arena.ratelimit``): every limit (reads, Rules calls, failed
authentications, challenges) is a ``RateLimiter`` over the ``limits`` library's moving windows.

The library reads the wall clock itself, so these tests use real one-second windows."""

from __future__ import annotations

import time
import uuid

import pytest

from arena.ratelimit import (
    BoundedMemoryStorage,
    RateLimiter,
    Unavailable,
    average_with_burst,
    parse_rates,
    per_minute,
)
from tests.support.services import free_port


def test_past_the_limit_it_says_how_many_whole_seconds_to_wait_and_counts_nothing() -> None:
    limiter = RateLimiter("3/second")
    for _ in range(3):
        assert limiter.wait("p") is None and limiter.hit("p") is None
    assert limiter.hit("p") == 1 and limiter.wait("p") == 1
    assert limiter.hit("q") is None  # each key counts alone
    time.sleep(1.1)  # the oldest event leaves the window: the refused ones were never counted
    for _ in range(3):
        assert limiter.hit("p") is None
    assert limiter.hit("p") == 1


def test_checking_counts_nothing_so_a_limit_can_count_failures_only() -> None:
    """The failed-authentication limit: a peer is refused once it has failed N times, however
    often it succeeded or was merely checked."""
    limiter = RateLimiter(per_minute(2))
    for _ in range(10):
        assert limiter.wait("peer") is None  # a call that then authenticates: not counted
    limiter.hit("peer")
    limiter.hit("peer")
    wait = limiter.wait("peer")
    assert wait is not None and 58 <= wait <= 60


def test_an_event_of_several_keys_counts_for_all_or_none() -> None:
    """A Rules call counts against its peer and its token: refused by either, it counts for neither."""
    limiter = RateLimiter("2/minute")
    limiter.hit("token")
    limiter.hit("token")
    assert limiter.hit("peer", "token") is not None
    assert limiter.hit("peer") is None and limiter.hit("peer") is None  # the refusal cost "peer" nothing
    assert limiter.hit("peer") is not None


def test_no_rate_means_no_limit_and_no_storage() -> None:
    for limiter in (RateLimiter(""), RateLimiter(per_minute(0)), RateLimiter(average_with_burst(0, 5))):
        assert not limiter.enabled and limiter.limiter is None
        assert all(limiter.hit("p") is None for _ in range(1000))


def test_rules_burst_and_average_are_one_window_of_whole_seconds() -> None:
    def window(per_second: float, burst: int) -> tuple[int, int]:
        (rate,) = average_with_burst(per_second, burst)
        return rate.amount, rate.get_expiry()

    assert window(2000, 4000) == (4000, 2)  # the defaults: 4000 at once, 2000 a second
    assert window(0.5, 3) == (3, 6)
    assert window(0.1, 3) == (3, 30)  # no rounding error makes it 31
    assert window(2, 5) == (6, 3)  # 2.5 s rounded up: still 2 a second, a burst of 6
    assert window(2000, 100) == (2000, 1)  # at least a second: 2000 a second holds
    assert average_with_burst(0, 5) == []


def test_rates_are_written_in_the_library_notation() -> None:
    assert [str(rate) for rate in parse_rates("20/second;600/minute")] == ["20 per 1 second", "600 per 1 minute"]
    assert parse_rates(" ") == []
    with pytest.raises(ValueError, match="is no rate"):
        parse_rates("twenty a second")


def test_memory_stays_bounded_under_a_spray_of_addresses() -> None:
    """The library's own MemoryStorage keeps every key it has seen; ours keeps at most
    ``max_entries`` timestamps, forgetting the least recently counted keys first."""
    limiter = RateLimiter("50/minute", max_entries=500)
    storage = limiter.limiter.storage if limiter.limiter else None
    assert isinstance(storage, BoundedMemoryStorage)
    for _ in range(60):  # a busy reader, past its limit: its list stays at the limit's length
        limiter.hit("busy")
    for n in range(5000):
        limiter.hit(f"10.0.{n // 256}.{n % 256}")
        if n % 100 == 0:
            limiter.hit("busy")  # still counted recently: not the one forgotten
    assert storage.total <= 500 and len(storage.events) <= 500
    assert sum(len(events) for events in storage.events.values()) <= 500
    assert limiter.hit("busy") is not None  # its count survived the spray


def test_a_limit_in_redis_is_shared_by_every_server(shared_redis: str) -> None:
    prefix = f"test-{uuid.uuid4().hex}:"
    one, other = (RateLimiter(per_minute(2), redis_url=shared_redis, prefix=prefix) for _ in range(2))
    assert one.hit("bot-7") is None and other.hit("bot-7") is None
    wait = one.hit("bot-7")
    assert wait is not None and 58 <= wait <= 60
    assert other.wait("bot-7") is not None and other.hit("bot-8") is None


def test_a_redis_out_of_reach_is_unavailable_not_a_traceback() -> None:
    limiter = RateLimiter(per_minute(2), redis_url=f"redis://127.0.0.1:{free_port()}/0")
    with pytest.raises(Unavailable, match="did not answer"):
        limiter.hit("bot-7")
