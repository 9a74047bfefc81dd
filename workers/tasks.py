"""Tasks: thin wrappers that take match ids and call ``arena``."""

from __future__ import annotations

from typing import Any

from celery.utils.log import get_task_logger
from sqlalchemy.exc import DBAPIError

from arena import metrics
from arena.errors import first_line
from arena.settings import load
from arena.tournaments.play import play_and_record

from . import live
from .analysis import compute
from .app import app
from .outage import Outage, outage_seconds, ride_out
from .send import ANALYSE_MATCH, PLAY_MATCHES

log = get_task_logger(__name__)


@app.task(
    name=PLAY_MATCHES,
    # Database errors that are not an outage (those are waited out below) get a few quick
    # retries: a redelivery replays only what was not recorded.
    autoretry_for=(DBAPIError,),
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=4,
)
def play_matches(match_ids: list[int]) -> int:
    """Play and record the scheduled matches ``match_ids`` (each exactly once, whatever
    the retries); returns how many this delivery recorded. In a live worker the matches are
    claimed and handed to its loop (``workers.live``): it returns how many it handed over.

    An unreachable database is waited out (backoff, up to ``ARENA_OUTAGE_SECONDS``) while
    the task keeps its matches; a match that raises is marked failed and the rest played."""
    limit = outage_seconds()

    def notice(error: BaseException) -> None:
        log.warning("matches %s: database unreachable, retrying for up to %.0f s: %s", match_ids, limit, first_line(error))

    def count_retry() -> None:
        metrics.TASK_RETRIES.labels(task=PLAY_MATCHES).inc()

    desk = live.desk()
    work = (lambda: desk.hand_over(match_ids)) if desk is not None else (lambda: play_and_record(match_ids))
    try:
        return len(ride_out(work, "task", limit, notice, max_delay=10.0, on_retry=count_retry))
    except Outage as error:
        if load().embedded:
            raise  # the caller is right here: it gets the one-line error
        # Not dropped silently: they stay scheduled or running in the store, and whatever
        # resends pending matches (`arena tournament run ID`) plays them.
        log.error("matches %s given up: %s; they stay pending until `arena tournament run` sends them again",
                  match_ids, error)
        return 0


@app.task(name=ANALYSE_MATCH)
def analyse_match(match_id: int, seat: int, budget: dict[str, Any]) -> None:
    """Compute and keep the analysis of ``seat`` in the finished ``match_id`` under ``budget``
    (``AnalysisBudget.to_json``; nothing when it is kept already): ``workers.analysis.compute``."""
    compute(match_id, seat, budget)
