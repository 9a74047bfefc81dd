"""Distributed mode: two gateways and the runner meet only through Redis. Bot A connects to
one gateway, bot B to the other, and a runner with its own Redis connection plays their
match, as a worker on a third machine would."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import pytest
from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, run_match
from arena.referee.gateway import Gateway
from arena.referee.mailbox import RedisMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.settings import ServerSettings
from tests.support.grpc import GAME, ServerThread, by_token, ended, finish, start_bot, wait_online


def mailbox(url: str, prefix: str) -> RedisMailbox:
    return RedisMailbox(url, prefix=prefix, presence_ttl=2.0)


@pytest.fixture
def two_gateways(shared_redis: str) -> Iterator[tuple[ServerThread, ServerThread, str]]:
    prefix = f"test:{uuid.uuid4().hex}:"  # this test's keys only: the Redis may be shared
    servers = []
    for _ in range(2):
        servicer = Gateway(mailbox(shared_redis, prefix), by_token, heartbeat=0.2)
        servers.append(ServerThread(ServerSettings(address="127.0.0.1:0"), [
            (gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")]))
    yield servers[0], servers[1], prefix
    for server in servers:
        server.stop()


def test_bots_on_two_gateways_play_through_redis(two_gateways: tuple[ServerThread, ServerThread, str],
                                                 shared_redis: str) -> None:
    first, second, prefix = two_gateways
    alice = start_bot("arena_bot.examples.random_bot", first.address, "tok-alice")
    bob = start_bot("tests.referee.rogue_bot", second.address, "tok-bob", "good")
    runner_box = mailbox(shared_redis, prefix)
    try:
        wait_online(runner_box, "1")
        wait_online(runner_box, "2")

        async def match() -> object:
            players = [
                RemotePlayer(runner_box, bot, MatchInfo("dm", GAME, {}, seat, 2, ["alice", "bob"], 2000, 5000))
                for seat, bot in enumerate(["1", "2"])
            ]
            try:
                return await run_match(GAME, players, 8, clock=Clock(move=2, bank=5), match_id="dm")
            finally:
                await runner_box.close()

        result = asyncio.run(match())
    finally:
        finish(alice)
        events = finish(bob, ended, "the match's end")
    assert {d.code for d in result.decisions} - {"forced"} == {"ok"}  # type: ignore[attr-defined]
    assert {0, 1} <= {d.seat for d in result.decisions}  # type: ignore[attr-defined]
    assert ended(events)


def test_a_newer_connection_on_another_gateway_replaces_the_older(
        two_gateways: tuple[ServerThread, ServerThread, str], shared_redis: str) -> None:
    first, second, prefix = two_gateways
    older = start_bot("tests.referee.rogue_bot", first.address, "tok-alice", "good")
    box = mailbox(shared_redis, prefix)
    wait_online(box, "1")
    newer = start_bot("tests.referee.rogue_bot", second.address, "tok-alice", "good")
    older.wait(30)
    assert {"kind": "error"} in finish(older)
    assert newer.poll() is None, "the newer stream stays"
    finish(newer)
