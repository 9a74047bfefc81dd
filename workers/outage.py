"""Waiting out a database outage instead of failing.

A database that cannot be reached (stopped, restarting, a dropped connection, a SQLite file
locked or unreadable) is a fault of the surroundings, not of the work: a task or a command
that meets one waits with backoff and carries on when the database is back, for at most
``ARENA_OUTAGE_SECONDS`` (default 300) of one outage. Only then does it give up, with one
clear line (``Outage``), never silently.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from typing import TypeVar

from arena import metrics
from arena.errors import first_line, outage

T = TypeVar("T")

NOTICE = "database unreachable, retrying…"


class Outage(ConnectionError):
    """The database stayed unreachable for longer than the outage bound."""


def outage_seconds() -> float:
    """``ARENA_OUTAGE_SECONDS``: how long one outage is waited out before giving up."""
    from arena.settings import load

    return load().outage_seconds


def stderr_notice(error: BaseException) -> None:
    """The default notice: one line on stderr when an outage begins."""
    print(f"arena: {NOTICE} ({first_line(error)})", file=sys.stderr, flush=True)


def ride_out(
    call: Callable[[], T],
    waiter: str,
    limit: float | None = None,
    notice: Callable[[BaseException], None] | None = None,
    first_delay: float = 0.5,
    max_delay: float = 5.0,
    on_retry: Callable[[], None] | None = None,
) -> T:
    """``call()``, called again with backoff while it fails because the database is
    unreachable. ``notice(error)`` is called once when an outage begins; past ``limit``
    seconds (default ``ARENA_OUTAGE_SECONDS``) of one outage, ``Outage`` is raised. Seconds
    waited are counted in ``arena_outage_seconds_total{waiter=...}``. Other errors pass."""
    limit = outage_seconds() if limit is None else limit
    started: float | None = None
    delay = first_delay
    while True:
        try:
            return call()
        except Exception as error:
            fault = outage(error)
            if fault is None or not fault.passing:
                raise
            now = time.monotonic()
            if started is None:
                started = now
                if notice is not None:
                    notice(error)
            waited = now - started
            if waited >= limit:
                raise Outage(f"database unreachable for {waited:.0f} s, giving up: {first_line(error)}") from error
            # Jitter keeps a fleet of workers from reconnecting in one wave.
            pause = min(delay * random.uniform(0.5, 1.0), limit - waited)
            time.sleep(pause)
            metrics.OUTAGE_SECONDS.labels(waiter=waiter).inc(pause)
            if on_retry is not None:
                on_retry()
            delay = min(delay * 2, max_delay)
