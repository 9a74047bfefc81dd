"""The gateway's inbox watch: one subscription per gateway tells it when a bot's message is
pushed, so an idle bot costs Redis nothing and a gateway's connections do not grow with its
bots; where Redis refuses notifications, each bot waits on a connection of its own; a lost
subscription loses no message."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, run_match
from arena.referee.gateway import BotIdentity, Gateway
from arena.referee.inbox_watch import needed_flags
from arena.referee.mailbox import RedisMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.settings import ServerSettings
from tests.support.grpc import GAME, ServerThread, finish, start_bot, wait_online
from tests.support.services import private_redis

BOTS = 6
GATEWAY = "inbox-watch-gateway"  # the gateway's connections' name in CLIENT LIST


async def by_number(token: str) -> BotIdentity | None:
    """``tok-N`` is bot ``bN``."""
    number = token.removeprefix("tok-")
    return BotIdentity(f"b{number}", f"bot{number}") if number.isdigit() else None


def commands(client: redis.Redis) -> Counter[str]:
    stats = client.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items()})


def gateway_connections(client: redis.Redis) -> list[dict[str, Any]]:
    return [entry for entry in client.client_list() if entry.get("name") == GATEWAY]


def serve(url: str, prefix: str) -> tuple[ServerThread, Gateway]:
    """A gateway whose heartbeat comes seldom: what is counted is the wait for messages."""
    gateway = Gateway(RedisMailbox(url, prefix=prefix, presence_ttl=60.0, client_name=GATEWAY), by_number,
                      heartbeat=20.0)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server, gateway, "arena.v1.BotGateway")])
    return server, gateway


def play(box: RedisMailbox, match_id: str, seed: int) -> Any:
    """A match between bots b0 and b1 through ``box``, on an event loop of its own."""
    async def match() -> Any:
        players = [RemotePlayer(box, bot, MatchInfo(match_id, GAME, {}, seat, 2, ["bot0", "bot1"], 5000, 20000))
                   for seat, bot in enumerate(["b0", "b1"])]
        try:
            return await run_match(GAME, players, seed, clock=Clock(move=5, bank=20), match_id=match_id)
        finally:
            await box.close()

    return asyncio.run(match())


# The gateway's URL: one the watch reads on a line of its own, and one with a connection option
# that leaves the subscription to redis-py's connection (as a TLS URL would).
@pytest.fixture(params=["", "?socket_keepalive=true"], ids=["line", "redis-py"])
def bots_on_a_gateway(own_redis: str, request: pytest.FixtureRequest) -> Iterator[tuple[str, str, Gateway]]:
    """``BOTS`` random bots connected to one gateway over a Redis of the test's own."""
    prefix = f"test:{uuid.uuid4().hex}:"
    server, gateway = serve(own_redis + request.param, prefix)
    bots = [start_bot("arena_bot.examples.random_bot", server.address, f"tok-{n}", "--every-decision")
            for n in range(BOTS)]
    try:
        box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=60.0)
        for n in range(BOTS):
            wait_online(box, f"b{n}")
        yield own_redis, prefix, gateway
    finally:
        for bot in bots:
            finish(bot)
        server.stop()


def test_idle_bots_cost_redis_nothing_and_a_gateway_one_connection_to_wait_on(
        bots_on_a_gateway: tuple[str, str, Gateway]) -> None:
    url, prefix, _gateway = bots_on_a_gateway
    client = redis.Redis.from_url(url)
    # The bots' forwarders are waiting (the first collect subscribes each inbox).
    time.sleep(1.5)
    before = commands(client)
    time.sleep(3.0)
    idle = commands(client) - before
    # A wait of its own per bot made again every second would be 18 BLPOPs here.
    assert idle["blpop"] + idle["lpop"] == 0, idle
    assert idle.total() <= 6, idle  # the counting's own INFO, at most a heartbeat's trip
    # No connection waits for a bot's messages of its own: one subscription tells of them all
    # (each bot's inbox, and the gateway's post channel).
    connections = gateway_connections(client)
    assert not [entry for entry in connections if entry["cmd"] == "blpop"], connections
    assert [int(entry["sub"]) for entry in connections if int(entry["sub"])] == [BOTS + 1], connections
    # And the bots still get their messages: a match between two of them plays in full.
    result = play(RedisMailbox(url, prefix=prefix, presence_ttl=60.0), "after-idle", 3)
    assert {d.code for d in result.decisions} - {"forced"} == {"ok"}


def test_a_subscription_lost_mid_match_loses_no_message(bots_on_a_gateway: tuple[str, str, Gateway]) -> None:
    """Redis drops the gateway's subscription (as when a pub/sub client's buffer overflows)
    again and again during a match: its collectors pop at each wait until it is back, and
    every turn is answered in time."""
    url, prefix, _gateway = bots_on_a_gateway
    client = redis.Redis.from_url(url)
    done = threading.Event()
    killed = []

    def kill_subscriptions() -> None:
        while not done.wait(0.1):
            killed.append(client.client_kill_filter(_type="pubsub"))

    killer = threading.Thread(target=kill_subscriptions)
    killer.start()
    try:
        results = [play(RedisMailbox(url, prefix=prefix, presence_ttl=60.0), f"cut-{n}", 20 + n) for n in range(6)]
    finally:
        done.set()
        killer.join()
    assert sum(killed) >= 2, killed
    for result in results:
        assert {d.code for d in result.decisions} - {"forced"} == {"ok"}
        assert max(d.ms for d in result.decisions) < 4000
    # Subscribed again: idle bots are trusted to be idle once more.
    time.sleep(1.5)
    before = commands(client)
    time.sleep(2.0)
    assert (commands(client) - before)["lpop"] == 0


