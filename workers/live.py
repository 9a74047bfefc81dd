"""Live matches: hundreds of external-bot matches per worker process, on one event loop.

A match with an external bot spends nearly all its time waiting for the bot's next move, yet
on the prefork pool it holds a whole process from its first move to its last: a thousand
live matches would need a thousand processes. With ``ARENA_LIVE_QUEUE`` set, such matches
(and paced house bots) travel on that queue instead, and ``arena worker --live`` consumes it
into its desk (``LiveDesk``): a few Celery threads take tasks, claim their matches through
the store exactly as any task does and hand them to the process's one event loop, where every
match's moves interleave; a few store threads record them as they end, those that end close
together in one transaction (``Recorder``). Threads and database
connections stay the same whatever the number of matches in flight. House-bot batches keep
the prefork workers and their CPU.

A task is acknowledged once its matches are claimed and handed to the loop, not when they
end: from then on the match's lease, renewed while the loop holds it, is what keeps it, and
a worker that dies lets it lapse for the supervisor to send again (``workers.supervisor``).
The desk takes a task only while it has room (``ARENA_LIVE_MATCHES``), so Celery fetches no
more than the loop can play; a warm shutdown waits for the matches in play to end.

Why a loop rather than gevent or eventlet: no monkey-patching of the database drivers. The
live path has no task time limit; a live match is bounded by its clock instead (move time
and time bank per seat), and its lease covers a worker that dies.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from arena.errors import first_line
from arena.referee import Clock, MatchResult, Player
from arena.referee.loops import new_event_loop
from arena.referee.match import run_match
from arena.tournaments.play import ClaimedBatch, claim, merged

from .outage import Outage, ride_out

log = logging.getLogger(__name__)

# Celery threads of a live worker: each only claims a task's matches and hands them to the
# loop, a few milliseconds of store work, so a few keep the loop fed at any number of matches.
HAND_OVER_THREADS = 4
# Threads that record matches as they end (off the loop).
STORE_THREADS = 4
# Matches that end within GATHER seconds of each other are recorded together, up to
# MOST_AT_ONCE batches in one transaction: a recording's round trips, rating locks and commit
# cost about as much for one match as for eight (measured on PostgreSQL: 4 ms of the worker's
# CPU per match alone, under 1 ms each in eights). At most RECORDINGS_AT_ONCE run at once, one
# store thread kept for the failures.
GATHER = 0.05
MOST_AT_ONCE = 64
RECORDINGS_AT_ONCE = STORE_THREADS - 1


class EventLoopThread:
    """An asyncio loop running for ever in a thread of its own."""

    def __init__(self) -> None:
        self.loop = new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="arena-live-loop", daemon=True)
        self.thread.start()

    def run(self, coroutine: Any) -> Any:
        """Run ``coroutine`` on the loop; block this (task) thread until it is done."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()


_shared: list[EventLoopThread] = []
_starting = threading.RLock()  # install() starts the loop while holding it


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


def size_database_pool() -> int:
    """Raise this process's ``db_pool`` setting to a connection for each thread that claims or
    records, and two more for the lease renewal and the supervisor, so neither queues behind
    them (a larger setting stands; the process adopts the raised settings); returns the size in
    force."""
    from arena.settings import adopt, load
    from arena.store import db

    settings = load()
    wanted = max(settings.db_pool, HAND_OVER_THREADS + STORE_THREADS + 2)
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


