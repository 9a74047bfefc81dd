"""Prometheus metrics of the match pipeline.

Prefork-safe: when ``PROMETHEUS_MULTIPROC_DIR`` is set (``arena worker`` sets it) every pool
process writes its samples to files there and the worker's ``/metrics`` endpoint sums them.
No per-bot labels: per-bot figures live in SQL. Queue depth is read from Redis at scrape
time.
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily

MATCHES = Counter("arena_matches", "Matches finished, by game and status (done, duplicate, failed)",
                  ["game", "status"])
MATCH_SECONDS = Histogram("arena_match_duration_seconds", "Time to play one match", ["game"],
                          buckets=(0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000))
DECISIONS = Histogram("arena_match_decisions", "Decisions per match", ["game"],
                      buckets=(10, 30, 100, 300, 1000, 3000, 10000, 30000))
DECISION_SECONDS = Histogram("arena_decision_seconds", "Time a seat took to decide, as the referee measured it",
                             ["game"], buckets=(0.0001, 0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30))
FAULTS = Counter("arena_decision_faults", "Decisions that earned a strike, by code", ["game", "code"])
FORFEITS = Counter("arena_forfeits", "Seats that forfeited a match", ["game"])
TASK_RETRIES = Counter("arena_task_retries", "Celery tasks retried after a database error", ["task"])
MATCH_FAILURES = Counter("arena_match_failures",
                         "Matches marked failed, by game and reason (error: raised while set up or played; "
                         "attempts: delivered more than ARENA_MAX_ATTEMPTS times)", ["game", "reason"])
OUTAGE_SECONDS = Counter("arena_outage_seconds",
                         "Seconds spent waiting for an unreachable database instead of failing, by who waited "
                         "(task: a worker's task; follow: a command following a tournament)", ["waiter"])

RESENT = Counter("arena_matches_resent",
                 "Matches the supervisor sent to the workers again, by reason (lease_lapsed: the worker playing "
                 "it stopped renewing its lease; no_task: sent, but no task for it is queued any more)",
                 ["reason"])
HEALING_CPU = Counter("arena_healing_cpu_seconds",
                      "CPU time the self-healing machinery spends in its own threads, by part (supervisor: "
                      "its sweeps, leading or standing by; leases: renewing the leases of the matches in play)",
                      ["part"])
SUPERVISOR_SWEEPS = Counter("arena_supervisor_sweeps",
                            "Sweeps of the supervisor, by outcome (led: this process is the leader and swept; "
                            "standby: another process leads; error: the database or Redis could not be used)",
                            ["outcome"])

# Every label made up front: a counter's first increase then shows in ``increase()``.
for _reason in ("lease_lapsed", "no_task"):
    RESENT.labels(reason=_reason)
for _outcome in ("led", "standby", "error"):
    SUPERVISOR_SWEEPS.labels(outcome=_outcome)
for _part in ("supervisor", "leases"):
    HEALING_CPU.labels(part=_part)

LADDER_PASSES = Counter("arena_ladder_passes",
                        "Passes of the ladder, by outcome (led: this server leads and paired the connected "
                        "bots; standby: another server leads; error: the database or Redis could not be used)",
                        ["outcome"])
LADDER_SCHEDULED = Counter("arena_ladder_scheduled_matches", "Matches the ladder wrote and sent (whole groups)")
LADDER_CPU = Counter("arena_ladder_cpu_seconds",
                     "CPU time of the ladder's passes in this process: pairing, writing and sending the groups "
                     "(reading the mailbox runs on the server's loop and counts with the gateway)")
for _outcome in ("led", "standby", "error"):
    LADDER_PASSES.labels(outcome=_outcome)

FAULT_CODES = ("timeout", "illegal", "malformed", "disconnected")


def match_failed(game: str, reason: str) -> None:
    """Count one match marked ``failed`` (``reason``: ``error`` or ``attempts``)."""
    MATCHES.labels(game=game, status="failed").inc()
    MATCH_FAILURES.labels(game=game, reason=reason).inc()


def observe_match(result: Any, status: str) -> None:
    """Count one played match (``result`` is an ``arena.referee.MatchResult``)."""
    game = result.game
    MATCHES.labels(game=game, status=status).inc()
    if status != "done":
        return
    MATCH_SECONDS.labels(game=game).observe(result.duration)
    DECISIONS.labels(game=game).observe(len(result.decisions))
    latency = DECISION_SECONDS.labels(game=game)
    for decision in result.decisions:
        if decision.code != "forced":  # applied by the referee: nobody decided
            latency.observe(decision.ms / 1000.0)
    codes = result.codes()
    for code in FAULT_CODES:
        if codes.get(code):
            FAULTS.labels(game=game, code=code).inc(codes[code])
    forfeits = sum(1 for out in result.forfeited if out)
    if forfeits:
        FORFEITS.labels(game=game).inc(forfeits)


class QueueDepth:
    """Collector: tasks waiting in the Celery queue on Redis, read at scrape time."""

    def __init__(self, redis_url: str, queue: str) -> None:
        self.redis_url = redis_url
        self.queue = queue

    def collect(self):
        import redis

        family = GaugeMetricFamily("arena_queue_depth", "Tasks waiting in the Celery queue", labels=["queue"])
        try:
            client = redis.Redis.from_url(self.redis_url, socket_timeout=1)
            family.add_metric([self.queue], float(client.llen(self.queue)))
        except Exception:  # a scrape must not fail because Redis is away
            return
        yield family


def registry() -> CollectorRegistry:
    """The registry to expose: summed over pool processes in multiprocess mode, plus the
    queue depth when Redis is configured."""
    from arena.settings import load

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)
    else:
        reg = REGISTRY
    config = load()
    if config.redis_url and not any(isinstance(c, QueueDepth) for c in getattr(reg, "_arena_extra", [])):
        collector = QueueDepth(config.redis_url, config.queue)
        reg.register(collector)
        reg._arena_extra = [collector]  # type: ignore[attr-defined]
    return reg


def exposition() -> bytes:
    """The metrics in the Prometheus text format."""
    return generate_latest(registry())


def serve(port: int, address: str | None = None) -> None:
    """Serve ``/metrics`` on ``address:port`` from a background thread of this process.

    ``address`` defaults to ``ARENA_METRICS_ADDRESS`` (``127.0.0.1``): the metrics name the
    games and the queue, so they are not offered to the whole network unless asked."""
    from arena.settings import load

    start_http_server(port, addr=address or load().metrics_address, registry=registry())


def process_exited(pid: int) -> None:
    """Tidy a dead pool process's live gauges (multiprocess mode)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(pid)
