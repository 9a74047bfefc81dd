"""Where the analyses a server is asked for run: never on its own event loop.

Distributed (``ARENA_REDIS_URL`` set), an analysis is a Celery task (``ANALYSE_MATCH``) that
any worker takes, stopped past ``ARENA_ANALYSIS_SECONDS`` by Celery's time limits. Embedded, it
runs in a process of the server's own (``pebble.ProcessPool``, spawned, one at a time: the
machine's other cores play matches), killed past the same bound. Either way it computes under
its own memory ceiling (``ARENA_ANALYSIS_MEMORY_MB``, ``arena.memory.ceiling``), so one
analysis cannot take the host's memory.

Either way the server remembers what it asked for until it is kept or its time is up, so
that asking again meanwhile queues nothing more, and at most ``ARENA_ANALYSIS_QUEUE`` are
waiting or running at once. An analysis that fails (past its time or its memory, or refused
when it ran) keeps nothing and leaves its reason where the server reads it (in the server's
memory when embedded; in Redis, where the workers are, when distributed): the next request
for it is answered with that reason and clears it, and the one after queues it again."""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from typing import Any

import pebble
import redis
from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded

from arena.errors import ArenaError, first_line
from arena.referee.analysis import AnalysisBudget
from arena.settings import adopt, load
from arena.store.analyses import analyse_match

from .send import send_analysis

log = logging.getLogger(__name__)


class Busy(Exception):
    """As many analyses as the server allows are waiting or running."""


# How long a failure's reason waits in Redis for the server to read it; how many the embedded
# server keeps.
FAILURE_SECONDS = 3600
FAILURES_KEPT = 1000


def compute(match_id: int, seat: int, budget: dict[str, Any]) -> str | None:
    """Compute and keep one analysis (``budget``: ``AnalysisBudget.to_json``), in a Celery
    task or a process of the embedded pool, under the ``analysis_memory_mb`` ceiling. Returns
    None once it is kept, else why it failed (also left in Redis when distributed, see
    ``failure_key``): past its memory or its time, refused (the match unknown, not finished or
    sealed again, no such seat), or a bug."""
    settings = load()
    chosen = AnalysisBudget(**budget)
    try:
        analyse_match(match_id, seat, chosen, memory_mb=settings.analysis_memory_mb)
        return None
    except MemoryError:
        reason = (f"the analysis needed more than the {settings.analysis_memory_mb} MiB of memory an analysis "
                  f"may take (ARENA_ANALYSIS_MEMORY_MB)")
    except SoftTimeLimitExceeded:
        reason = stopped(settings.analysis_seconds)
    except ArenaError as error:
        reason = f"refused: {first_line(error)}"
    except Exception as error:  # noqa: BLE001 - a bug: its trace for the operator, its line for the asker
        log.exception("analysis of match %s seat %s", match_id, seat)
        reason = f"the analysis failed: {first_line(error) or type(error).__name__}"
    log.warning("analysis of match %s seat %s failed: %s", match_id, seat, reason)
    if not settings.embedded:
        client = redis.Redis.from_url(settings.redis_url or "", socket_timeout=5, socket_connect_timeout=5)
        try:
            client.set(failure_key(match_id, seat, chosen), reason, ex=FAILURE_SECONDS)
        finally:
            client.close()
    return reason


def stopped(seconds: float) -> str:
    return f"the analysis took longer than the {seconds:g} s an analysis may take (ARENA_ANALYSIS_SECONDS)"


def failure_key(match_id: int, seat: int, budget: AnalysisBudget) -> str:
    """The Redis key where a worker leaves why an analysis failed."""
    return f"arena:analysis:failed:{budget.key}:{match_id}:{seat}"


class Analyses:
    """The analyses this server asked for, and where they run (see the module's text)."""

    def __init__(self, budget: AnalysisBudget, seconds: float, queue: int) -> None:
        self.budget = budget
        self.seconds = seconds
        self.queue = queue
        self.pending: dict[tuple[int, int], float] = {}  # (match, seat) -> when the ask lapses
        self.failed: dict[tuple[int, int], str] = {}  # embedded: (match, seat) -> why it failed, oldest first
        self.lock = threading.Lock()
        self.app: Celery | None = None
        self.pool: pebble.ProcessPool | None = None

    def __contains__(self, key: object) -> bool:
        """Whether the analysis of ``(match, seat)`` was asked for and is still on its way."""
        with self.lock:
            until = self.pending.get(key)  # type: ignore[call-overload]
            return until is not None and until > time.monotonic()

    def ask(self, match_id: int, seat: int) -> bool:
        """Queue the analysis of ``seat`` in ``match_id`` (checked and not kept: the caller
        saw to it). False when it is already on its way; ``Busy`` when the queue is full."""
        key = (match_id, seat)
        now = time.monotonic()
        with self.lock:
            self.pending = {k: until for k, until in self.pending.items() if until > now}
            if key in self.pending:
                return False
            if len(self.pending) >= self.queue:
                raise Busy(f"{self.queue} analyses are waiting or running: try again later")
            self.pending[key] = now + self.seconds + 30
            self.failed.pop(key, None)  # a reason from before is not this computation's
        try:
            self._run(match_id, seat)
        except BaseException:
            self.done(key)
            raise
        return True

    def done(self, key: tuple[int, int]) -> None:
        with self.lock:
            self.pending.pop(key, None)

    def failure(self, match_id: int, seat: int) -> str | None:
        """Why the last computation of ``(match, seat)`` failed, if it did, told once: the
        reason is cleared with the pending mark, so the next ``ask`` queues it again at once."""
        key = (match_id, seat)
        if load().embedded:
            with self.lock:
                reason = self.failed.pop(key, None)
        else:
            client = redis.Redis.from_url(load().redis_url or "", socket_timeout=5, socket_connect_timeout=5)
            try:
                found = client.getdel(failure_key(match_id, seat, self.budget))
            finally:
                client.close()
            reason = found.decode() if isinstance(found, bytes) else None
        if reason is not None:
            self.done(key)
        return reason

    def _run(self, match_id: int, seat: int) -> None:
        config = load()
        args = (match_id, seat, self.budget.to_json())
        if not config.embedded:
            if self.app is None:
                # Made when first needed: a server that is never asked starts no Celery app.
                from .app import make_app

                self.app = make_app()
            send_analysis(self.app, *args, self.seconds)
            return
        if self.pool is None:
            self.pool = pebble.ProcessPool(max_workers=1, initializer=adopt, initargs=(config,),
                                           context=multiprocessing.get_context("spawn"))
        future = self.pool.schedule(compute, args=args, timeout=self.seconds)
        future.add_done_callback(lambda f: self._finished((match_id, seat), f))

    def _finished(self, key: tuple[int, int], future: Any) -> None:
        try:
            reason = future.result()
        except TimeoutError:
            reason = stopped(self.seconds)
        except Exception as error:  # noqa: BLE001 - the process died or a bug: logged, the asker may ask again
            reason = f"the analysis failed: {first_line(error) or type(error).__name__}"
            log.warning("analysis of match %s seat %s failed: %s", key[0], key[1], reason)
        with self.lock:
            self.pending.pop(key, None)
            if reason is not None:
                self.failed[key] = reason
                while len(self.failed) > FAILURES_KEPT:  # reasons nobody came back for
                    del self.failed[next(iter(self.failed))]

    def close(self) -> None:
        if self.pool is not None:
            self.pool.stop()
            self.pool.join(timeout=5)
        if self.app is not None:
            self.app.close()
