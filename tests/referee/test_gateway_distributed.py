"""Distributed mode: two gateways and the runner meet only through Redis. Bot A connects to
one gateway, bot B to the other, and a runner with its own Redis connection plays their
match, as a worker on a third machine would."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from arena_bot.v1 import gateway_pb2_grpc

from arena.referee import Clock, HousePlayer, run_match
from arena.referee.gateway import BotIdentity, Gateway
from arena.referee.mailbox import RedisMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.settings import ServerSettings
from tests.helpers import wait_until
from tests.support.grpc import GAME, ServerThread, by_token, ended, finish, run_with, start_bot, wait_online
from tests.support.services import free_port

T = TypeVar("T")


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


def test_what_a_stream_took_after_a_newer_one_took_over_reaches_the_newer(shared_redis: str) -> None:
    """The gateway of a replaced stream learns of it at its next heartbeat, not per message:
    meanwhile it takes its share of the bot's messages. Once it learns, it hands back what it
    wrote since its last heartbeat found it holding the bot, and the newer stream gets every
    message (a turn is sent again by its runner instead)."""
    prefix = f"test:{uuid.uuid4().hex}:"
    servers = [ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server,
         Gateway(RedisMailbox(shared_redis, prefix=prefix, presence_ttl=20.0), by_token, heartbeat=beat),
         "arena.v1.BotGateway")]) for beat in (4.0, 0.2)]  # the older stream's heartbeats far apart
    box = RedisMailbox(shared_redis, prefix=prefix, presence_ttl=20.0)
    older = start_bot("tests.referee.rogue_bot", servers[0].address, "tok-alice", "good")
    newer = None
    try:
        wait_online(box, "1")
        first = run_with(box, lambda b: b.holder("1"))
        newer = start_bot("tests.referee.rogue_bot", servers[1].address, "tok-alice", "good")
        wait_until(lambda: run_with(box, lambda b: b.holder("1")) not in (None, first), 20, 0.02,
                   "the newer stream to claim the bot")
        ends = [f"end-{n}" for n in range(6)]

        async def deliver(b: RedisMailbox) -> None:
            for match_id in ends:  # one at a time: both streams' gateways wait for the bot's messages
                await b.deliver("1", {"kind": "match_ended", "match_id": match_id, "scores": [1, 0],
                                      "ranks": [1, 2], "forfeited": False, "reason": "finished", "game": GAME,
                                      "seat": 0, "players": ["alice", "bob"], "tournament_id": ""})
                await asyncio.sleep(0.05)

        run_with(box, deliver)
        received = finish(newer, lambda got: {e["match"] for e in got if e["kind"] == "match_ended"} >= set(ends),
                          "every match's end on the newer stream", timeout=30)
        newer = None
        older.wait(30)
        assert {"kind": "error"} in finish(older), "the older stream was told it was replaced"
    finally:
        for bot in (older, newer):
            if bot is not None and bot.poll() is None:
                finish(bot)
        for server in servers:
            server.stop()
    assert {e["match"] for e in received if e["kind"] == "match_ended"} == set(ends)


def test_a_runners_redis_connections_do_not_follow_its_matches_in_flight(
        two_gateways: tuple[ServerThread, ServerThread, str], shared_redis: str) -> None:
    """Twelve matches in flight on one runner loop: the answers to all their turns come to the
    loop's one reply stream, read by one listener on one connection, and every other command
    shares a small set of connections (here two): the runner never holds more Redis
    connections than that, however many matches wait for their bots or send at once."""
    import redis

    first, second, prefix = two_gateways
    in_flight = 12
    # Bots that think 50 ms a move: the matches spend their time waiting for them.
    alice, bob = (start_bot("tests.referee.stalling_bot", server.address, token, "--stall", "0.05",
                            "--max-matches", str(in_flight))
                  for server, token in ((first, "tok-alice"), (second, "tok-bob")))
    name = f"runner-{uuid.uuid4().hex[:8]}"
    runner_box = RedisMailbox(shared_redis, prefix=prefix, presence_ttl=2.0, brief_connections=2, client_name=name)
    admin = redis.Redis.from_url(shared_redis)
    held: list[int] = []  # the runner's connections, sampled while the matches play
    try:
        wait_online(runner_box, "1")
        wait_online(runner_box, "2")

        def connections() -> int:
            return sum(1 for client in admin.client_list() if client.get("name") == name)

        async def play() -> list[Any]:
            matches = asyncio.gather(*(alice_against_bob(runner_box, f"many-{index}", 100 + index)
                                       for index in range(in_flight)))
            try:
                while not matches.done():
                    held.append(await asyncio.to_thread(connections))
                    await asyncio.sleep(0.01)
                return await matches
            finally:
                await runner_box.close()

        results = asyncio.run(play())
    finally:
        finish(alice)
        finish(bob)
        admin.close()
    assert len(results) == in_flight
    for result in results:
        assert {d.code for d in result.decisions} - {"forced"} == {"ok"}
    # One the move's commands share, two for the other brief commands, one for the reply
    # stream's listener.
    assert len(held) > 20 and max(held) <= 4, f"the runner held up to {max(held)} Redis connections"


async def alice_against_bob(box: RedisMailbox, match_id: str, seed: int) -> Any:
    """One match between bots 1 and 2 (alice and bob), wherever they are connected."""
    players = [RemotePlayer(box, bot, MatchInfo(match_id, GAME, {}, seat, 2, ["alice", "bob"], 5000, 20000))
               for seat, bot in enumerate(["1", "2"])]
    return await run_match(GAME, players, seed, clock=Clock(move=5, bank=20), match_id=match_id)


def commands_served(url: str) -> Counter[str]:
    """The commands the Redis at ``url`` has executed by name, those run inside scripts included."""
    import redis

    stats = redis.Redis.from_url(url).info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items()})


COUNTED_PRESENCE = 60.0  # seconds a counted bot's presence lasts without a heartbeat


def counted_play(url: str, alice: tuple[str, ...], play: Callable[[RedisMailbox], Awaitable[T]]
                 ) -> tuple[T, Counter[str], str]:
    """Alice (``alice``: a bot module and its arguments) on one gateway and bob (the SDK's
    random bot) on another, over the Redis at ``url`` under a key prefix of their own; ``play``
    runs the match(es) with the runner's mailbox. Returns its result, the commands Redis
    served meanwhile, and the prefix."""
    prefix = f"test:{uuid.uuid4().hex}:"
    # Heartbeats far apart: what is counted is the moves' cost, not how long a loaded machine
    # took to play them (a heartbeat every two seconds would add to it).
    servers = [ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server,
         Gateway(RedisMailbox(url, prefix=prefix, presence_ttl=COUNTED_PRESENCE), by_token,
                 heartbeat=COUNTED_PRESENCE / 3), "arena.v1.BotGateway")]) for _ in range(2)]
    bots = [start_bot(alice[0], servers[0].address, "tok-alice", *alice[1:]),
            start_bot("arena_bot.examples.random_bot", servers[1].address, "tok-bob")]
    runner_box = RedisMailbox(url, prefix=prefix, presence_ttl=COUNTED_PRESENCE)
    try:
        wait_online(runner_box, "1")
        wait_online(runner_box, "2")

        async def played() -> T:
            try:
                return await play(runner_box)
            finally:
                await runner_box.close()

        before = commands_served(url)
        result = asyncio.run(played())
        return result, commands_served(url) - before, prefix
    finally:
        for bot in bots:
            finish(bot)
        for server in servers:
            server.stop()


def test_a_move_costs_redis_a_few_commands_and_leaves_nothing_without_an_expiry(own_redis: str) -> None:
    """The live path's cost in Redis: a match between bots on two gateways, counted on a Redis
    of its own (INFO commandstats counts what scripts run too). The answers travel on the
    runner's reply stream, expiries are set when a match starts and ends (not with every
    move), and once the match is over every key it left expires on its own."""
    import redis

    # Alice asks for every decision: more moves a match, over which a match's own commands
    # (its start and end, a first look at a seat's presence on a loaded machine) are spread.
    results, spent, prefix = counted_play(
        own_redis, ("arena_bot.examples.random_bot", "--every-decision"),
        lambda box: asyncio.gather(*(alice_against_bob(box, f"cost-{index}", 11 + index) for index in range(4))))
    decisions = [d for result in results for d in result.decisions]
    asked = [d for d in decisions if d.code == "ok"]
    assert len(asked) >= 30 and {d.code for d in decisions} <= {"ok", "forced"}
    per_move = spent.total() / len(asked)
    # Turns and results go to the bot's gateway in one PUBLISH each, with nothing to pop: the
    # inboxes carry a match's start only (one for each of the 8 seats), where they carried
    # every message (about as many pushes as moves, and as many pops). What a seat spends
    # once a match (its slot, preferences, desk) weighs more the shorter the match: about 4.1
    # commands a move over 140 moves, 5.1 over 80.
    seats = 2 * len(results)
    assert spent["rpush"] <= seats and spent["lpop"] <= seats, spent
    assert spent["publish"] <= len(asked) + 2 * seats, spent
    assert per_move <= 6.5, f"{per_move:.1f} Redis commands per move: {spent.most_common()} for {len(asked)} moves"
    client = redis.Redis.from_url(own_redis)
    lasting = [key for key in client.scan_iter(match=f"{prefix}*") if client.ttl(key) == -1]
    # The board of who is online is one key for every bot, kept while the mailbox is in use.
    assert {key.decode() for key in lasting} <= {f"{prefix}online"}


def test_a_stream_whose_presence_lapsed_unclaimed_still_gets_its_bots_turns(shared_redis: str) -> None:
    """The gateway's heartbeat came late (a loaded machine) and the bot's presence lapsed, with
    no newer connection claiming it: the stream still holds the bot, and the turns that come
    meanwhile are written to it, not handed back for a stream that never comes."""
    prefix = f"test:{uuid.uuid4().hex}:"
    # Presence lapses 0.3 s after each heartbeat, and the heartbeats are 30 s apart.
    servicer = Gateway(RedisMailbox(shared_redis, prefix=prefix, presence_ttl=0.3), by_token, heartbeat=30.0)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    bot = start_bot("arena_bot.examples.random_bot", server.address, "tok-alice")
    runner_box = RedisMailbox(shared_redis, prefix=prefix, presence_ttl=0.3)
    try:
        # Connected once (its arrival is noted), and its presence has lapsed since.
        wait_until(lambda: run_with(runner_box, lambda box: box.offline_since("1")), 30, 0.1, "the bot to connect")

        async def match() -> Any:
            players = [RemotePlayer(runner_box, "1", MatchInfo("lapsed", GAME, {}, 0, 2, ["alice", "house"], 5000, 20000),
                                    grace=10.0), HousePlayer(GAME, "random", 1, 3)]
            try:
                return await run_match(GAME, players, 3, clock=Clock(move=5, bank=20), match_id="lapsed")
            finally:
                await runner_box.close()

        result = asyncio.run(match())
    finally:
        finish(bot)
        server.stop()
    assert not result.forfeited[0]
    assert {d.code for d in result.decisions if d.seat == 0} <= {"ok", "forced"}


def test_a_runner_waits_for_a_thinking_bots_word_without_looking_at_its_presence(own_redis: str) -> None:
    """A bot that thinks 0.7 s a move, connected to its gateway: its gateway times its turns
    and would say if its stream closed, so the runner waits for the word without looking at
    the bot's presence (it looked every 0.5 s of a move, two commands each time)."""
    alice = ("tests.referee.stalling_bot", "--stall", "0.7",
             "--every-decision")  # asked every decision: enough turns whatever the deal
    result, spent, _ = counted_play(own_redis, alice, lambda box: alice_against_bob(box, "thinking", 5))
    thought = [d for d in result.decisions if d.seat == 0 and d.code == "ok"]
    assert len(thought) >= 5 and min(d.ms for d in thought) >= 600  # each longer than a look's 0.5 s
    assert {d.code for d in result.decisions} <= {"ok", "forced"}
    # A look at a bot's presence asks whether its revoked mark and its holder key EXISTS: at
    # most once a seat, on its first turn, until the gateway answers; never after.
    assert spent["exists"] <= 2 * 2, f"the runner looked at presence: {spent.most_common()}"


