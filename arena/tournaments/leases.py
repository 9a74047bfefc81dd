"""Leases: a worker's hold on the matches it is playing.

Claiming a match (``play.claim_matches``) gives the worker a lease until ``now +
ARENA_LEASE_SECONDS``; while the batch is played a ``LeaseKeeper`` renews it every third of
that. A worker that dies, is killed by its time limit or loses its database stops renewing,
and once the lease has lapsed the supervisor (``workers.supervisor``) sends the match again.
Embedded (no broker) the same holds for the processes that play matches themselves; the
matches a process has sent itself and not yet claimed wait in its memory, so it marks them
sent by itself (``claimed_by`` on a ``scheduled`` row) and, once it exists no more, the
embedded supervisor plays them (``take_abandoned``, ``workers.embedded_supervisor``).
A second delivery of a match whose lease is live skips it, so a redelivered task never plays
a match another worker is playing; exactly-once recording (``arena.store.results``) covers
the rare race of a lease that lapsed under a slow worker that then records after all.

Clocks: leases are compared with the clock of the machine that reads them, so the workers'
clocks must agree to well under a lease (NTP does).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Collection, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import metrics
from arena.store import db
from arena.store.models import Match, utcnow
from arena.store.statuses import MatchStatus

match_t = Match.__table__
log = logging.getLogger(__name__)

# ``sent_at`` of a match handed back by its worker: long ago, so the supervisor's next sweep
# sends it again without waiting a lease.
HANDED_BACK = datetime(2000, 1, 1, tzinfo=UTC)


def expiry(now: datetime, seconds: float) -> datetime | None:
    """The lease of a claim made at ``now``; None when leases are off (``seconds`` 0)."""
    return now + timedelta(seconds=seconds) if seconds > 0 else None


# Matches a delivery may claim: scheduled ones, and running ones that nobody holds any more
# (lease lapsed or never given, or held by a process gone) or that this very worker holds (its
# own task trying again after an outage). Built once, with the parameters of ``claimable``, so
# that the statements using it are built once too (a claim runs for every match).
CLAIMABLE = (match_t.c.status == MatchStatus.SCHEDULED) | (
    (match_t.c.status == MatchStatus.RUNNING)
    & (match_t.c.lease_until.is_(None) | (match_t.c.lease_until < sa.bindparam("claim_now"))
       | match_t.c.claimed_by.in_(sa.bindparam("claim_holders", expanding=True))))


def claimable(now: datetime, worker: str, gone: Sequence[str] = ()) -> dict[str, Any]:
    """The parameters of ``CLAIMABLE`` for a claim made at ``now`` by ``worker``, with the
    holders in ``gone`` known to be dead."""
    return {"claim_now": now, "claim_holders": [worker, *gone]}


_HOLDERS_HERE = sa.select(match_t.c.claimed_by).distinct().where(
    match_t.c.status == MatchStatus.RUNNING, match_t.c.claimed_by.like(sa.bindparam("host")))
_HOLDERS_HERE_OF = _HOLDERS_HERE.where(match_t.c.id.in_(sa.bindparam("ids", expanding=True)))


def gone_holders(connection: Connection, match_ids: Sequence[int] | None, worker: str) -> list[str]:
    """Holders of running ``match_ids`` (None: of any running match) that were processes of
    this machine and exist no more (a pool process that was killed, an embedded server
    killed and started again): their leases hold nothing, so the work that comes back at
    once need not wait for them to lapse."""
    host = worker.rsplit(":", 1)[0]
    if match_ids is None:
        held = connection.execute(_HOLDERS_HERE, {"host": f"{host}:%"}).scalars()
    else:
        held = connection.execute(_HOLDERS_HERE_OF, {"host": f"{host}:%", "ids": list(match_ids)}).scalars()
    return [holder for holder in held
            if holder != worker and holder.rsplit(":", 1)[0] == host and not _alive(holder.rsplit(":", 1)[1])]


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (ValueError, PermissionError):
        return True  # not ours to judge: wait for the lease
    return True


def renew(connection: Connection, match_ids: Sequence[int], worker: str, seconds: float) -> int:
    """Extend this worker's leases on those of ``match_ids`` it still plays; returns how many."""
    if not match_ids or seconds <= 0:
        return 0
    return connection.execute(
        match_t.update()
        .where(match_t.c.id.in_(list(match_ids)), match_t.c.status == MatchStatus.RUNNING, match_t.c.claimed_by == worker)
        .values(lease_until=expiry(utcnow(), seconds))
    ).rowcount


