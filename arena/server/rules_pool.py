"""The Rules service's worker processes: a stranger's call never runs on the gateway's loop.

Rules calls run game code on states that anyone may send. They run here, in a bounded pool of
worker processes (``pebble.ProcessPool``), never on the event loop that holds bot streams and
times moves: whatever a call costs, that loop stays free. Each call is bounded three ways:

- wall clock (``ARENA_RULES_CALL_SECONDS``): past it the pool kills the worker and starts a
  fresh one; the call gets ``DEADLINE_EXCEEDED``;
- CPU time (``ARENA_RULES_CPU_SECONDS``) and memory (``ARENA_RULES_MEMORY_MB``), set with
  ``setrlimit`` in the worker (``arena.server.rules_work``): a call past them runs out of
  memory or is killed by the kernel; it gets ``RESOURCE_EXHAUSTED`` and the dead worker is
  replaced;
- waiting (``ARENA_RULES_QUEUE``): past that many calls in the pool, more are refused at once
  with ``RESOURCE_EXHAUSTED`` rather than queued without end.

Workers are spawned, not forked (a fork of a process running gRPC's threads is unsafe), when
the server starts (``warm``), so that a bot's first call during a timed move does not wait for
Python to start and load the games. As with any spawned process, a script that starts the
server must guard its own top level with ``if __name__ == "__main__":`` (the ``arena``
command does). Should the workers fail to start at all, calls get ``UNAVAILABLE`` and the next
call tries a fresh pool.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import multiprocessing
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

import pebble

from . import rules_work
from .rules_work import CallResult

log = logging.getLogger(__name__)

Work = Callable[[str, bytes, int], CallResult]
UNAVAILABLE = CallResult("UNAVAILABLE", detail="the Rules service's workers could not start: try again later")


@dataclass(frozen=True)
class PoolLimits:
    """The pool's size and each call's bounds (from the server's settings)."""

    workers: int = 2
    queue: int = 64
    call_seconds: float = 5.0
    cpu_seconds: int = 5
    memory_mb: int = 256


class RulesPool:
    """Runs Rules calls in worker processes, each under its bounds; ``run`` never raises for
    what a call did, it returns the ``CallResult`` to answer with."""

    def __init__(self, limits: PoolLimits, work: Work = rules_work.call) -> None:
        self.limits = limits
        # ``work`` runs in the workers, so it must be importable there by name; tests pass
        # one that can stall on purpose.
        self.work = work
        self.in_pool = 0  # calls running or waiting for a worker
        self._pool = self._new_pool()

    def _new_pool(self) -> pebble.ProcessPool:
        return pebble.ProcessPool(max_workers=self.limits.workers, initializer=rules_work.start_worker,
                                  initargs=(self.limits.memory_mb,), context=multiprocessing.get_context("spawn"))

    def warm(self) -> None:
        """Start the workers now (they load every game) rather than on the first call."""
        try:
            self._pool.schedule(rules_work.ready)
        except RuntimeError:  # a pool that is already stopped: nothing to warm
            pass

    async def run(self, method: str, request: bytes) -> CallResult:
        """Run ``method`` on a serialized request in a worker; a call cancelled by its client
        (or by a server shutting down) kills its worker, which the pool replaces."""
        if self.in_pool >= self.limits.workers + self.limits.queue:
            return CallResult("RESOURCE_EXHAUSTED", detail="the Rules service is busy: try again in 1 s")
        self.in_pool += 1
        pool = self._pool
        try:
            future = pool.schedule(self.work, args=(method, request, self.limits.cpu_seconds),
                                         timeout=self.limits.call_seconds)
            try:
                return await asyncio.wrap_future(future)
            except concurrent.futures.TimeoutError:
                return CallResult("DEADLINE_EXCEEDED",
                                  detail=f"the call ran past the {self.limits.call_seconds:g} s a Rules call may take")
            except pebble.ProcessExpired:
                return CallResult("RESOURCE_EXHAUSTED",
                                  detail="the call went past the CPU time or memory a Rules call may use")
        except (BrokenProcessPool, RuntimeError):  # the pool itself failed: its workers cannot start
            log.exception("the Rules worker pool failed; the next call starts a fresh one")
            if self._pool is pool:
                self._pool = self._new_pool()
                pool.stop()
            return UNAVAILABLE
        except Exception:  # noqa: BLE001 - a bug of the work function: logged, never sent as text
            log.exception("a Rules call failed in its worker")
            return CallResult("INTERNAL", detail="the Rules service failed on this call")
        finally:
            self.in_pool -= 1

    def close(self) -> None:
        """Stop the workers (calls still running are killed)."""
        self._pool.stop()
        self._pool.join(timeout=5)
