"""Shared helpers for the gRPC tests: the game they play, the bots' tokens, real SDK bot
processes and waiting for them, the server's admin credentials."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena import games
from arena.referee import external
from arena.referee.gateway import BotIdentity
from arena.referee.mailbox import LocalMailbox, Mailbox, RedisMailbox
from arena.referee.remote import MatchInfo, RemotePlayer
from arena.server.embedded import BackgroundServer
from arena.store import db
from tests.helpers import ROOT, wait_until

T = TypeVar("T")

# A server on its own loop thread, so tests can use ordinary blocking clients.
ServerThread = BackgroundServer


TOKENS = {"tok-alice": BotIdentity("1", "alice"), "tok-bob": BotIdentity("2", "bob")}


async def by_token(token: str) -> BotIdentity | None:
    return TOKENS.get(token)


GAME = "crazy_eights" if "crazy_eights" in games.names() else games.names()[0]


def start_bot(module: str, address: str, token: str, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": address, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", module, *args], env=env, cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@contextlib.contextmanager
def playing(module: str, address: str, token: str, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real bot process (``start_bot``), connected before the ``with`` body runs and
    stopped after it."""
    bot = start_bot(module, address, token, *args)
    try:
        wait_connected(token)
        yield bot
    finally:
        bot.terminate()
        bot.communicate(timeout=10)


def run_with(mailbox: Mailbox, use: Callable[[Mailbox], Awaitable[T]]) -> T:
    """``use(box)`` on an event loop of its own, ``box`` being ``mailbox``, or for a Redis one
    a copy of it (the same Redis and keys): its connections belong to the loop that made them,
    and a test may run matches on several threads at once."""
    async def run() -> T:
        if not isinstance(mailbox, RedisMailbox):
            return await use(mailbox)
        box = RedisMailbox(mailbox._url, prefix=mailbox.prefix, presence_ttl=mailbox.presence_ttl)
        try:
            return await use(box)
        finally:
            await box.close()

    return asyncio.run(run())


def wait_online(mailbox: Mailbox, bot_id: str, timeout: float = 20.0) -> None:
    wait_until(lambda: run_with(mailbox, lambda box: box.holder(bot_id)) is not None, timeout, 0.05,
               f"bot {bot_id} to connect")


def live_matches(mailbox: Mailbox, bot_id: str) -> int:
    """How many matches the bot is playing at once, as the mailbox counts them."""
    if isinstance(mailbox, LocalMailbox):
        return len(mailbox._live[bot_id])
    return run_with(mailbox, lambda box: box.redis.zcard(box._k("live", bot_id)))  # type: ignore[attr-defined]


def remote(mailbox: Mailbox, bot_id: str, match_id: str, seat: int, grace: float = 5.0,
           game: str = GAME) -> RemotePlayer:
    info = MatchInfo(match_id=match_id, game=game, options={}, seat=seat, num_players=2,
                     players=["alice", "house"], move_deadline_ms=2000, time_bank_ms=5000)
    return RemotePlayer(mailbox, bot_id, info, grace=grace)


def events(output: bytes) -> list[dict[str, Any]]:
    """The JSON lines a test bot printed, one per message it received."""
    return [json.loads(line) for line in output.decode().splitlines() if line.startswith("{")]


def finish(bot: subprocess.Popen[bytes], until: Callable[[list[dict[str, Any]]], bool] | None = None,
           what: str = "the bot's messages", timeout: float = 20.0) -> list[dict[str, Any]]:
    """Stop a bot and read what it received: with ``until``, first wait for the messages it
    names (the last of a match may still be in flight when the runner is done)."""
    received = b""
    if until is not None:
        fd = bot.stdout.fileno()  # type: ignore[union-attr]
        deadline = time.monotonic() + timeout
        while not until(events(received[:received.rfind(b"\n") + 1])):
            left = deadline - time.monotonic()
            assert left > 0, f"timed out after {timeout} s waiting for {what}: {events(received)}"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                assert chunk, f"the bot ended before {what}: {events(received)}"
                received += chunk
    bot.terminate()
    return events(received + bot.communicate(timeout=10)[0])


def move_results(received: list[dict[str, Any]]) -> list[str]:
    """The codes of the move results a test bot received, in order."""
    return [e["code"] for e in received if e["kind"] == "move_result"]


def ended(received: list[dict[str, Any]]) -> bool:
    """Whether a test bot was told its match ended."""
    return any(e["kind"] == "match_ended" for e in received)


ADMIN = (("authorization", "Bearer admin-secret"),)


def register(arena: arena_pb2_grpc.ArenaStub, name: str) -> str:
    return arena.RegisterBot(arena_pb2.RegisterBotRequest(name=name, owner="tests")).token


def wait_connected(token: str) -> None:
    with db.transaction() as connection:
        bot_id = connection.execute(sa.text("select bot_id from bot_token where token_hash = :h"),
                                    {"h": hashlib.sha256(token.encode()).hexdigest()}).scalar_one()
    assert external.wait_connected([bot_id], 20), "bot never connected"


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)
