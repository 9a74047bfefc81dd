"""Settings from the environment, read when asked (tests and workers change them), validated
by ``arena.settings`` (which also reads the optional ``ARENA_CONFIG`` TOML file).

``ARENA_DATABASE_URL``  SQLAlchemy URL of the store; default a SQLite file ``./var/arena.db``.
                        ``postgresql://...`` URLs use psycopg 3.
``ARENA_REDIS_URL``     Redis for the Celery broker and the bot mailbox; absent means
                        embedded: tasks run in-process and nothing else is needed.
``ARENA_QUEUE``         Celery queue name (default ``arena``).
``ARENA_LIVE_QUEUE``    queue of matches with an external or paced bot, for ``arena worker --live``
                        (default empty: they share ``ARENA_QUEUE``).
``ARENA_LIVE_MATCHES``  live matches one ``arena worker --live`` plays at once (default 200).
``ARENA_EMBEDDED_PROCESSES``  embedded: processes playing house-bot matches at once once a
                        tournament has run for a second (default 0: one per CPU core).
``ARENA_BATCH_SIZE``    house-bot matches per Celery task (default 16; external-bot matches
                        always travel one per task).
``ARENA_VISIBILITY_TIMEOUT``  seconds before Redis redelivers an unacknowledged task
                        (default 3600; must exceed the longest task).
``ARENA_TASK_TIME_LIMIT``     hard time limit of one task in seconds (default 1800).
``ARENA_LEASE_SECONDS``  how long a claim on a match holds without renewal (default 20).
``ARENA_SUPERVISOR_SECONDS``  how often the supervisor sweeps for lost matches (default 5).
``ARENA_MAX_ATTEMPTS``  deliveries of one match before it is marked failed (default 5).
``ARENA_OUTAGE_SECONDS``  how long a task or a following command waits out a database outage
                        (default 300; read by ``workers.outage``).
``ARENA_ELO_K``         Elo K factor (default 32).
``ARENA_DB_POOL``       PostgreSQL connections a process keeps (default 5, as many again at busy
                        moments; a live worker keeps one per ten live matches at least).
``ARENA_METRICS_PORT``  port of a worker's ``/metrics`` (default 9808; 0 disables).
``ARENA_METRICS_ADDRESS``  address a worker's ``/metrics`` listens on (default ``127.0.0.1``:
                        this machine only; ``0.0.0.0`` where a scraper on another host needs it).
``PROMETHEUS_MULTIPROC_DIR``  directory for prefork-safe metrics (set by ``arena worker``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """A snapshot of the arena's environment settings."""

    database_url: str
    redis_url: str | None
    queue: str
    batch_size: int
    visibility_timeout: int
    task_time_limit: int
    max_attempts: int
    lease_seconds: float
    supervisor_seconds: float
    live_queue: str
    live_matches: int
    elo_k: float
    metrics_port: int
    metrics_address: str = "127.0.0.1"
    db_pool: int = 5
    embedded_processes: int = 1

    @property
    def queues(self) -> list[str]:
        """Every queue the arena sends tasks to."""
        return [self.queue, *([self.live_queue] if self.live_queue and self.live_queue != self.queue else [])]

    @property
    def embedded(self) -> bool:
        """True when no Redis is configured: everything runs in this process."""
        return not self.redis_url


def default_database_url() -> str:
    var = Path.cwd() / "var"
    return f"sqlite:///{var / 'arena.db'}"


def settings() -> Settings:
    """The current settings, read from the environment (and ``ARENA_CONFIG``'s file), validated."""
    from arena.settings import load

    model = load()
    return Settings(
        database_url=model.database_url or default_database_url(),
        redis_url=model.redis_url or None,
        queue=model.queue,
        batch_size=model.batch_size,
        visibility_timeout=model.visibility_timeout,
        task_time_limit=model.task_time_limit,
        max_attempts=model.max_attempts,
        lease_seconds=model.lease_seconds,
        supervisor_seconds=model.supervisor_seconds,
        live_queue=model.live_queue,
        live_matches=model.live_matches,
        elo_k=model.elo_k,
        metrics_port=model.metrics_port,
        metrics_address=model.metrics_address or "127.0.0.1",
        db_pool=model.db_pool,
        embedded_processes=model.embedded_processes or cores(),
    )


def cores() -> int:
    """CPU cores this process may run on (a container's share, where the OS tells it)."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1
