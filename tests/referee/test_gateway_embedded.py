"""External bots over a real gRPC gateway with the in-process mailbox: real SDK bot
processes, real sockets on loopback, the real match runner."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, HousePlayer, run_match
from arena.referee.gateway import Gateway
from arena.referee.mailbox import LocalMailbox
from arena.server.settings import ServerSettings
from tests.support.grpc import GAME, ServerThread, by_token, finish, remote, start_bot, wait_online


def test_an_sdk_bot_plays_a_whole_match(gateway: tuple[ServerThread, LocalMailbox]) -> None:
    server, mailbox = gateway
    bot = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice")
    try:
        wait_online(mailbox, "1")
        players = [remote(mailbox, "1", "m1", 0), HousePlayer(GAME, "random", 1, 5)]
        result = asyncio.run(run_match(GAME, players, 5, clock=Clock(move=2.0, bank=5.0), match_id="m1"))
    finally:
        bot.terminate()
        output = bot.communicate(timeout=10)[0].decode()
    assert result.codes().keys() <= {"ok", "forced"}, result.codes()
    assert sum(1 for d in result.decisions if d.seat == 0) > 0
    assert "tok-alice" not in output, "the SDK must never log the token"


def test_a_bad_token_is_refused_and_final(gateway: tuple[ServerThread, LocalMailbox]) -> None:
    server, _ = gateway
    bot = start_bot("arena_bot.examples.random_bot", server.address, "tok-wrong")
    output = bot.communicate(timeout=30)[0].decode()
    assert bot.returncode != 0 or "UNAUTHENTICATED" in output
    assert "UNAUTHENTICATED" in output


def test_a_second_sdk_process_with_the_same_token_replaces_the_first_for_good(
        gateway: tuple[ServerThread, LocalMailbox]) -> None:
    """The gateway's policy is "the newer connection wins"; the replaced SDK process must
    then stop (final error), not reconnect and fight the newer one."""
    server, mailbox = gateway
    first = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice")
    wait_online(mailbox, "1")
    holder = asyncio.run(mailbox.holder("1"))
    second = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice")
    try:
        output = first.communicate(timeout=30)[0].decode()
        assert first.returncode == 1 and "replaced" in output
        assert second.poll() is None
        assert asyncio.run(mailbox.holder("1")) not in (None, holder)
    finally:
        second.terminate()
        second.communicate(timeout=10)


def test_a_stopped_server_leaves_its_bots_gone_not_connected() -> None:
    """Stopping the server ends every bot's stream, and the mailbox must learn it before the
    server's loop stops: a match still being played (a challenge on its own thread) would
    otherwise take the bot for connected, and a connected bot that never answers is the
    server's fault, never a strike, so the match waited on it for ever. Before the fix the
    loop stopped with the stream's cleanup still pending and the bot stayed connected."""
    mailbox = LocalMailbox()
    servicer = Gateway(mailbox, by_token, heartbeat=0.2)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"),
                          [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    bot = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice")
    try:
        wait_online(mailbox, "1")
        server.stop()
        assert asyncio.run(mailbox.holder("1")) is None
        assert asyncio.run(mailbox.offline_since("1")) is not None
    finally:
        bot.kill()
        bot.wait(10)


class TurnInTheDoorway(LocalMailbox):
    """The in-process mailbox, with a turn delivered for the bot at the worst moment: after its
    new stream claimed it, before the gateway read its pending turns (a runner asks as soon as
    the bot is seen online). The turn is then both pending and in the inbox."""

    def __init__(self, turn: dict[str, Any]) -> None:
        super().__init__()
        self.turn: dict[str, Any] | None = turn

    async def pending_turns(self, bot_id: str) -> list[dict[str, Any]]:
        if self.turn is not None:
            turn, self.turn = self.turn, None
            await self.deliver(bot_id, turn)
        return await super().pending_turns(bot_id)


def test_a_turn_delivered_as_the_bot_connects_is_written_to_it_once() -> None:
    turn = {"kind": "turn", "match_id": "door", "turn_id": 0, "seat": 0, "observation_json": "{}",
            "legal_actions": ["a", "b"], "deadline_ms": 20000, "time_bank_ms": 0, "last_move_latency_ms": 0}
    mailbox = TurnInTheDoorway(turn)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server, Gateway(mailbox, by_token), "arena.v1.BotGateway")])
    bot = start_bot("tests.referee.rogue_bot", server.address, "tok-alice", "slow")  # holds its turns
    try:
        wait_online(mailbox, "1")
        time.sleep(1.0)  # the forwarder has long taken the inbox's copy
    finally:
        received = finish(bot)
        server.stop()
    assert [(e["match"], e["turn"]) for e in received if e["kind"] == "turn"] == [("door", 0)]