class _DiesSilently(RedisMailbox):
    """A gateway's mailbox that says nothing when the gateway goes: neither that its streams
    left nor that their bots are gone (as when its process is killed)."""

    async def left(self, match_id: str, turn_id: int, reply_to: str = "") -> None:
        pass

    async def release(self, bot_id: str, connection: str) -> None:
        pass


def test_a_turn_lost_with_its_gateway_is_sent_again_when_the_bot_is_back(shared_redis: str) -> None:
    """A gateway dies with a bot's turn on its stream, telling nobody. The bot comes back on a
    new gateway at the same address; its runner is told it is back (its reply desk, from the
    new stream's claim) and sends the turn again, which the bot answers in its time. Redis
    keeps no copy of the turn for it: without the note the runner would wait out its turn."""
    prefix = f"test:{uuid.uuid4().hex}:"
    address = f"127.0.0.1:{free_port()}"

    def serve(box: RedisMailbox) -> tuple[ServerThread, Gateway]:
        servicer = Gateway(box, by_token, heartbeat=0.2)
        return ServerThread(ServerSettings(address=address), [
            (gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")]), servicer

    first, first_gateway = serve(_DiesSilently(shared_redis, prefix=prefix, presence_ttl=30.0))
    # Asked every decision, each answered after 1.5 s: the first gateway dies while one is out.
    bot = start_bot("tests.referee.stalling_bot", address, "tok-alice", "--stall", "1.5", "--every-decision")
    runner_box = mailbox(shared_redis, prefix)
    second = None
    try:
        wait_online(runner_box, "1")

        async def match() -> Any:
            info = MatchInfo("lost", GAME, {}, 0, 2, ["alice", "house"], 10_000, 10_000)
            # A long grace: the runner waits 15 s for a connected bot's word before it looks.
            players = [RemotePlayer(runner_box, "1", info, grace=30.0), HousePlayer(GAME, "random", 1, 3)]
            try:
                return await run_match(GAME, players, 5, clock=Clock(move=10, bank=10), match_id="lost")
            finally:
                await runner_box.close()

        def out_on_the_first() -> bool:
            return any(stream.outstanding for stream in list(first_gateway.streams.values()))

        holder: dict[str, Any] = {}
        runner = threading.Thread(target=lambda: holder.setdefault("result", asyncio.run(match())))
        runner.start()
        wait_until(out_on_the_first, 30, 0.02, "a turn out on the first gateway's stream")
        first.stop()
        second, _ = serve(mailbox(shared_redis, prefix))
        runner.join(120)
    finally:
        finish(bot)
        if second is not None:
            second.stop()
    result = holder["result"]
    asked = [d for d in result.decisions if d.seat == 0]
    assert not result.forfeited[0]
    assert {d.code for d in asked} == {"ok"}, [(d.turn, d.code) for d in asked]
    # The lost turn went again as soon as the bot was back: no turn took near the 15 s the
    # runner waits for a connected bot's word before it looks.
    assert max(d.ms for d in asked) < 10_000, sorted(d.ms for d in asked)[-3:]


def test_a_reply_desk_left_listening_on_a_closed_loop_goes_quietly(shared_redis: str) -> None:
    """A loop closed with its reply desk still listening (no ``close``): when the listener is
    collected nothing is awaited any more, and no error is left behind."""
    import gc
    import sys

    box = mailbox(shared_redis, f"test:{uuid.uuid4().hex}:")
    loop = asyncio.new_event_loop()

    async def open_a_desk() -> None:
        box._desk()
        await asyncio.sleep(0.2)  # the listener is waiting in its read

    loop.run_until_complete(open_a_desk())
    loop.close()  # the listener's task was never cancelled
    ignored: list[Any] = []
    before, sys.unraisablehook = sys.unraisablehook, ignored.append
    try:
        box._desks.clear()
        box._clients.clear()
        box._waits.clear()
        gc.collect()
    finally:
        sys.unraisablehook = before
    assert not ignored, [repr(entry.exc_value) for entry in ignored]


def test_a_gateways_heartbeat_costs_redis_the_same_for_one_bot_or_many(own_redis: str) -> None:
    """Eight bots held on one gateway: its heartbeat refreshes all their presences in one trip
    of three commands (its own key, who holds each bot, the board of bots online), not three
    commands a bot; and each bot stays present, with its presence lapsing ten heartbeats after
    its last."""
    import time

    bots = {f"tok-{n}": BotIdentity(str(n), f"bot-{n}") for n in range(8)}

    async def authenticate(token: str) -> BotIdentity | None:
        return bots.get(token)

    prefix = f"test:{uuid.uuid4().hex}:"
    beat = 0.1
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [
        (gateway_pb2_grpc.add_BotGatewayServicer_to_server,
         Gateway(RedisMailbox(own_redis, prefix=prefix, presence_ttl=10 * beat), authenticate, heartbeat=beat),
         "arena.v1.BotGateway")])
    box = RedisMailbox(own_redis, prefix=prefix, presence_ttl=10 * beat)
    processes = [start_bot("arena_bot.examples.random_bot", server.address, token) for token in bots]
    try:
        for identity in bots.values():
            wait_online(box, identity.bot_id)
        before = commands_served(own_redis)
        time.sleep(3.0)  # well past the presence time: only heartbeats keep them present
        spent = commands_served(own_redis) - before
        assert sorted(run_with(box, lambda b: b.online())) == sorted(identity.bot_id for identity in bots.values())
        for identity in bots.values():
            assert run_with(box, lambda b, bot_id=identity.bot_id: b.holder(bot_id)) is not None
    finally:
        for process in processes:
            finish(process)
        server.stop()
    beats = 3.0 / beat
    heartbeat = sum(spent[name] for name in ("set", "mget", "zadd", "get", "evalsha", "eval"))
    assert heartbeat <= 3.5 * beats, f"{heartbeat / beats:.1f} commands a heartbeat for 8 bots: {spent.most_common()}"


def test_a_bot_that_moves_to_another_gateway_mid_match_gets_the_rest_there(
        two_gateways: tuple[ServerThread, ServerThread, str], shared_redis: str) -> None:
    """The runner publishes the bot's messages to the gateway it learnt holds the bot. The bot
    comes back on the other gateway mid-match: what was published to the first for it reaches
    the second through the bot's inbox, its turns are sent again there on the runner's note,
    and the match plays on to its end on the newer stream."""
    first, second, prefix = two_gateways
    older = start_bot("tests.referee.stalling_bot", first.address, "tok-alice", "--stall", "0.3",
                      "--every-decision")
    runner_box = mailbox(shared_redis, prefix)
    newer = None
    try:
        wait_online(runner_box, "1")
        holder: dict[str, Any] = {}

        async def match() -> Any:
            info = MatchInfo("moved", GAME, {}, 0, 2, ["alice", "house"], 10_000, 10_000)
            players = [RemotePlayer(runner_box, "1", info), HousePlayer(GAME, "random", 1, 3)]
            try:
                return await run_match(GAME, players, 9, clock=Clock(move=10, bank=10), match_id="moved")
            finally:
                await runner_box.close()

        runner = threading.Thread(target=lambda: holder.setdefault("result", asyncio.run(match())))
        runner.start()
        wait_until(lambda: "1" in runner_box._routes, 20, 0.02, "the runner to learn the bot's gateway")
        time.sleep(1.0)  # a few turns on the first gateway
        newer = start_bot("tests.referee.rogue_bot", second.address, "tok-alice", "good")
        runner.join(120)
        events = finish(newer, ended, "the match's end on the newer stream")
        newer = None
    finally:
        finish(older)
        if newer is not None:
            finish(newer)
    result = holder["result"]
    asked = [d for d in result.decisions if d.seat == 0]
    assert not result.forfeited[0]
    assert {d.code for d in asked} == {"ok"}, [(d.turn, d.code) for d in asked]
    assert max(d.ms for d in asked) < 5_000, sorted(d.ms for d in asked)[-3:]
    assert any(e["kind"] == "match_ended" and e["match"] == "moved" for e in events)
