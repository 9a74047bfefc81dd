"""Fixtures for the gRPC tests: a real server on a free loopback port, on its own event
loop in a background thread, so tests can use ordinary blocking clients."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2_grpc, gateway_pb2_grpc

from arena.referee import external
from arena.referee.gateway import Gateway
from arena.referee.mailbox import LocalMailbox, Mailbox, RedisMailbox
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db

from .helpers import ServerThread, by_token


@pytest.fixture
def rules_server() -> Iterator[ServerThread]:
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [])
    yield server
    server.stop()


@pytest.fixture
def channel(rules_server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(rules_server.address) as chan:
        yield chan


@pytest.fixture
def gateway(request: pytest.FixtureRequest) -> Iterator[tuple[ServerThread, Mailbox]]:
    """A gateway on the in-process mailbox, or on the Redis one when parametrized indirectly
    with ``"redis"``; bots alice (token tok-alice) and bob. The mailbox handed to the test is
    the runner's side: the gateway's own for the in-process one, one of the same keys on its
    own connections for Redis (use it through ``helpers.run_with``)."""
    kind = getattr(request, "param", "local")
    if kind == "local":
        mailbox: Mailbox = LocalMailbox()
        runner: Mailbox = mailbox
    else:
        url = request.getfixturevalue("shared_redis")
        prefix = f"test:{uuid.uuid4().hex}:"  # this test's keys only: the Redis may be shared
        mailbox, runner = (RedisMailbox(url, prefix=prefix, presence_ttl=2.0) for _ in range(2))
    servicer = Gateway(mailbox, by_token, heartbeat=0.2)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"),
                          [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    yield server, runner
    server.stop()


@pytest.fixture
def server_settings() -> ServerSettings:
    """The settings ``server`` runs with (a test module may override it)."""
    return ServerSettings(address="127.0.0.1:0", admin_token="admin-secret")


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_settings: ServerSettings) -> Iterator[BackgroundServer]:
    """The whole server as ``arena serve`` runs it (gateway, Arena and Rules services) on a
    fresh SQLite store."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "1.5")
    external.forget()  # bot ids start again at 1 in the fresh database
    running = BackgroundServer(server_settings)
    yield running
    running.stop()
    # Tournaments and challenges play on background threads that read the database from the
    # environment: one left running would play on in the next test's fresh database.
    for thread in threading.enumerate():
        if thread.name.startswith(("tournament-", "challenge-")):
            thread.join(60)
    db.dispose_all()


@pytest.fixture
def arena(server: BackgroundServer) -> Iterator[arena_pb2_grpc.ArenaStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)