class Recorder:
    """Records the desk's finished batches on its store threads, gathering those that end
    close together into one recording (``GATHER``, ``MOST_AT_ONCE``), and closes their
    tournaments. Lives on the desk's loop: every method runs there."""

    def __init__(self, store: ThreadPoolExecutor) -> None:
        self.store = store
        self.waiting: list[tuple[ClaimedBatch, asyncio.Future[list[int]]]] = []
        self.running = 0
        self._timer: asyncio.TimerHandle | None = None

    async def record(self, batch: ClaimedBatch) -> list[int]:
        """Record ``batch`` (with whatever else ends meanwhile); the ids recorded of it."""
        loop = asyncio.get_running_loop()
        recorded: asyncio.Future[list[int]] = loop.create_future()
        self.waiting.append((batch, recorded))
        if len(self.waiting) >= MOST_AT_ONCE:
            self._start()
        elif self._timer is None:
            self._timer = loop.call_later(GATHER, self._start)
        # A waiter cancelled meanwhile leaves its batch here: it is recorded all the same.
        return await recorded

    def _start(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        loop = asyncio.get_running_loop()
        while self.waiting and self.running < RECORDINGS_AT_ONCE:
            group, self.waiting = self.waiting[:MOST_AT_ONCE], self.waiting[MOST_AT_ONCE:]
            self.running += 1
            done = loop.run_in_executor(self.store, record_and_close, [batch for batch, _ in group])
            done.add_done_callback(functools.partial(self._recorded, group))

    def _recorded(self, group: list[tuple[ClaimedBatch, asyncio.Future[list[int]]]],
                  done: asyncio.Future[list[int]]) -> None:
        self.running -= 1
        error = done.exception()
        for batch, recorded in group:
            if recorded.done():
                continue
            if error is not None:
                recorded.set_exception(error)
            else:
                mine = {spec.id for spec in batch.specs}
                recorded.set_result([match_id for match_id in done.result() if match_id in mine])
        if self.waiting:  # they waited for a store thread, not for company: at once
            self._start()


def record_and_close(batches: list[ClaimedBatch]) -> list[int]:
    """Record ``batches`` in one transaction (a match that cannot be recorded fails alone)
    and close their tournaments that have nothing left; the ids recorded. An outage while
    recording is waited out here, where the task would have waited it out; past
    ARENA_OUTAGE_SECONDS the leases lapse and the supervisor sends the matches again."""
    batch = merged(batches)

    def notice(error: BaseException) -> None:
        log.warning("matches %s: database unreachable while recording: %s", [s.id for s in batch.specs],
                    first_line(error))

    recorded = ride_out(batch.record, "live", notice=notice, max_delay=10.0)
    batch.close(recorded)
    return recorded


class LiveDesk:
    """A live worker's matches in play: up to ``matches`` at once on the shared loop, claimed
    by the Celery threads that hand them over, recorded on ``STORE_THREADS`` threads."""

    def __init__(self, matches: int) -> None:
        self.room = threading.Semaphore(matches)
        self.capacity = matches
        self.loop = shared_loop()
        self.store = ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="arena-store")
        self.recorder = Recorder(self.store)
        self._in_play: set[Future[list[int]]] = set()
        self._changed = threading.Condition()

    def hand_over(self, match_ids: Sequence[int]) -> list[int]:
        """Claim ``match_ids`` and start playing them on the loop, once there is room for
        them; returns the ids claimed (the rest are played or held elsewhere). Claiming
        errors (the database out of reach) go up with nothing held."""
        seats = max(1, min(len(match_ids), self.capacity))
        for _ in range(seats):
            self.room.acquire()
        try:
            batch = claim(match_ids)
        except BaseException:
            self._free(seats)
            raise
        if not batch.specs:
            self._free(seats)
            batch.close([])  # tournaments whose last matches failed at the claim
            return []
        future = asyncio.run_coroutine_threadsafe(self._play(batch), self.loop.loop)
        with self._changed:
            self._in_play.add(future)
        future.add_done_callback(lambda done: self._ended(done, seats))
        return [spec.id for spec in batch.specs]

    async def _play(self, batch: ClaimedBatch) -> list[int]:
        """Play the claimed ``batch`` here and record it on the store threads; an outage stops
        it as ``play_and_record`` stops: what finished is recorded, the rest handed back."""
        loop = asyncio.get_running_loop()
        with batch.keeper():
            for spec in batch.specs:
                stage = "setup"
                try:
                    players = batch.players(spec)
                    stage = "play"
                    result = await run_match(spec.game, players, spec.seed, spec.options, spec.clock, str(spec.id))
                except Exception as error:
                    await loop.run_in_executor(self.store, batch.failed, spec, stage, error)
                    continue
                batch.finished.append((spec.id, result))
            return await self.recorder.record(batch)

    def _ended(self, future: Future[list[int]], seats: int) -> None:
        self._free(seats)
        with self._changed:
            self._in_play.discard(future)
            self._changed.notify_all()
        error = future.exception() if not future.cancelled() else None
        if isinstance(error, Outage):
            log.error("live matches given up: %s; their leases lapse and the supervisor sends them again", error)
        elif error is not None:
            log.error("live matches stopped: %s: %s", type(error).__name__, first_line(error))

    def _free(self, seats: int) -> None:
        for _ in range(seats):
            self.room.release()

    def in_play(self) -> int:
        """Batches handed over and not yet recorded."""
        with self._changed:
            return len(self._in_play)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every handed-over match is recorded (a warm shutdown); returns whether
        none is left."""
        with self._changed:
            return self._changed.wait_for(lambda: not self._in_play, timeout)


_desk: list[LiveDesk] = []


def desk() -> LiveDesk | None:
    """This process's live desk (``arena worker --live``), or None."""
    return _desk[0] if _desk else None


def install(matches: int) -> LiveDesk:
    """Make this process a live worker: its tasks hand their matches to a desk of
    ``matches`` on the shared loop, and a warm shutdown waits for them."""
    from celery.signals import worker_shutdown

    with _starting:
        if not _desk:
            _desk.append(LiveDesk(matches))
    worker_shutdown.connect(_drain_on_shutdown, weak=False)
    return _desk[0]


def _drain_on_shutdown(**_: Any) -> None:
    live = desk()
    if live is not None and live.in_play():
        log.info("waiting for %d live batches in play to end", live.in_play())
        live.drain()


def play_on_loop(game: str, players: Sequence[Player], seed: int, options: dict[str, Any] | None = None,
                 clock: Clock | None = None, match_id: str = "") -> MatchResult:
    """``arena.referee.play_match``, but on the process's shared loop."""
    return shared_loop().run(run_match(game, players, seed, options, clock, match_id))
