"""Sending matches to the workers, or playing them here when embedded.

Short house-bot matches travel in batches (``ARENA_BATCH_SIZE`` per task: one task costs
more broker and worker overhead than a whole house-bot match of most games); matches with
an external or paced bot travel one per task so one slow match never holds others back, on
``ARENA_LIVE_QUEUE`` when it is set (``workers.live``).

Embedded, house-bot matches are played in the calling process while they are quick; once a
tournament has taken a second there, what is left goes to a pool of processes, one per core
(``ARENA_EMBEDDED_PROCESSES``), so a tournament of searching bots uses the whole machine.

Following a tournament rides through a database outage: one notice line when it begins,
and the progress carries on when the database is back (``workers.outage``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import sqlalchemy as sa

from arena.settings import adopt, load
from arena.store import db
from arena.store.models import Bot, Match, utcnow
from arena.store.queries import tournament_status
from arena.store.results import finish_if_complete
from arena.tournaments import pending_match_ids

from .outage import ride_out, stderr_notice

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
Notice = Callable[[BaseException], None]

# Embedded: seconds of play in the calling process before the rest goes to a process pool.
# Starting the pool's processes costs about as much, so quick tournaments never start one.
PARALLEL_AFTER = 1.0
# Pools in a row that may die without finishing a match before the tournament stops.
LOST_POOLS = 3


class PlayerProcessLost(ChildProcessError):
    """A process of the embedded pool ended in the middle of its matches (killed, or out of
    memory). ``play_house`` then plays what it left on a fresh pool (a holder gone from this
    machine holds nothing, so nothing waits for its lease to lapse); only pools that keep
    dying without finishing anything stop the tournament, and running it again plays what
    is left."""


def batches(ids: Sequence[int], size: int) -> list[list[int]]:
    """``ids`` cut into lists of at most ``size``."""
    size = max(1, size)
    return [list(ids[i : i + size]) for i in range(0, len(ids), size)]


def split_by_length(match_ids: Sequence[int], url: str | None = None) -> tuple[list[int], list[int]]:
    """(short, long) matches: long ones seat an external or paced bot."""
    match_t, bot_t = Match.__table__, Bot.__table__
    with db.read(url) as connection:
        slow_bots = set(
            connection.execute(sa.select(bot_t.c.id).where((bot_t.c.kind != "house") | (bot_t.c.think > 0))).scalars()
        )
        rows = connection.execute(
            sa.select(match_t.c.id, match_t.c.seating).where(match_t.c.id.in_(list(match_ids)))
        ).all()
    seats = {row.id: row.seating for row in rows}
    short = [m for m in match_ids if not slow_bots.intersection(seats.get(m, []))]
    long = [m for m in match_ids if slow_bots.intersection(seats.get(m, []))]
    return short, long


def check_broker(timeout: float = 3.0) -> None:
    """Raise ``ConnectionError`` (one line) unless the broker answers: checked before anything
    is written or sent, so an unreachable Redis leaves nothing half-made."""
    url = load().redis_url
    if not url:
        return
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)
    try:
        client.ping()
    except redis.RedisError as error:
        where = url.rsplit("@", 1)[-1]  # never print a password
        raise ConnectionError(f"cannot reach Redis at {where}: {error}") from None
    finally:
        client.close()


def mark_sent(match_ids: Sequence[int], url: str | None = None, holder: str | None = None) -> None:
    """Note that the scheduled ``match_ids`` were sent to the workers now; embedded, that
    the process ``holder`` sent them to itself (its queue is in its memory)."""
    match_t = Match.__table__
    values: dict[str, Any] = {"sent_at": utcnow()} | ({"claimed_by": holder} if holder else {})
    with db.transaction(url) as connection:
        for chunk in batches(list(match_ids), 1000):  # bounded IN lists
            connection.execute(match_t.update().where(match_t.c.id.in_(chunk), match_t.c.status == "scheduled")
                               .values(values))


def dispatch(match_ids: Sequence[int], batch_size: int | None = None, progress: Progress | None = None,
             app: Any = None) -> int:
    """Send ``match_ids`` (rows already committed) to the workers; embedded, play them now.
    ``app``: the Celery app to send with (default the one configured at import). Returns
    the number of tasks."""
    from .tasks import play_matches

    config = load()
    short, long = split_by_length(match_ids)
    work = batches(short, batch_size or config.batch_size) + batches(long, 1)
    live_from = len(work) - len(long)  # the long ones go to the live queue, when there is one
    if config.embedded:
        # This process is the queue. Marked sent by it, so that, should it die before playing
        # them, the embedded supervisor knows these were meant to be played and by whom.
        from arena.tournaments.leases import queued_here
        from arena.tournaments.play import worker_name

        with queued_here(match_ids):
            mark_sent(match_ids, holder=worker_name())
            play_here(work, live_from, progress, config.live_matches)
        return len(work)
    # Marked before the send: should the broker refuse or lose the task, the supervisor
    # knows these were meant to be played and sends them again.
    mark_sent(match_ids)
    for number, batch in enumerate(work):
        queue = config.live_queue if config.live_queue and number >= live_from else config.queue
        if app is not None:
            app.send_task(play_matches.name, args=(batch,), queue=queue)
        else:
            play_matches.apply_async(args=(batch,), queue=queue)
    return len(work)


def play_here(work: list[list[int]], live_from: int, progress: Progress | None, concurrency: int) -> None:
    """Embedded: the house batches one after the other, then the live matches (an external or
    paced bot in a seat) up to ``concurrency`` at once on one event loop, as a live worker
    plays them (``workers.live``): one at a time, a round robin of connected bots would wait
    on every bot's every move in turn."""
    from concurrent.futures import ThreadPoolExecutor

    from arena.tournaments.play import using_runner

    from . import live
    from .tasks import play_matches

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
    """Embedded house-bot matches: here, in small batches until they have taken
    ``PARALLEL_AFTER`` seconds all told, then the rest on a pool of processes."""
    from .tasks import play_matches

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
    from arena.tournaments.play import PENDING

    match_t = Match.__table__
    with db.read() as connection:
        return list(connection.execute(
            sa.select(match_t.c.id).where(match_t.c.id.in_(list(match_ids)), match_t.c.status.in_(PENDING))
            .order_by(match_t.c.id)).scalars())


