"""The supervisor of an embedded arena (no Redis): ``arena serve`` heals its own store.

Embedded, there is no broker and no worker: the process that sends a match plays it (the
server's tournament threads, ``arena tournament run``, ``arena demo``). When that process is
killed, its matches stay ``running`` under its dead process id, or ``scheduled`` in a queue
that died with it. The supervisor's guarantees hold all the same, with the same sweeps as
on Redis (``workers.supervisor``), every ``ARENA_SUPERVISOR_SECONDS`` and once at start-up:

1. **Lapsed leases, gone holders.** Embedded claims hold leases too (renewed while played);
   a ``running`` match whose lease lapsed, or whose holder was a process of this machine
   that exists no more (a server killed and started again), is played again here.
2. **Sent, with nothing behind it.** A process marks the matches it sends itself with its
   name (``claimed_by`` on the ``scheduled`` row): one sent by a process of this machine
   that exists no more, or by this server in a dispatch that ended without playing it, is
   played here (``leases.take_abandoned``).
3. **Closing.** A running tournament with nothing left pending is closed.

Matches are played again in this process, on threads of their own, exactly as the server
plays a tournament it was asked for (the ``send`` it is handed: ``workers.pool.play``); a match is still recorded once
(``arena.store.results``), even if the process that held it comes back.

One leader per store: several servers on one SQLite file (or one PostgreSQL database with no
Redis) elect one through a lock the database's host releases when the leader dies
(``arena.store.leader``); the others stand by and take over at their next sweep.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from arena.settings import load
from arena.store.leader import StoreLeader
from arena.tournaments import leases
from arena.tournaments.play import worker_name

from .supervisor import SWEEP_LIMIT, BaseSupervisor, Send, _brief

log = logging.getLogger(__name__)


class EmbeddedSupervisor(BaseSupervisor):
    """A supervisor that leads through a lock on the store and plays what it finds itself."""

    sweep_at_start = True  # a server started again heals what the last one left at once

    def __init__(self, interval: float, lease_seconds: float, url: str | None = None,
                 name: str | None = None, *, send: Send) -> None:
        super().__init__(send, interval, lease_seconds, url, name)
        self.leader = StoreLeader(url or load().database_url)
        leases.watch_abandoned()

    @classmethod
    def from_settings(cls, send: Send, name: str | None = None) -> EmbeddedSupervisor | None:
        """The supervisor the settings ask for, playing with ``send``; None with Redis
        (``workers.supervisor``'s) or turned off (``ARENA_SUPERVISOR_SECONDS=0``)."""
        config = load()
        if not config.embedded or config.supervisor_seconds <= 0:
            return None
        return cls(config.supervisor_seconds, config.lease_seconds, name=name, send=send)

    def lead(self) -> bool:
        return self.leader.lead()

    def _orphans(self, now: Any) -> list[int]:
        return leases.take_abandoned(self.url, worker_name(), now, SWEEP_LIMIT)

    def _resend(self, match_ids: list[int]) -> None:
        # On a thread of its own, as the server plays a tournament: the sweeps go on meanwhile.
        # In this process's queue from now on, so that the next sweep leaves them alone.
        leases.enqueue_here(match_ids)
        threading.Thread(target=self._play, args=(match_ids,), name=f"arena-heal-{match_ids[0]}",
                         daemon=True).start()

    def _play(self, match_ids: list[int]) -> None:
        try:
            self.send(match_ids)
        except Exception as error:
            # What was not played is left to a later sweep (this server's, or another's):
            # its lease lapses, or it is no longer in this process's queue.
            log.warning("supervisor: matches %s not played here: %s", _brief(match_ids),
                        " ".join(str(error).split())[:300])
        finally:
            leases.dequeue_here(match_ids)

    def _release(self) -> None:
        self.leader.release()
