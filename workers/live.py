"""Live matches: hundreds of external-bot matches per worker process, on one event loop.

A match with an external bot spends nearly all its time waiting for the bot's next move, yet
on the prefork pool it holds a whole process from its first move to its last: a thousand
live matches would need a thousand processes. With ``ARENA_LIVE_QUEUE`` set, such matches
(and paced house bots) travel on that queue instead, and ``arena worker --live`` consumes it
with Celery's thread pool: each of its ``ARENA_LIVE_MATCHES`` threads carries one task,
claims, leases and records through the store exactly as any task does, and hands the match
itself to the process's one event loop, where every match's moves interleave. House-bot
batches keep the prefork workers and their CPU.

Why the thread pool and a loop rather than gevent or eventlet: no monkey-patching of the
database drivers, and each task keeps Celery's own acknowledgement, retry and shutdown rules.
The thread pool has no time limits; a live match is bounded by its clock instead (move time
and time bank per seat), and its lease covers a worker that dies.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from arena.referee import Clock, MatchResult, Player
from arena.referee.match import run_match
from arena.tournaments import play


class EventLoopThread:
    """An asyncio loop running for ever in a thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-live-loop", daemon=True)
        self.thread.start()

    def run(self, coroutine: Any) -> Any:
        """Run ``coroutine`` on the loop; block this (task) thread until it is done."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


_shared: list[EventLoopThread] = []
_starting = threading.Lock()


def raise_open_files() -> int:
    """Lift this process's soft limit of open files to its hard limit (each live match holds
    a Redis connection; containers often start at a soft 1,024); returns the new limit."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            return target
        except (ValueError, OSError):
            pass
    return soft


# One database connection kept per this many live matches: every task thread claims and
# records through the process's pool, and the supervisor's sweeps must not wait behind them.
MATCHES_PER_CONNECTION = 10


def size_database_pool(matches: int) -> int:
    """Raise this process's ``db_pool`` setting to one connection per ``MATCHES_PER_CONNECTION``
    live matches (a larger setting stands; the process adopts the raised settings); returns
    the size in force."""
    from arena.settings import adopt, load
    from arena.store import db

    settings = load()
    wanted = min(1000, max(settings.db_pool, -(-matches // MATCHES_PER_CONNECTION)))
    if wanted != settings.db_pool:
        adopt(settings.but(db_pool=wanted))
        db.dispose_all()  # engines made before keep their old size
    return wanted


def shared_loop() -> EventLoopThread:
    """The process's one loop for live matches, started on first use."""
    with _starting:
        if not _shared:
            _shared.append(EventLoopThread())
        return _shared[0]


def install() -> EventLoopThread:
    """Make this process play every match on one shared event loop (``arena worker --live``)."""
    loop = shared_loop()
    play.set_match_runner(play_on_loop)
    return loop


def play_on_loop(game: str, players: Sequence[Player], seed: int, options: dict[str, Any] | None = None,
                 clock: Clock | None = None, match_id: str = "") -> MatchResult:
    """``arena.referee.play_match``, but on the process's shared loop."""
    return shared_loop().run(run_match(game, players, seed, options, clock, match_id))