def play_in_processes(work: list[list[int]], processes: int, played: Callable[[list[int]], None]) -> None:
    """``work`` on ``processes`` fresh processes (spawned: they are handed this one's settings,
    not its threads or open connections). On the first error the batches not
    yet started are dropped (they stay unfinished in the store) and the error is raised once
    the running ones end; a process that dies raises ``PlayerProcessLost``."""
    import multiprocessing
    from concurrent.futures import FIRST_EXCEPTION, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

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
    saved = {name: main.__dict__[name] for name in ("__spec__", "__file__") if name in main.__dict__}
    main.__dict__["__spec__"] = None
    main.__dict__.pop("__file__", None)
    try:
        yield
    finally:
        main.__dict__.pop("__spec__", None)
        main.__dict__.update(saved)


def _play_batch(batch: list[int]) -> int:
    """In a pool process: play and record one batch as a task would."""
    from .tasks import play_matches

    return int(play_matches.apply(args=(batch,), throw=True).get())


def wait_for(tournament_id: int, progress: Progress | None = None, timeout: float | None = None,
             poll: float = 0.5, notice: Notice | None = stderr_notice) -> dict:
    """Block until the tournament has no pending match; returns its status. An unreachable
    database is waited out (``notice`` once per outage, ``workers.outage.Outage`` past
    ``ARENA_OUTAGE_SECONDS``)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        status = read_status(tournament_id, notice)
        done = sum(g["done"] + g["failed"] + g["cancelled"] for g in status["games"].values())
        total = sum(g["total"] for g in status["games"].values())
        if progress:
            progress(done, total)
        if status["status"] != "running":
            return status
        if done >= total:
            # Every match is over and the last recorder has not closed it yet (or died before
            # it could): close it here rather than report a finished tournament as running.
            close(tournament_id, notice)
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError(f"tournament {tournament_id}: {done}/{total} after {timeout} s")
        time.sleep(poll)


def close(tournament_id: int, notice: Notice | None = stderr_notice) -> None:
    """Mark the tournament done if nothing of it is pending (see ``finish_if_complete``)."""

    def finish() -> None:
        with db.transaction() as connection:
            finish_if_complete(connection, tournament_id)

    ride_out(finish, "command", notice=notice)


def read_status(tournament_id: int, notice: Notice | None = stderr_notice) -> dict:
    """The tournament's status, waiting out an unreachable database."""

    def read() -> dict:
        with db.read() as connection:
            return tournament_status(connection, tournament_id)

    return ride_out(read, "command", notice=notice)


def run_tournament(tournament_id: int, wait: bool = True, progress: Progress | None = None,
                   batch_size: int | None = None, notice: Notice | None = stderr_notice) -> dict:
    """Dispatch every pending match of a tournament and, if ``wait``, follow it to the end."""
    return run_tournaments([tournament_id], wait, progress, batch_size, notice)[0]


def run_tournaments(tournament_ids: Sequence[int], wait: bool = True, progress: Progress | None = None,
                    batch_size: int | None = None, notice: Notice | None = stderr_notice) -> list[dict]:
    """``run_tournament`` for several tournaments at once: their matches go out together
    (embedded, one pool of processes plays them all). ``progress`` follows the matches
    played here, or, with workers, the one tournament followed."""
    check_broker()
    for tournament_id in tournament_ids:
        close(tournament_id, notice)  # one whose last recording's process died before closing it

    def pending() -> list[int]:
        with db.read() as connection:
            return [m for tournament_id in tournament_ids for m in pending_match_ids(connection, tournament_id)]

    ids = ride_out(pending, "command", notice=notice)
    dispatch(ids, batch_size, progress)
    embedded = load().embedded
    if wait or embedded:
        follow = progress if not embedded and len(tournament_ids) == 1 else None
        return [wait_for(tournament_id, follow, notice=notice) for tournament_id in tournament_ids]
    return [read_status(tournament_id, notice) for tournament_id in tournament_ids]
