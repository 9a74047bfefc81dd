"""Where the analyses a server is asked for run: never on its own event loop.

Distributed (``ARENA_REDIS_URL`` set), an analysis is a Celery task (``ANALYSE_MATCH``) that
any worker takes, stopped past ``ARENA_ANALYSIS_SECONDS`` by Celery's time limits. Embedded, it
runs in a process of the server's own (``pebble.ProcessPool``, spawned, one at a time: the
machine's other cores play matches), killed past the same bound.

Either way the server remembers what it asked for until it is kept or its time is up, so
that asking again meanwhile queues nothing more, and at most ``ARENA_ANALYSIS_QUEUE`` are
waiting or running at once.
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from typing import Any

import pebble
from celery import Celery

from arena.errors import ArenaError, first_line
from arena.referee.analysis import AnalysisBudget
from arena.settings import adopt, load
from arena.store.analyses import analyse_match

from .send import send_analysis

log = logging.getLogger(__name__)


class Busy(Exception):
    """As many analyses as the server allows are waiting or running."""


def compute(match_id: int, seat: int, budget: dict[str, Any]) -> None:
    """Compute and keep one analysis (``budget``: ``AnalysisBudget.to_json``), in a Celery
    task or a process of the embedded pool. A refusal (the match unknown, not finished or
    sealed again, no such seat) is logged: the asker was answered when it asked, and may ask
    again."""
    try:
        analyse_match(match_id, seat, AnalysisBudget(**budget))
    except ArenaError as error:
        log.warning("analysis of match %s seat %s refused: %s", match_id, seat, first_line(error))


class Analyses:
    """The analyses this server asked for, and where they run (see the module's text)."""

    def __init__(self, budget: AnalysisBudget, seconds: float, queue: int) -> None:
        self.budget = budget
        self.seconds = seconds
        self.queue = queue
        self.pending: dict[tuple[int, int], float] = {}  # (match, seat) -> when the ask lapses
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
        try:
            self._run(match_id, seat)
        except BaseException:
            self.done(key)
            raise
        return True

    def done(self, key: tuple[int, int]) -> None:
        with self.lock:
            self.pending.pop(key, None)

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
        self.done(key)
        try:
            future.result()
        except Exception as error:  # noqa: BLE001 - a time-out or a bug: logged, the asker may ask again
            log.warning("analysis of match %s seat %s failed: %s", key[0], key[1], first_line(error) or repr(error))

    def close(self) -> None:
        if self.pool is not None:
            self.pool.stop()
            self.pool.join(timeout=5)
        if self.app is not None:
            self.app.close()
