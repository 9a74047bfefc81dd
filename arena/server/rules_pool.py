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

Workers are spawned, not forked (a fork of a process running gRPC's threads is unsafe), and
only when the first call comes, so a server that never serves a Rules call starts none.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import multiprocessing
from collections.abc import Callable
from dataclasses import dataclass

import pebble

from . import rules_work
from .rules_work import CallResult

Work = Callable[[str, bytes, int], CallResult]


@dataclass(frozen=True)
class PoolLimits:
    """The pool's size and each call's bounds (from the server's settings)."""

    workers: int = 2
    queue: int = 64
    call_seconds: float = 5.0
    cpu_seconds: int = 5
    memory_mb: int = 1024


class RulesPool:
    """Runs Rules calls in worker processes, each under its bounds; ``run`` never raises for
    what a call did, it returns the ``CallResult`` to answer with."""

    def __init__(self, limits: PoolLimits, work: Work = rules_work.call) -> None:
        self.limits = limits
        # ``work`` runs in the workers, so it must be importable there by name; tests pass
        # one that can stall on purpose.
        self.work = work
        self.in_pool = 0  # calls running or waiting for a worker
        self._pool = pebble.ProcessPool(max_workers=limits.workers, initializer=rules_work.start_worker,
                                        initargs=(limits.memory_mb,),
                                        context=multiprocessing.get_context("spawn"))

    async def run(self, method: str, request: bytes) -> CallResult:
        """Run ``method`` on a serialized request in a worker; a call cancelled by its client
        (or by a server shutting down) kills its worker, which the pool replaces."""
        if self.in_pool >= self.limits.workers + self.limits.queue:
            return CallResult("RESOURCE_EXHAUSTED", detail="the Rules service is busy: try again in 1 s")
        self.in_pool += 1
        try:
            future = self._pool.schedule(self.work, args=(method, request, self.limits.cpu_seconds),
                                         timeout=self.limits.call_seconds)
            try:
                return await asyncio.wrap_future(future)
            except concurrent.futures.TimeoutError:
                return CallResult("DEADLINE_EXCEEDED",
                                  detail=f"the call ran past the {self.limits.call_seconds:g} s a Rules call may take")
            except pebble.ProcessExpired:
                return CallResult("RESOURCE_EXHAUSTED",
                                  detail="the call went past the CPU time or memory a Rules call may use")
        finally:
            self.in_pool -= 1

    def close(self) -> None:
        """Stop the workers (calls still running are killed)."""
        self._pool.stop()
        self._pool.join(timeout=5)
