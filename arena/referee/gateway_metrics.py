"""Prometheus metrics of the gateway (served on its /metrics). No per-bot labels: per-bot
figures live in the database."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

CONNECTED = Gauge("arena_gateway_connected_bots", "Bot streams connected to this gateway")
TURNS_SENT = Counter("arena_gateway_turns_sent_total", "Turns sent to bots", ["game"])
MOVE_LATENCY = Histogram(
    "arena_gateway_move_latency_seconds", "Time from a turn sent to its move received", ["game"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
)
TIMEOUTS = Counter("arena_gateway_timeouts_total", "Turns a bot did not answer in time", ["game"])
ILLEGAL = Counter("arena_gateway_illegal_moves_total", "Moves that were not legal actions", ["game"])
REJECTED_AUTH = Counter("arena_gateway_rejected_auth_total", "Streams refused for a bad token")
