"""Tasks: thin wrappers that take match ids and call ``arena``."""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, OperationalError

from arena.tournaments.play import play_and_record

from .app import app


@app.task(
    name="arena.play_matches",
    autoretry_for=(OperationalError, DBAPIError),
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=4,
)
def play_matches(match_ids: list[int]) -> int:
    """Play and record the scheduled matches ``match_ids`` (each exactly once, whatever
    the retries); returns how many this delivery recorded."""
    return len(play_and_record(match_ids))