def test_a_redis_that_refuses_notifications_gets_a_wait_per_bot(tmp_path: Any) -> None:
    """CONFIG renamed away (as a managed Redis may): the gateway's bots wait with BLPOP each,
    and play as before."""
    with private_redis(tmp_path, None, "--rename-command", "CONFIG", "") as url:
        prefix = f"test:{uuid.uuid4().hex}:"
        server, gateway = serve(url, prefix)
        bots = [start_bot("arena_bot.examples.random_bot", server.address, f"tok-{n}") for n in range(2)]
        try:
            box = RedisMailbox(url, prefix=prefix, presence_ttl=60.0)
            for n in range(2):
                wait_online(box, f"b{n}")
            result = play(RedisMailbox(url, prefix=prefix, presence_ttl=60.0), "refused", 5)
            served = commands(redis.Redis.from_url(url))
        finally:
            for bot in bots:
                finish(bot)
            server.stop()
    assert {d.code for d in result.decisions} - {"forced"} == {"ok"}
    assert served["blpop"] > 0 and served["subscribe"] == 0, served
    assert gateway.mailbox._watches and not any(w.supported for w in gateway.mailbox._watches.values())


@pytest.mark.parametrize(("flags", "wanted"), [
    ("", "Kl"), ("Ex", "ExKl"), ("KEA", "KEA"), ("Kg", "Kgl"), ("El", "ElK"), ("AK", "AK"),
])
def test_the_notifications_needed_are_added_to_those_set(flags: str, wanted: str) -> None:
    assert needed_flags(flags) == wanted


def test_a_lost_subscription_has_the_runners_send_their_turns_again(own_redis: str) -> None:
    """Messages published to a gateway while its subscription is being lost go nowhere: once
    it has its connection again, the runners of its bots' matches are told the bots are back
    (their reply desks), and send their undecided turns again."""
    prefix = f"test:{uuid.uuid4().hex}:"
    client = redis.Redis.from_url(own_redis)

    async def scenario() -> tuple[Any, float]:
        gateway_box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=60.0)
        runner_box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=60.0)
        got: list[dict[str, Any]] = []

        async def forward() -> None:
            while True:
                message = await gateway_box.collect("b0", 1.0)
                if message is not None:
                    got.append(message)

        async def until(kind: str) -> None:
            while not any(message["kind"] == kind for message in got):
                await asyncio.sleep(0.01)

        await gateway_box.claim("b0", "gw1.stream1")
        forwarder = asyncio.create_task(forward())
        try:
            await runner_box.deliver("b0", {"kind": "match_started", "match_id": "m", "game": GAME})
            await asyncio.wait_for(until("match_started"), 10)
            assert runner_box._routes.get("b0") == "gw1"  # the turn is published to the gateway
            asked = asyncio.create_task(runner_box.ask("b0", {"kind": "turn", "match_id": "m", "turn_id": 1}, 20))
            await asyncio.wait_for(until("turn"), 10)
            cut = time.monotonic()
            assert await asyncio.to_thread(client.client_kill_filter, _type="pubsub") == 1
            word = await asyncio.wait_for(asked, 30)
            return word, time.monotonic() - cut
        finally:
            forwarder.cancel()
            await gateway_box.close()
            await runner_box.close()

    word, took = asyncio.run(scenario())
    assert word == {"back": True}, word
    assert took < 5.0


def test_a_malformed_post_is_dropped_and_the_gateway_listens_on(own_redis: str) -> None:
    """Whatever else is published on a gateway's post channel (not JSON, not a bot and a
    message) is dropped with a warning; the subscription stays, and the next message arrives."""
    prefix = f"test:{uuid.uuid4().hex}:"
    client = redis.Redis.from_url(own_redis)

    async def scenario() -> tuple[dict[str, Any] | None, bool]:
        gateway_box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=60.0)
        runner_box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=60.0)
        try:
            await gateway_box.claim("b0", "gw1.stream1")
            assert await gateway_box.collect("b0", 0.5) is None  # subscribed, nothing yet
            watch = gateway_box._watch()
            assert watch is not None
            connection = watch._connection
            for junk in ("not json", "[1, 2]", '["b0"]', '["b0", {"no": "kind"}]', "{}"):
                assert await asyncio.to_thread(client.publish, f"{prefix}post:gw1", junk) == 1
            await runner_box.prefs("b0")  # learns the route, as before a match
            await runner_box.deliver("b0", {"kind": "match_started", "match_id": "m", "game": GAME})
            got = await gateway_box.collect("b0", 5.0)
            return got, watch._connection is connection and connection is not None
        finally:
            await gateway_box.close()
            await runner_box.close()

    got, same_connection = asyncio.run(scenario())
    assert got is not None and got["kind"] == "match_started"
    assert same_connection
