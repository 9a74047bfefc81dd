"""Fixtures for the gRPC tests: a real server on a free loopback port, on its own event
loop in a background thread, so tests can use ordinary blocking clients."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from arena_bot.v1 import gateway_pb2_grpc

from arena.referee.gateway import BotIdentity, Gateway
from arena.referee.mailbox import LocalMailbox
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings

# A server on its own loop thread, so tests can use ordinary blocking clients.
ServerThread = BackgroundServer


@pytest.fixture
def rules_server() -> Iterator[ServerThread]:
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [])
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


@pytest.fixture
def server_settings() -> ServerSettings:
    """The settings ``test_arena_service.server`` runs with (a test module may override it)."""
    return ServerSettings(address="127.0.0.1:0", admin_token="admin-secret")
