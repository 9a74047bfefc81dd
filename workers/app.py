"""The Celery app, configured from ``arena.settings`` when imported.

No loss and no double counting: tasks are acknowledged only after they finish (late acks)
and handed back if the worker process dies (reject on worker lost); a worker takes one
task at a time (prefetch 1); Redis redelivers a task nobody acknowledged after the
visibility timeout, which must exceed the longest task; hard and soft time limits stop a
stuck task; every match is idempotent on its own, so any redelivery is harmless; a match
delivered too often is marked failed (see ``arena.tournaments.play.claim_matches``).

Embedded (no ``ARENA_REDIS_URL``): an in-memory broker and eager execution, so the same
tasks run in the calling process.

The app knows its tasks by name: a worker imports them (``include``), a sender names them
(``workers.send``). A worker's main process runs a supervisor (``workers.supervisor``) that
sends lost matches again with an app of its own.
"""

from __future__ import annotations

import os

from celery import Celery, signals

from arena import metrics
from arena.settings import load
from arena.store import db

from .send import Sender
from .supervisor import BaseSupervisor, Supervisor


def configure(app: Celery) -> Celery:
    """Apply the arena's settings to ``app`` (reads the environment now)."""
    config = load()
    app.conf.update(
        broker_url=config.redis_url or "memory://",
        task_always_eager=config.embedded,
        task_eager_propagates=True,
        task_ignore_result=True,
        result_backend=None,
        task_serializer="json",
        accept_content=["json"],
        task_default_queue=config.queue,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        # A task whose worker died comes back once older than the visibility timeout, at the
        # next sweep of the unacknowledged tasks: one every 10 s rather than kombu's default
        # of every tenth tick (~100 s), for one cheap Redis read per worker.
        broker_transport_options={"visibility_timeout": config.visibility_timeout,
                                  "unacked_restore_interval": 10, "unacked_restore_throttle": 1},
        task_time_limit=config.task_time_limit,
        task_soft_time_limit=soft_time_limit(config.task_time_limit),
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
        worker_send_task_events=False,
    )
    return app


def soft_time_limit(hard: int) -> float:
    """When a task is asked to stop (it records what it finished and hands the rest back):
    30 s before the hard limit, or a quarter of it before when the limit is short."""
    return max(0.5, hard - min(30.0, hard / 4))


def make_app() -> Celery:
    """A new Celery app with the arena's current settings (tests make one per Redis)."""
    return configure(Celery("arena", include=["workers.tasks"]))


app = make_app()


def supervisor_from_settings(name: str | None = None) -> Supervisor | None:
    """The supervisor the settings ask for (None when embedded or turned off), sending with
    an app of its own, configured from the settings now (not at import)."""
    sender = Sender(make_app())
    supervisor = Supervisor.from_settings(sender, name)
    if supervisor is None:
        sender.close()
    return supervisor


@signals.worker_init.connect
def _serve_metrics(**_: object) -> None:
    # In the main worker process, before the pool forks: one /metrics per worker machine
    # process, summing what every pool child wrote.
    port = load().metrics_port
    if port:
        metrics.serve(port)


@signals.worker_process_shutdown.connect
def _forget_child(pid: int | None = None, **_: object) -> None:
    metrics.process_exited(pid or os.getpid())


@signals.task_retry.connect
def _count_retry(sender=None, **_: object) -> None:
    metrics.TASK_RETRIES.labels(task=getattr(sender, "name", "unknown")).inc()


@signals.worker_process_init.connect
def _fresh_connections(**_: object) -> None:
    # A forked pool child must not share its parent's database sockets.
    db.dispose_all()


_supervisor: list[BaseSupervisor] = []  # this worker's supervisor, once it runs


@signals.worker_ready.connect
def _start_supervisor(**_: object) -> None:
    # In the main worker process, so that it lives as long as the worker, whatever its pool does.
    supervisor = supervisor_from_settings()
    if supervisor is not None:
        _supervisor.append(supervisor.start())


@signals.worker_shutdown.connect
def _stop_supervisor(**_: object) -> None:
    while _supervisor:
        _supervisor.pop().stop()
