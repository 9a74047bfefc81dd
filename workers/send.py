"""Sending matches to the Celery workers, by task name.

Short house-bot matches travel in batches (``ARENA_BATCH_SIZE`` per task: one task costs
more broker and worker overhead than a whole house-bot match of most games); matches with
an external or paced bot travel one per task so one slow match never holds others back, on
``ARENA_LIVE_QUEUE`` when it is set (``workers.live``).

The sender knows the task only by its name on the wire (``PLAY_MATCHES``), as any Celery
client may: it needs neither the task's code nor the worker's modules.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import redis
import sqlalchemy as sa
from celery import Celery

from arena.settings import load
from arena.store import db
from arena.store.models import Bot, Match, utcnow
from arena.store.statuses import MatchStatus

# The task that plays matches, as workers of every version know it (``workers.tasks``).
PLAY_MATCHES = "arena.play_matches"
# The task that analyses one seat of a finished match (``workers.tasks.analyse_match``).
ANALYSE_MATCH = "arena.analyse_match"


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


def plan(match_ids: Sequence[int], batch_size: int | None = None) -> tuple[list[list[int]], int]:
    """The tasks ``match_ids`` travel in: the batches of short matches, then one per long
    match; and the index of the first long one (they go to the live queue, when there is one)."""
    short, long = split_by_length(match_ids)
    work = batches(short, batch_size or load().batch_size) + batches(long, 1)
    return work, len(work) - len(long)


def check_broker(timeout: float = 3.0) -> None:
    """Raise ``ConnectionError`` (one line) unless the broker answers: checked before anything
    is written or sent, so an unreachable Redis leaves nothing half-made."""
    url = load().redis_url
    if not url:
        return
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
            connection.execute(match_t.update().where(match_t.c.id.in_(chunk), match_t.c.status == MatchStatus.SCHEDULED)
                               .values(values))


def send(match_ids: Sequence[int], app: Celery, batch_size: int | None = None) -> int:
    """Send ``match_ids`` (rows already committed) to the workers as ``PLAY_MATCHES`` tasks
    with ``app``; returns the number of tasks."""
    config = load()
    work, live_from = plan(match_ids, batch_size)
    # Marked before the send: should the broker refuse or lose the task, the supervisor
    # knows these were meant to be played and sends them again.
    mark_sent(match_ids)
    for number, batch in enumerate(work):
        queue = config.live_queue if config.live_queue and number >= live_from else config.queue
        app.send_task(PLAY_MATCHES, args=(batch,), queue=queue)
    return len(work)


class Sender:
    """``send`` with an app of its own: a supervisor is handed one to send matches again,
    and it is closed with the supervisor."""

    def __init__(self, app: Celery) -> None:
        self.app = app

    def __call__(self, match_ids: Sequence[int]) -> int:
        return send(match_ids, self.app)

    def close(self) -> None:
        self.app.close()


def send_analysis(app: Celery, match_id: int, seat: int, budget: dict[str, Any], seconds: float) -> None:
    """Ask the workers for the analysis of ``seat`` in the finished ``match_id`` under
    ``budget`` (``AnalysisBudget.to_json``), stopped past ``seconds``."""
    app.send_task(ANALYSE_MATCH, args=(match_id, seat, budget), queue=load().queue,
                  time_limit=seconds + 30, soft_time_limit=seconds)