def hand_back(connection: Connection, match_ids: Sequence[int], worker: str, started: Sequence[int] = ()) -> int:
    """Give up this worker's claim on ``match_ids`` (its task is being stopped): they are
    scheduled again, for the supervisor to send at its next sweep. A match not ``started``
    gets its delivery back, since it was never played."""
    if not match_ids:
        return 0
    mine = (match_t.c.status == MatchStatus.RUNNING) & (match_t.c.claimed_by == worker)
    untouched = [m for m in match_ids if m not in set(started)]
    changed = 0
    for ids, attempts in ((untouched, match_t.c.attempts - 1), (list(started), match_t.c.attempts)):
        if ids:
            changed += connection.execute(
                match_t.update().where(match_t.c.id.in_(ids), mine)
                .values(status=MatchStatus.SCHEDULED, attempts=attempts, lease_until=None, sent_at=HANDED_BACK)
            ).rowcount
    return changed


def take_lapsed(connection: Connection, now: datetime, limit: int, gone: Sequence[str] = (),
                keep: Collection[int] = ()) -> list[int]:
    """Running matches whose lease lapsed before ``now``, or held by a process in ``gone``
    (see ``gone_holders``), put back to scheduled (marked sent now: the caller sends them);
    returns their ids, at most ``limit``. Matches in ``keep`` (this process plays them,
    ``held_here``) are left to it, even should their renewal have come late."""
    lapsed = (match_t.c.status == MatchStatus.RUNNING) & (
        (match_t.c.lease_until < now) | match_t.c.claimed_by.in_(list(gone)))
    if keep:
        lapsed = lapsed & match_t.c.id.not_in(list(keep))
    ids = list(connection.execute(
        sa.select(match_t.c.id).where(lapsed).order_by(match_t.c.id).limit(limit)
    ).scalars())
    if not ids:
        return []
    # The condition again on the newest row version: a match renewed or recorded since the
    # select is left alone.
    taken = connection.execute(
        match_t.update().where(match_t.c.id.in_(ids), lapsed)
        .values(status=MatchStatus.SCHEDULED, lease_until=None, sent_at=now).returning(match_t.c.id)
    ).scalars()
    return sorted(taken)


# Embedded: the matches this process has sent itself and not finished with (its queue, in
# memory), with how many of its dispatches hold each; and those whose dispatches all ended,
# played or not, for the embedded supervisor to look at once (``take_abandoned``).
_queued_lock = threading.Lock()
_queued: dict[int, int] = {}
_left: set[int] = set()
_watched = threading.Event()  # set where an embedded supervisor runs: nobody else reads ``_left``


def watch_abandoned() -> None:
    """From now on, note the matches whose dispatches in this process end (``take_abandoned``
    looks at them once)."""
    _watched.set()


def enqueue_here(match_ids: Sequence[int]) -> None:
    """``match_ids`` wait in this process's own queue from now on: the embedded supervisor
    leaves the ones it sent alone (``take_abandoned``) until ``dequeue_here``."""
    with _queued_lock:
        for match_id in match_ids:
            _queued[match_id] = _queued.get(match_id, 0) + 1


def dequeue_here(match_ids: Sequence[int]) -> None:
    """``match_ids`` leave this process's queue (played or not)."""
    with _queued_lock:
        for match_id in match_ids:
            left = _queued.get(match_id, 0) - 1
            if left > 0:
                _queued[match_id] = left
            else:
                _queued.pop(match_id, None)
                if _watched.is_set():
                    _left.add(match_id)


@contextlib.contextmanager
def queued_here(match_ids: Sequence[int]) -> Iterator[None]:
    """``match_ids`` in this process's own queue while in the block (``enqueue_here``)."""
    enqueue_here(match_ids)
    try:
        yield
    finally:
        dequeue_here(match_ids)


