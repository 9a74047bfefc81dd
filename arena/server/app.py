"""Assembling the gRPC server: the arena's services, standard health checking and server
reflection, limits and optional TLS, and a graceful shutdown that reports NOT_SERVING first."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from arena_bot.v1 import rules_pb2, rules_pb2_grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2
from grpc_reflection.v1alpha._async import ReflectionServicer

from .access import Access
from .rules_pool import PoolLimits, RulesPool, Work
from .rules_service import RateLimits, RulesService
from .settings import ServerSettings
from .token_check import TokenCheck


@dataclass
class RunningServer:
    """A started server: its port (useful with address port 0) and health servicer."""

    server: grpc.aio.Server
    port: int
    health: Any
    services: list[str]
    background: list[asyncio.Task[None]] = field(default_factory=list)  # e.g. the revocation watcher
    rules_pool: RulesPool | None = None  # the Rules service's worker processes
    closing: list[Callable[[], None]] = field(default_factory=list)  # run once the calls have ended

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful shutdown: health says NOT_SERVING at once, calls in flight get ``grace``."""
        await self.health.enter_graceful_shutdown()
        for task in self.background:
            task.cancel()
        await self.server.stop(grace)
        # The streams' handlers end as their calls are cancelled; their cleanup (a bot marked
        # gone in the mailbox) must run before the loop stops, or a match still being played
        # would take the bot for connected and wait on it for ever.
        others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]
        if others:
            await asyncio.wait(others, timeout=HANDLERS_GRACE)
        if self.rules_pool is not None:
            await asyncio.to_thread(self.rules_pool.close)
        for close in self.closing:
            await asyncio.to_thread(close)


HANDLERS_GRACE = 8.0  # seconds the cancelled calls' cleanup may take at shutdown (the gateway's is 6)

REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def reflection_v1(service_names: list[str]) -> grpc.GenericRpcHandler:
    """Server reflection as ``grpc.reflection.v1`` beside ``v1alpha`` (newer grpcurl and
    Postman ask for v1 first). The two versions' messages are the same on the wire, so the
    v1alpha servicer answers both."""
    servicer = ReflectionServicer(service_names)
    return grpc.method_handlers_generic_handler(REFLECTION_V1, {
        "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
            servicer.ServerReflectionInfo,
            request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
            response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString),
    })


def rules_pool(settings: ServerSettings, work: Work | None = None) -> RulesPool:
    """The Rules service's worker pool, bounded by the settings (``work`` replaces what a
    worker does with a call: tests stall a call on purpose)."""
    limits = PoolLimits(workers=settings.rules_workers, queue=settings.rules_queue,
                        call_seconds=settings.rules_call_seconds, cpu_seconds=settings.rules_cpu_seconds,
                        memory_mb=settings.rules_memory_mb)
    return RulesPool(limits) if work is None else RulesPool(limits, work)


async def start_server(settings: ServerSettings, extra: list[tuple[Any, Any, str]] | None = None,
                       access: Access | None = None, rules_work: Work | None = None) -> RunningServer:
    """Start the server on ``settings.address``.

    ``extra`` adds services as ``(add_to_server_function, servicer, full_service_name)``:
    the gateway and the Arena service plug in here. With ``access``, credentials presented to
    any service (Rules included) are checked before it runs (``TokenCheck``)."""
    interceptors = [TokenCheck(access)] if access is not None else []
    server = grpc.aio.server(options=settings.channel_options(), interceptors=interceptors)
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)

    pool = rules_pool(settings, rules_work)
    rules = RulesService(pool, RateLimits(settings.rules_calls_per_second, settings.rules_burst))
    rules_pb2_grpc.add_RulesServicer_to_server(rules, server)
    names = [rules_pb2.DESCRIPTOR.services_by_name["Rules"].full_name]
    for add, servicer, name in extra or []:
        add(servicer, server)
        names.append(name)
    reflectable = [*names, reflection.SERVICE_NAME, REFLECTION_V1, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name]
    reflection.enable_server_reflection(reflectable, server)
    server.add_generic_rpc_handlers((reflection_v1(reflectable),))

    if settings.tls_cert and settings.tls_key:
        credentials = grpc.ssl_server_credentials(
            [(Path(settings.tls_key).read_bytes(), Path(settings.tls_cert).read_bytes())]
        )
        port = server.add_secure_port(settings.address, credentials)
    else:
        port = server.add_insecure_port(settings.address)
    await server.start()
    pool.warm()
    for name in ["", *names]:
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, port=port, health=health, services=names, rules_pool=pool)
