"""Assembling the gRPC server: the arena's services, standard health checking and server
reflection, limits and optional TLS, and a graceful shutdown that reports NOT_SERVING first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection

from arena.v1 import rules_pb2, rules_pb2_grpc

from .rules_service import RulesService
from .settings import ServerSettings


@dataclass
class RunningServer:
    """A started server: its port (useful with address port 0) and health servicer."""

    server: grpc.aio.Server
    port: int
    health: Any
    services: list[str]

    async def stop(self, grace: float = 5.0) -> None:
        """Graceful shutdown: health says NOT_SERVING at once, calls in flight get ``grace``."""
        await self.health.enter_graceful_shutdown()
        await self.server.stop(grace)


async def start_server(settings: ServerSettings, extra: list[tuple[Any, Any, str]] | None = None) -> RunningServer:
    """Start the server on ``settings.address``.

    ``extra`` adds services as ``(add_to_server_function, servicer, full_service_name)``:
    the gateway and the Arena service plug in here."""
    server = grpc.aio.server(options=settings.channel_options())
    health = health_aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)

    rules_pb2_grpc.add_RulesServicer_to_server(RulesService(), server)
    names = [rules_pb2.DESCRIPTOR.services_by_name["Rules"].full_name]
    for add, servicer, name in extra or []:
        add(servicer, server)
        names.append(name)
    reflection.enable_server_reflection([*names, reflection.SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name], server)

    if settings.tls_cert and settings.tls_key:
        credentials = grpc.ssl_server_credentials(
            [(Path(settings.tls_key).read_bytes(), Path(settings.tls_cert).read_bytes())]
        )
        port = server.add_secure_port(settings.address, credentials)
    else:
        port = server.add_insecure_port(settings.address)
    await server.start()
    for name in ["", *names]:
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    return RunningServer(server=server, port=port, health=health, services=names)