def take_abandoned(url: str | None, worker: str, now: datetime, limit: int) -> list[int]:
    """Embedded: scheduled matches sent by a process of this machine that exists no more, or
    by this very process (``worker``) in a dispatch that ended before playing them, marked
    sent ``now`` by ``worker`` (the caller plays them, and keeps them in its queue meanwhile:
    ``enqueue_here``); returns their ids, at most ``limit``. A sender on
    another machine is not judged from here."""
    host = worker.rsplit(":", 1)[0]
    sent = (match_t.c.status == MatchStatus.SCHEDULED) & match_t.c.sent_at.is_not(None)
    with db.read(url) as connection:  # no write lock while looking
        senders = list(connection.execute(
            sa.select(match_t.c.claimed_by).distinct().where(sent, match_t.c.claimed_by.like(f"{host}:%"))
        ).scalars())
    gone = [s for s in senders
            if s != worker and s.rsplit(":", 1)[0] == host and not _alive(s.rsplit(":", 1)[1])]
    with _queued_lock:
        mine = sorted(m for m in _left if m not in _queued)[:limit]
    if not gone and not mine:
        return []
    taken: list[int] = []
    with db.transaction(url) as connection:
        if gone:
            ids = connection.execute(
                sa.select(match_t.c.id).where(sent, match_t.c.claimed_by.in_(gone)).order_by(match_t.c.id)
                .limit(limit)).scalars()
            # Marked sent by this process at once: until the thread that plays them marks them
            # itself, a later sweep would find them still the gone sender's and take them again.
            taken += connection.execute(
                match_t.update().where(match_t.c.id.in_(list(ids)), sent, match_t.c.claimed_by.in_(gone))
                .values(sent_at=now, claimed_by=worker).returning(match_t.c.id)).scalars()
        for first in range(0, len(mine), 1000):  # bounded IN lists
            chunk = mine[first : first + 1000]
            taken += connection.execute(
                match_t.update().where(match_t.c.id.in_(chunk), sent, match_t.c.claimed_by == worker)
                .values(sent_at=now).returning(match_t.c.id)).scalars()
    with _queued_lock:
        _left.difference_update(mine)  # looked at: played, or taken now
    return sorted(set(taken))


def held_here() -> set[int]:
    """The matches this process plays under a lease (every ``LeaseKeeper`` of it)."""
    with LeaseKeeper._lock:
        return {m for held in LeaseKeeper._held.values() for m in held}


class LeaseKeeper:
    """Holds a batch's leases while it is played: the batch joins the matches this process
    has in play, and one renewal thread per process (per database) extends them all in a
    single statement every third of a lease, however many tasks the process runs at once
    (a live worker plays hundreds). A batch that leaves stops being renewed, even if its
    task failed to hand it back, so its leases lapse and the supervisor takes over."""

    _lock = threading.Lock()
    _held: dict[tuple[str | None, str, float], dict[int, int]] = {}  # (url, worker, seconds) -> id: holds
    _threads: dict[tuple[str | None, str, float], threading.Thread] = {}

    def __init__(self, match_ids: Sequence[int], worker: str, seconds: float, url: str | None = None) -> None:
        self.match_ids = list(match_ids)
        self.key = (url, worker, seconds)

    def __enter__(self) -> LeaseKeeper:
        if self.key[2] <= 0 or not self.match_ids:
            return self
        with self._lock:
            held = self._held.setdefault(self.key, {})
            for match_id in self.match_ids:
                held[match_id] = held.get(match_id, 0) + 1
            thread = self._threads.get(self.key)
            if thread is None or not thread.is_alive():  # none yet, or not in this forked child
                thread = threading.Thread(target=self._renew_all, args=(self.key,), name="arena-lease", daemon=True)
                self._threads[self.key] = thread
                thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self.key[2] <= 0 or not self.match_ids:
            return
        with self._lock:
            held = self._held.get(self.key, {})
            for match_id in self.match_ids:
                left = held.get(match_id, 0) - 1
                if left > 0:
                    held[match_id] = left
                else:
                    held.pop(match_id, None)

    @classmethod
    def _renew_all(cls, key: tuple[str | None, str, float]) -> None:
        url, worker, seconds = key
        failing = False
        while True:
            time.sleep(seconds / 3)
            with cls._lock:
                ids = list(cls._held.get(key, {}))
            if not ids:
                continue
            started = time.thread_time()  # what healing costs, on /metrics
            try:
                with db.transaction(url) as connection:
                    for first in range(0, len(ids), 1000):  # bounded IN lists
                        renew(connection, ids[first : first + 1000], worker, seconds)
                failing = False
            except Exception as error:  # an outage: the leases may lapse, the supervisor resends
                if not failing:
                    log.warning("lease renewal of %d matches failed: %s", len(ids), error)
                failing = True
            finally:
                metrics.HEALING_CPU.labels(part="leases").inc(time.thread_time() - started)
