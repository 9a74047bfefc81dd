"""Fixtures for the gRPC tests: a real server on a free loopback port, on its own event
loop in a background thread, so tests can use ordinary blocking clients."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

from arena.referee.gateway import BotIdentity, Gateway
from arena.referee.mailbox import LocalMailbox
from arena.server.app import RunningServer, start_server
from arena.server.settings import ServerSettings
from arena.v1 import gateway_pb2_grpc


class ServerThread:
    """Runs ``start_server`` on a private loop; ``call(coro)`` runs a coroutine there."""

    def __init__(self, settings: ServerSettings, extra: list[Any] | None = None) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.running: RunningServer = self.call(start_server(settings, extra))
        self.address = f"127.0.0.1:{self.running.port}"

    def call(self, coro: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self, grace: float = 0.5) -> None:
        self.call(self.running.stop(grace))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@pytest.fixture
def rules_server() -> Iterator[ServerThread]:
    server = ServerThread(ServerSettings(address="127.0.0.1:0"))
    yield server
    server.stop()


@pytest.fixture
def channel(rules_server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(rules_server.address) as chan:
        yield chan


TOKENS = {"tok-alice": BotIdentity("1", "alice"), "tok-bob": BotIdentity("2", "bob")}


async def by_token(token: str) -> BotIdentity | None:
    return TOKENS.get(token)


@pytest.fixture
def gateway() -> Iterator[tuple[ServerThread, LocalMailbox]]:
    """A gateway on the in-process mailbox; bots alice (token tok-alice) and bob."""
    mailbox = LocalMailbox()
    servicer = Gateway(mailbox, by_token, heartbeat=0.2)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"),
                          [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    yield server, mailbox
    server.stop()


