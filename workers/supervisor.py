"""The supervisor: lost matches are sent again within a bounded time, whatever the broker's
visibility timeout, with no operator command.

Every ``ARENA_SUPERVISOR_SECONDS`` the leading supervisor sweeps:

1. **Lapsed leases.** A ``running`` match whose lease lapsed (its worker was killed, hit its
   time limit, lost the database) is scheduled and sent again (``lease_lapsed``).
2. **Sent, with no task.** A ``scheduled`` match sent more than a lease ago (``sent_at``)
   for which no task waits in the queue, and that no live worker reports holding, is sent
   again (``no_task``): its task was lost
   with a Redis that restarted empty, sat in the reserve of a worker killed with it, was
   refused by the broker, or was handed back by a task that had to stop.
3. **Closing.** A running tournament with nothing left pending is closed (its last recorder
   died between recording and closing).

Workers hold tasks the queue no longer shows: reserved, or begun and not yet claimed (a live
worker given a thousand tasks at once claims them over many seconds). So every supervisor in
a worker, leader or not, reports each sweep the match ids of the tasks its worker holds, in a
Redis sorted set scored by time; a worker that dies stops reporting, and a lease later its
tasks count as lost.

A running match held by a process of this machine that exists no more is taken at once,
without waiting for its lease (as a claim does, ``leases.gone_holders``).

``arena worker`` (each worker's main process, not its pool) and ``arena serve`` run one
supervisor each; a Redis key held with a time-to-live of three sweeps elects one leader and
the others stand by. Embedded (no Redis), ``arena serve`` runs the same sweeps without a
broker (``workers.embedded_supervisor``). Several leading at once (a partition, a clock
jump) is harmless: every step is a conditional update, claims skip matches under a live
lease, and recording is exactly once, so a match sent twice is played once. Matches never sent (a tournament created
without ``--run``) are left alone: they wait for their operator.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import timedelta
from typing import Any, cast

import redis
import sqlalchemy as sa
from celery.worker import state

from arena import metrics
from arena.settings import load
from arena.store import db
from arena.store.models import Match, Tournament, utcnow
from arena.store.results import finish_if_complete
from arena.store.statuses import MatchStatus, TournamentStatus
from arena.tournaments import leases
from arena.tournaments.play import worker_name

log = logging.getLogger(__name__)
match_t, tournament_t = Match.__table__, Tournament.__table__

# How a supervisor sends matches again: called with the match ids (scheduled, committed).
# If it has a ``close()``, that is called when the supervisor stops.
Send = Callable[[list[int]], object]

SWEEP_LIMIT = 5000  # matches resent per reason and sweep: a bounded sweep, the next one goes on


def queued_match_ids(client: Any, queues: Iterable[str]) -> set[int]:
    """The match ids of every task waiting in ``queues`` (Celery's messages on Redis: JSON with
    the task's ``[args, kwargs, embed]`` as its body, base64 or plain)."""
    ids: set[int] = set()
    for queue in queues:
        for raw in client.lrange(queue, 0, -1):
            try:
                message = json.loads(raw)
                body = message["body"]
                if message.get("properties", {}).get("body_encoding") == "base64":
                    body = base64.b64decode(body)
                ids |= task_match_ids(json.loads(body)[0])
            except (ValueError, KeyError, IndexError, TypeError):
                continue  # not one of ours
    return ids


def task_match_ids(args: Any) -> set[int]:
    """The match ids a task's arguments name: ``play_matches([ids])``, or one id first."""
    first = args[0] if args else None
    if isinstance(first, list):
        return {m for m in first if isinstance(m, int)}
    return {first} if isinstance(first, int) else set()


def held_match_ids() -> set[int]:
    """The match ids of the tasks this Celery worker process holds, reserved or running."""
    ids: set[int] = set()
    for _ in range(3):  # the consumer changes these sets as we read: try again
        try:
            requests = [*state.reserved_requests, *state.active_requests]
            break
        except RuntimeError:
            continue
    else:
        return ids
    for request in requests:
        try:
            ids |= task_match_ids(request.args)
        except Exception:
            continue  # a request whose arguments cannot be read holds none of ours
    return ids


class RedisLeader:
    """One leader among processes sharing a Redis: whoever holds ``key`` (set to its ``name``,
    with a time-to-live of three ``interval``s, renewed by each ``lead()``). A leader that dies
    stops renewing and another takes over within three intervals."""

    def __init__(self, client: Any, key: str, name: str, interval: float) -> None:
        self.client, self.key, self.name = client, key, name
        self.ttl_ms = max(1000, int(interval * 3000))

    def lead(self) -> bool:
        """Take or keep the leadership; True while this process holds it."""
        if self.client.set(self.key, self.name, nx=True, px=self.ttl_ms):
            return True
        if self.client.get(self.key) == self.name.encode():
            self.client.pexpire(self.key, self.ttl_ms)
            return True
        return False

    def release(self) -> None:
        """Give the leadership up, so another takes over at once."""
        try:
            if self.client.get(self.key) == self.name.encode():
                self.client.delete(self.key)
        except Exception:
            pass  # the key's time-to-live ends it anyway


class BaseSupervisor:
    """The sweeps every supervisor makes, whatever carries its matches; ``sweep()`` once, or
    ``start()`` a thread that sweeps. It is handed how to send matches again (``send``); a
    subclass says how it leads (``lead``), which sent matches have nothing behind them
    (``_orphans``) and how it hands them to ``send`` (``_resend``)."""

    # Sweep as soon as started (else first after one interval).
    sweep_at_start = False

    def __init__(self, send: Send, interval: float, lease_seconds: float, url: str | None = None,
                 name: str | None = None) -> None:
        self.send = send
        self.interval = interval
        self.lease_seconds = lease_seconds
        self.url = url
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._failing = False

    def lead(self) -> bool:
        """Take or keep the leadership; True while this supervisor holds it."""
        raise NotImplementedError

    def report_held(self) -> int:
        """Note what this process holds for others to see; returns how many."""
        return 0

    def _orphans(self, now: Any) -> list[int]:
        """Scheduled matches that were sent and have nothing behind them any more, marked
        sent ``now`` (the caller sends them)."""
        raise NotImplementedError

    def _resend(self, match_ids: list[int]) -> None:
        """Send ``match_ids`` (scheduled, committed) to be played."""
        self.send(match_ids)

    def _release(self) -> None:
        """Give up the leadership and whatever the supervisor holds open."""

    def sweep(self) -> dict[str, int]:
        """One sweep: report what this process holds; then, if this supervisor leads, resend
        lapsed and task-less matches and close finished tournaments. Returns what it did
        (empty when standing by)."""
        self.report_held()
        if not self.lead():
            metrics.SUPERVISOR_SWEEPS.labels(outcome="standby").inc()
            return {}
        now = utcnow()
        done: dict[str, int] = {}
        with db.transaction(self.url) as connection:
            gone = leases.gone_holders(connection, None, worker_name())
            lapsed = (leases.take_lapsed(connection, now, SWEEP_LIMIT, gone, keep=leases.held_here())
                      if self.lease_seconds > 0 or gone else [])
        orphans = self._orphans(now)
        resend = sorted(set(lapsed) | set(orphans))
        if resend:
            self._resend(resend)
            for reason, ids in (("lease_lapsed", lapsed), ("no_task", orphans)):
                if ids:
                    metrics.RESENT.labels(reason=reason).inc(len(ids))
                    log.warning("supervisor: %d matches sent again (%s): %s", len(ids), reason, _brief(ids))
        done["lease_lapsed"], done["no_task"] = len(lapsed), len(orphans)
        done["closed"] = self._close_finished()
        metrics.SUPERVISOR_SWEEPS.labels(outcome="led").inc()
        return done

    def _close_finished(self) -> int:
        pending = sa.select(match_t.c.id).where(match_t.c.tournament_id == tournament_t.c.id,
                                                match_t.c.status.in_(MatchStatus.PENDING))
        with db.read(self.url) as connection:
            open_ids = list(connection.execute(
                sa.select(tournament_t.c.id).where(tournament_t.c.status == TournamentStatus.RUNNING, ~pending.exists())
            ).scalars())
        closed = 0
        for tournament_id in open_ids:
            with db.transaction(self.url) as connection:
                closed += finish_if_complete(connection, tournament_id)
        return closed

    def run(self) -> None:
        """Sweep every interval until ``stop()``; a failing sweep is logged once per spell."""
        first = self.sweep_at_start
        while first or not self._stop.wait(self.interval):
            first = False
            started = time.thread_time()  # what healing costs, on /metrics
            try:
                self.sweep()
            except Exception as error:
                metrics.SUPERVISOR_SWEEPS.labels(outcome="error").inc()
                if not self._failing:
                    log.warning("supervisor: sweep failed, trying again every %.0f s: %s", self.interval,
                                " ".join(str(error).split())[:300])
                self._failing = True
                continue
            finally:
                metrics.HEALING_CPU.labels(part="supervisor").inc(time.thread_time() - started)
            if self._failing:
                log.warning("supervisor: sweeping again")
            self._failing = False

    def start(self) -> BaseSupervisor:
        self._thread = threading.Thread(target=self.run, name="arena-supervisor", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sweeping and give up the leadership, so another takes over at once."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._release()
        close = getattr(self.send, "close", None)
        if close is not None:
            close()


class Supervisor(BaseSupervisor):
    """The supervisor of an arena on Redis: it leads through a Redis key and finds lost tasks
    in its queues; ``send`` sends matches again as Celery tasks (``workers.send.Sender``)."""

    def __init__(self, redis_url: str, queues: Sequence[str], interval: float, lease_seconds: float,
                 url: str | None = None, name: str | None = None, *, send: Send) -> None:
        super().__init__(send, interval, lease_seconds, url, name)
        self.queues = list(queues)
        self.key = f"arena:supervisor:{self.queues[0]}"
        self.held_key = f"arena:held:{self.queues[0]}"
        self.client = redis.Redis.from_url(redis_url, socket_timeout=5, socket_connect_timeout=5)
        self.leader = RedisLeader(self.client, self.key, self.name, interval)

    @classmethod
    def from_settings(cls, send: Send, name: str | None = None) -> Supervisor | None:
        """The supervisor the settings ask for, sending with ``send``; None when embedded or
        turned off."""
        config = load()
        if config.embedded or config.supervisor_seconds <= 0:
            return None
        return cls(config.redis_url or "", config.queues, config.supervisor_seconds, config.lease_seconds,
                   name=name, send=send)

    def lead(self) -> bool:
        """Take or keep the leadership; True while this supervisor holds it."""
        return self.leader.lead()

    def report_held(self) -> int:
        """Note, with the time, the match ids of the tasks this worker holds (reserved or
        running); returns how many. Nothing outside a Celery worker."""
        ids = held_match_ids()
        now = time.time()
        pipe = self.client.pipeline(transaction=False)
        if ids:
            pipe.zadd(self.held_key, dict.fromkeys(map(str, ids), now))  # members are stored as text
        # Forget reports far older than any lease: the set stays as small as the work held.
        pipe.zremrangebyscore(self.held_key, "-inf", now - 10 * max(self.lease_seconds, self.interval))
        pipe.execute()
        return len(ids)

    def _orphans(self, now: Any) -> list[int]:
        """Scheduled matches sent over a lease ago with no task for them in the queue."""
        cutoff = now - timedelta(seconds=max(self.lease_seconds, self.interval))
        stale = (match_t.c.status == MatchStatus.SCHEDULED) & match_t.c.sent_at.is_not(None) & (match_t.c.sent_at < cutoff)
        with db.read(self.url) as connection:
            candidates = list(connection.execute(
                sa.select(match_t.c.id).where(stale).order_by(match_t.c.sent_at).limit(SWEEP_LIMIT)
            ).scalars())
        if not candidates:
            return []
        held_since = time.time() - max(self.lease_seconds, self.interval)
        # Without scores the reply is the members alone (redis-py types every shape of reply).
        held = cast(list[bytes], self.client.zrangebyscore(self.held_key, held_since, "+inf"))
        queued = queued_match_ids(self.client, self.queues) | {int(m) for m in held}
        lost = [m for m in candidates if m not in queued]
        if not lost:
            return []
        with db.transaction(self.url) as connection:
            # Only those still scheduled and still stale: a worker may have claimed some.
            return sorted(connection.execute(
                match_t.update().where(match_t.c.id.in_(lost), stale)
                .values(sent_at=now).returning(match_t.c.id)
            ).scalars())

    def _release(self) -> None:
        self.leader.release()
        self.client.close()


def _brief(ids: Sequence[int], shown: int = 10) -> str:
    head = ", ".join(str(m) for m in ids[:shown])
    return head + (f" and {len(ids) - shown} more" if len(ids) > shown else "")
