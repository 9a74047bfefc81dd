"""``arena serve``: the whole server in one process: the bot gateway, the Arena and Rules
services, health and reflection, and the gateway's /metrics."""

from __future__ import annotations

import asyncio
import logging
import signal
from typing import TYPE_CHECKING

from arena_bot.v1 import arena_pb2_grpc, gateway_pb2_grpc
from prometheus_client import start_http_server

from arena.ratelimit import RateLimiter, per_minute
from arena.referee import external
from arena.referee.gateway import Gateway
from arena.store import db

from . import revocations, sessions, version_tests
from .access import Access
from .app import RunningServer, start_server
from .arena_service import ArenaService
from .settings import ServerSettings

if TYPE_CHECKING:
    from workers.supervisor import BaseSupervisor

log = logging.getLogger("arena.serve")


PLAINTEXT_WARNING = ("listening on %s without TLS: bot and admin tokens and every move cross the network in "
                     "clear text; set ARENA_TLS_CERT and ARENA_TLS_KEY (safe to ignore only where a "
                     "TLS-terminating proxy is the sole way in)")


def prepare_store() -> None:
    """Make or upgrade the store's schema (``arena db upgrade``'s migrations; a no-op when it
    is current). The server writes, so it owns the schema: done before it listens, a read
    that comes first finds an empty store (empty lists, NOT_FOUND), never a missing one."""
    db.engine()


async def start(settings: ServerSettings) -> RunningServer:
    """Make the store ready (``prepare_store``), then start every service on
    ``settings.address``; returns the running server."""
    if settings.plaintext_exposed:
        log.warning(PLAINTEXT_WARNING, settings.address)
    await asyncio.to_thread(prepare_store)
    limiter = RateLimiter(per_minute(settings.auth_failures_per_minute))  # failed authentications per peer
    gateway = Gateway(external.mailbox(), sessions.authenticate, max_matches_per_bot=settings.max_matches_per_bot,
                      limiter=limiter)
    access = Access(settings.admin_token, sessions.authenticate, limiter)
    arena = ArenaService(settings, kick=gateway.kick, access=access)
    running = await start_server(settings, [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server, gateway, "arena.v1.BotGateway"),
        (arena_pb2_grpc.add_ArenaServicer_to_server, arena, "arena.v1.Arena"),
    ], access=access)
    running.background.append(asyncio.create_task(revocations.watch(gateway), name="revocations"))
    running.closing.append(arena.close)
    # Tests a stopped server was playing are played on here; ours are handed over at our stop.
    running.closing.append(version_tests.release)
    running.background.append(asyncio.create_task(version_tests.resume_forever(), name="tests"))
    if settings.ladder:
        from workers import ladder

        running.background.append(asyncio.create_task(ladder.from_settings(gateway.mailbox).run(), name="ladder"))
    return running


async def serve_forever(settings: ServerSettings, metrics_port: int, metrics_address: str) -> None:
    """Run until SIGINT/SIGTERM, then shut down gracefully (health says NOT_SERVING first).
    The gateway's ``/metrics`` listen on ``metrics_address:metrics_port`` (0: none); loopback
    unless asked, since a public gRPC address must not publish the metrics with it."""
    if metrics_port:
        start_http_server(metrics_port, addr=metrics_address)
    running = await start(settings)
    log.info("arena listening on %s (metrics on :%s)", settings.address.rsplit(":", 1)[0] + f":{running.port}",
             metrics_port or "off")
    supervisor = start_supervisor()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down")
    if supervisor is not None:
        supervisor.stop()  # hands the leadership over at once
    await running.stop(settings.shutdown_grace_seconds)


def start_supervisor() -> BaseSupervisor | None:
    """``arena serve`` runs a supervisor: with Redis ``workers.supervisor``'s, so a tournament
    heals even while every worker is down and being replaced; embedded
    ``workers.embedded_supervisor``'s, which plays again, here, what a killed server (or
    command) left unfinished in the store."""
    from arena.settings import load

    if load().embedded:
        from workers.embedded_supervisor import EmbeddedSupervisor
        from workers.pool import play

        supervisor: BaseSupervisor | None = EmbeddedSupervisor.from_settings(play)
    else:
        from workers.app import supervisor_from_settings

        supervisor = supervisor_from_settings()
    return supervisor.start() if supervisor is not None else None
