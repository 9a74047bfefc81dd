"""The connection an event loop's quick mailbox commands share, against real Redis servers:
replies reach the exchanges that asked, in any number at once; a caller that stops waiting
leaves the line in step; a lost, stalled or restarted Redis fails what is in flight and the
next exchange connects again; the URL's database, password and socket are honoured."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from arena.referee.loops import new_event_loop
from arena.referee.mailbox import RedisMailbox
from arena.referee.shared_connection import SharedConnection, understood
from tests.support.services import RedisServer, private_redis


@pytest.mark.parametrize("loop_factory", [asyncio.new_event_loop, new_event_loop], ids=["asyncio", "served"])
def test_many_exchanges_at_once_each_get_their_own_replies(shared_redis: str, loop_factory: Any) -> None:
    """On asyncio's loop, and on the one the live worker and ``arena serve`` run (uvloop)."""
    async def scenario() -> list[list[object]]:
        shared = SharedConnection(shared_redis)
        try:
            return await asyncio.gather(*(shared.execute((("ECHO", f"a{i}"), ("ECHO", f"b{i}")))
                                          for i in range(2000)))
        finally:
            shared.close()

    with asyncio.Runner(loop_factory=loop_factory) as runner:
        replies = runner.run(scenario())
    assert replies == [[f"a{i}", f"b{i}"] for i in range(2000)]


def test_a_caller_that_stops_waiting_leaves_the_line_in_step(shared_redis: str) -> None:
    async def scenario() -> tuple[list[object], list[object]]:
        shared = SharedConnection(shared_redis)
        try:
            await shared.execute((("PING",),))
            abandoned = asyncio.ensure_future(shared.execute((("ECHO", "first"), ("ECHO", "second"))))
            await asyncio.sleep(0)  # written, its replies on their way
            abandoned.cancel()
            after = await shared.execute((("ECHO", "third"),))
            many = await asyncio.gather(*(shared.execute((("ECHO", str(i)),)) for i in range(50)))
            return after, [reply for (reply,) in many]
        finally:
            shared.close()

    after, many = asyncio.run(scenario())
    assert after == ["third"]
    assert many == [str(i) for i in range(50)]


def test_an_error_reply_is_raised_and_the_line_goes_on(shared_redis: str) -> None:
    async def scenario() -> list[object]:
        shared = SharedConnection(shared_redis)
        try:
            with pytest.raises(ResponseError, match="unknown command"):
                await shared.execute((("ECHO", "x"), ("NO-SUCH-COMMAND",)))
            return await shared.execute((("ECHO", "y"),))
        finally:
            shared.close()

    assert asyncio.run(scenario()) == ["y"]


def test_a_restarted_redis_fails_what_is_in_flight_and_is_connected_again(tmp_path: Path) -> None:
    server = RedisServer(tmp_path, persist=False)
    server.start()
    try:
        async def scenario() -> tuple[BaseException | list[object], list[object]]:
            shared = SharedConnection(server.url)
            try:
                await shared.execute((("SET", "k", "1"),))
                # A script that holds Redis for seconds, cut off by the server's death.
                slow = asyncio.ensure_future(shared.execute(
                    (("EVAL", "local t = redis.call('time')[1] + 0 while redis.call('time')[1] - t < 3 do end", 0),)))
                await asyncio.sleep(0.3)
                server.kill()
                in_flight: BaseException | list[object]
                try:
                    in_flight = await slow
                except RedisConnectionError as error:
                    in_flight = error
                await asyncio.to_thread(server.start)
                return in_flight, await shared.execute((("SET", "k", "2"), ("GET", "k")))
            finally:
                shared.close()

        in_flight, after = asyncio.run(scenario())
        assert isinstance(in_flight, RedisConnectionError)
        assert after == ["OK", "2"]
    finally:
        server.kill()


def test_a_stalled_redis_times_the_exchange_out_and_the_mailbox_connects_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import arena.referee.mailbox as mailbox_module

    monkeypatch.setattr(mailbox_module, "REPLY_TIMEOUT", 0.3)
    with private_redis(tmp_path) as url:
        async def scenario() -> tuple[float, BaseException | None, list[object]]:
            mailbox = RedisMailbox(url, prefix="t:")
            try:
                await mailbox._send(("SET", "k", "1"))
                pauser = redis.Redis.from_url(url)
                pauser.execute_command("CLIENT", "PAUSE", "1500", "ALL")
                started = time.monotonic()
                failure: BaseException | None = None
                try:
                    await mailbox._send(("GET", "k"))
                except RedisConnectionError as error:
                    failure = error
                took = time.monotonic() - started
                await asyncio.sleep(1.5)  # the pause ends
                return took, failure, await mailbox._send(("GET", "k"))
            finally:
                await mailbox.close()

        took, failure, after = asyncio.run(scenario())
        # Given up within the bound: without it the reply would have come once the 1.5 s pause
        # ended, and no error at all. (Three tries of 0.3 s and their short pauses; the bound
        # on the time is loose, the machine may be busy.)
        assert isinstance(failure, RedisConnectionError) and "did not answer" in str(failure)
        assert took < 1.5 + 1.0
        assert after == ["1"]


def test_the_urls_database_password_and_socket_are_honoured(tmp_path: Path) -> None:
    socket = tmp_path / "redis.sock"
    with private_redis(tmp_path, None, "--unixsocket", str(socket), "--unixsocketperm", "700") as url:
        port = url.rsplit(":", 1)[1].split("/")[0]
        redis.Redis.from_url(url).config_set("requirepass", "sesame")
        checker = redis.Redis(port=int(port), password="sesame", db=3, decode_responses=True)

        async def scenario() -> list[object]:
            over_tcp = SharedConnection(f"redis://:sesame@127.0.0.1:{port}/3", client_name="arena-test")
            over_socket = SharedConnection(f"unix://:sesame@{socket}?db=3")
            try:
                replies = await over_tcp.execute((("SET", "where", "tcp"), ("CLIENT", "GETNAME")))
                replies += await over_socket.execute((("GET", "where"),))
                wrong = SharedConnection(f"redis://:wrong@127.0.0.1:{port}/3")
                with pytest.raises(RedisConnectionError, match="refused"):
                    await wrong.execute((("PING",),))
                return replies
            finally:
                over_tcp.close()
                over_socket.close()

        assert asyncio.run(scenario()) == ["OK", "arena-test", "tcp"]
        assert checker.get("where") == "tcp"  # in database 3


def test_only_urls_it_can_serve_as_redis_py_would_are_shared() -> None:
    assert understood("redis://127.0.0.1:6379/0")
    assert understood("redis://user:pw@redis.internal:6380/2")
    assert understood("unix:///var/run/redis.sock?db=1")
    assert not understood("rediss://redis.internal:6380/0")  # TLS: redis-py's connections
    assert not understood("redis://127.0.0.1:6379/0?socket_keepalive=true")
