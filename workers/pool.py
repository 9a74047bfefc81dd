"""Embedded (no Redis): playing matches in the calling process, and on a pool of processes.

House-bot matches are played in the calling process while they are quick; once a tournament
has taken a second there, what is left goes to a pool of processes, one per core
(``ARENA_EMBEDDED_PROCESSES``), so a tournament of searching bots uses the whole machine.
Matches with an external or paced bot are played on one event loop, as a live worker plays
them (``workers.live``).
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import sqlalchemy as sa

from arena.settings import adopt, load
from arena.store import db
from arena.store.models import Match
from arena.store.statuses import MatchStatus
from arena.tournaments.leases import queued_here
from arena.tournaments.play import using_runner, worker_name

from . import live
from .send import batches, mark_sent, plan
from .tasks import play_matches

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]

# Seconds of play in the calling process before the rest goes to a process pool. Starting
# the pool's processes costs about as much, so quick tournaments never start one.
PARALLEL_AFTER = 1.0
# Pools in a row that may die without finishing a match before the tournament stops.
LOST_POOLS = 3


class PlayerProcessLost(ChildProcessError):
    """A process of the embedded pool ended in the middle of its matches (killed, or out of
    memory). ``play_house`` then plays what it left on a fresh pool (a holder gone from this
    machine holds nothing, so nothing waits for its lease to lapse); only pools that keep
    dying without finishing anything stop the tournament, and running it again plays what
    is left."""


def play(match_ids: Sequence[int], batch_size: int | None = None, progress: Progress | None = None) -> int:
    """Play ``match_ids`` (rows already committed) here, in the batches a worker would get
    them in; returns the number of batches."""
    work, live_from = plan(match_ids, batch_size)
    # This process is the queue. Marked sent by it, so that, should it die before playing
    # them, the embedded supervisor knows these were meant to be played and by whom.
    with queued_here(match_ids):
        mark_sent(match_ids, holder=worker_name())
        play_here(work, live_from, progress, load().live_matches)
    return len(work)


def play_here(work: list[list[int]], live_from: int, progress: Progress | None, concurrency: int) -> None:
    """The house batches one after the other, then the live matches (an external or paced
    bot in a seat) up to ``concurrency`` at once on one event loop, as a live worker plays
    them (``workers.live``): one at a time, a round robin of connected bots would wait on
    every bot's every move in turn."""
    total, done, lock = sum(map(len, work)), [0], threading.Lock()

    def played(batch: list[int]) -> None:
        with lock:
            done[0] += len(batch)
            if progress:
                progress(done[0], total)

    def play_live(batch: list[int]) -> None:
        with using_runner(live.play_on_loop):
            play_matches.apply(args=(batch,), throw=True)
        played(batch)

    play_house([m for batch in work[:live_from] for m in batch], played)
    rest = work[live_from:]
    if rest:
        with ThreadPoolExecutor(max_workers=max(1, min(len(rest), concurrency)), thread_name_prefix="arena-live") as pool:
            for future in [pool.submit(play_live, batch) for batch in rest]:
                future.result()  # the first error, once all have ended


def play_house(match_ids: list[int], played: Callable[[list[int]], None]) -> None:
    """House-bot matches: here, in small batches until they have taken ``PARALLEL_AFTER``
    seconds all told, then the rest on a pool of processes."""
    config = load()
    processes = config.embedded_processes
    # With a pool to come, small enough batches that its processes share the work evenly;
    # never more than ``ARENA_BATCH_SIZE`` (one claim and one record per batch keep quick
    # matches cheap).
    size = config.batch_size if processes < 2 else max(1, min(config.batch_size, -(-len(match_ids) // (4 * processes))))
    work = batches(match_ids, size)
    started = time.monotonic()
    while work:
        batch = work.pop(0)
        play_matches.apply(args=(batch,), throw=True)
        played(batch)
        if processes > 1 and len(work) > 1 and time.monotonic() - started >= PARALLEL_AFTER:
            break
    stalled = 0
    while work:
        try:
            play_in_processes(work, min(processes, len(work)), played)
            return
        except PlayerProcessLost:
            # What the dead process held is unfinished and claimable again (its holder is
            # gone from this machine): a fresh pool plays what is left. A match that keeps
            # killing its process is failed by ``ARENA_MAX_ATTEMPTS``; a pool that dies before
            # finishing anything, again and again, is given up.
            before = sum(map(len, work))
            work = batches(unfinished([m for batch in work for m in batch]), size)
            stalled = stalled + 1 if sum(map(len, work)) == before else 0
            if stalled >= LOST_POOLS:
                raise
            log.warning("a process playing matches ended before them; %d left for a fresh pool",
                        sum(map(len, work)))


def unfinished(match_ids: Sequence[int]) -> list[int]:
    """Those of ``match_ids`` not yet finished, in order."""
    match_t = Match.__table__
    with db.read() as connection:
        return list(connection.execute(
            sa.select(match_t.c.id).where(match_t.c.id.in_(list(match_ids)), match_t.c.status.in_(MatchStatus.PENDING))
            .order_by(match_t.c.id)).scalars())


def play_in_processes(work: list[list[int]], processes: int, played: Callable[[list[int]], None]) -> None:
    """``work`` on ``processes`` fresh processes (spawned: they are handed this one's settings,
    not its threads or open connections). On the first error the batches not
    yet started are dropped (they stay unfinished in the store) and the error is raised once
    the running ones end; a process that dies raises ``PlayerProcessLost``."""
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=processes, mp_context=context, initializer=adopt, initargs=(load(),)) as pool:
        try:
            with _main_left_alone():  # the processes start as the first tasks are submitted
                futures = {pool.submit(_play_batch, batch): batch for batch in work}
            remaining = set(futures)
            while remaining:
                done, remaining = wait(remaining, return_when=FIRST_EXCEPTION)
                for future in done:
                    future.result()
                    played(futures[future])
        except BrokenProcessPool:
            raise PlayerProcessLost(
                "a process playing matches ended before they did; the tournament's unfinished matches "
                "stay in the store: run it again to play them") from None
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise


@contextlib.contextmanager
def _main_left_alone() -> Iterator[None]:
    """A spawned process runs the calling script's top level again unless the script guards
    it with ``if __name__ == "__main__"``, and a script that calls ``run_tournament`` unguarded
    would start a tournament in every process. The pool's processes need nothing from the
    script (they import ``workers`` by name), so it is hidden from them while they start."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    saved: dict[str, Any] = {name: main.__dict__[name] for name in ("__spec__", "__file__") if name in main.__dict__}
    main.__dict__["__spec__"] = None
    main.__dict__.pop("__file__", None)
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


def _play_batch(batch: list[int]) -> int:
    """In a pool process: play and record one batch as a task would."""
    return int(play_matches.apply(args=(batch,), throw=True).get())
