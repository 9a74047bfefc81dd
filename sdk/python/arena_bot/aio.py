"""The asyncio bot SDK: subclass ``AsyncBot``, write ``async def act``; one process can host
hundreds of bots on one event loop.

    from arena_bot.aio import AsyncBot, run
    from arena_bot.sdk import Turn

    class FirstLegal(AsyncBot):
        async def act(self, turn: Turn) -> str:
            return turn.legal_actions[0]

    if __name__ == "__main__":
        run(FirstLegal())  # token from ARENA_BOT_TOKEN, address from ARENA_ADDRESS

Many bots, each with its own token and stream, in one process:

    fleet = Fleet()
    for name, token in tokens:
        fleet.add(FirstLegal(), Connection(token=token), name)
    asyncio.run(fleet.play())

It behaves as the threaded SDK (``arena_bot.sdk``) does, and shares its types (``Match``, ``Turn``,
``MatchResult``, ``Connection``, ``FinalError``) and its protocol code: Hello with
``max_matches``, Pong on Ping, reconnects with exponential backoff and jitter, final errors,
a failing ``act`` costs only its turn, the token is never logged. The difference is where the
bot's code runs: a coroutine ``act`` runs on the event loop, with no thread per turn, so it
must not block. A bot whose ``act`` is plain synchronous work (a search, say) is written with
``def act`` and ``blocking = True``: the SDK then runs it in a thread; or it awaits
``in_thread(work, ...)`` for the slow part only.

A fleet's streams share channels: one channel (one TCP or TLS connection) carries up to
``streams_per_channel`` streams, 16 by default, the server's ``ARENA_MAX_STREAMS``; more bots
open more channels.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import AsyncIterator, Callable, Iterable, MutableMapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc

from .sdk import (
    SDK_VERSION,
    Challenges,
    Connection,
    Ended,
    FinalError,
    Match,
    MatchResult,
    Session,
    Turn,
    keep_playing,
    run_until_final,
)

__all__ = ["AsyncBot", "Challenges", "ChannelPool", "Connection", "FinalError", "Fleet", "Match", "MatchResult",
           "Turn", "in_thread", "play", "play_many", "run", "run_fleet"]

log = logging.getLogger("arena.bot")

AIO_SDK_VERSION = SDK_VERSION.replace("python", "python-asyncio")
STREAMS_PER_CHANNEL = 16  # the server's ARENA_MAX_STREAMS default
T = TypeVar("T")


class AsyncBot:
    """Subclass and implement ``act``. As for ``arena_bot.sdk.Bot``: ``games`` limits what the bot
    is offered and paired in on the ladder (empty = all), ``table_sizes`` the table sizes it plays
    on the ladder (empty = 2 players), ``max_matches`` is how many matches it plays at once,
    ``want_sample_state`` asks for a resampled full state on every turn, ``challenges`` says
    which challenges from other bots it accepts (by default none), ``every_decision`` asks for
    the decisions with a single legal action too (by default they come in ``Turn.forced``).

    ``act`` and the hooks may be coroutines (run on the event loop: they must not block) or
    plain functions (run inline too, unless ``blocking`` is true: then in a thread)."""

    games: list[str] = []
    table_sizes: list[int] = []
    max_matches: int = 1
    want_sample_state: bool = False
    challenges: Challenges = Challenges()
    every_decision: bool = False
    blocking: bool = False  # True: the plain (non-async) act and hooks run in a thread

    async def act(self, turn: Turn) -> str | int:
        """Return one of ``turn.legal_actions`` (or its index as an ``int``)."""
        raise NotImplementedError

    async def on_match_start(self, match: Match) -> None:
        """Called when a match starts (optional)."""

    async def on_match_end(self, result: MatchResult) -> None:
        """Called when a match ends (optional)."""


async def in_thread(work: Callable[..., T], *args: Any) -> T:
    """Run blocking ``work(*args)`` in a thread and wait for it without blocking the loop:
    for the slow part of an ``async def act``."""
    return await asyncio.to_thread(work, *args)


class _Named(logging.LoggerAdapter):  # type: ignore[type-arg]
    """Prefixes a fleet bot's log lines with its name (never its token)."""

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        return f"[{self.extra['name'] if self.extra else ''}] {msg}", kwargs


class AsyncSession(Session):
    """One stream of an ``AsyncBot``: the threaded SDK's session, calling the bot's code on
    the event loop (or in a thread when the bot says ``blocking``)."""

    client = AIO_SDK_VERSION

    def __init__(self, bot: AsyncBot, name: str = "", ended: Ended | None = None) -> None:
        super().__init__(bot, ended)  # type: ignore[arg-type]
        if name:
            self.log = _Named(log, {"name": name})

    def runs_inline(self, code: Any) -> bool:
        # A coroutine may await (a thread, the network): it gets a task of its own.
        return not self.bot.blocking and not inspect.iscoroutinefunction(code)

    async def call(self, code: Any, *args: Any) -> Any:
        if self.bot.blocking and not inspect.iscoroutinefunction(code):
            return await asyncio.to_thread(code, *args)
        result = code(*args)
        return await result if inspect.isawaitable(result) else result


@dataclass
class _Shared:
    channel: grpc.aio.Channel
    streams: int = 0


class ChannelPool:
    """Channels shared by many bots' streams: a stream goes on the first channel to its
    server with a free slot; when all are full a new one opens. gRPC multiplexes streams on
    one connection, but the server accepts at most ``ARENA_MAX_STREAMS`` at once on each (16
    by default): a stream beyond that would wait, never connected.

    Channels stay open until ``close``, and a reconnecting bot takes a free slot on one of
    them: the channel reconnects by itself. (A channel closed while it is reconnecting may
    leave its connection behind, open and unused, once the server is back.)"""

    def __init__(self, streams_per_channel: int = STREAMS_PER_CHANNEL) -> None:
        if streams_per_channel < 1:
            raise ValueError("streams_per_channel must be at least 1")
        self.streams_per_channel = streams_per_channel
        self.channels: dict[tuple[Any, ...], list[_Shared]] = {}

    @staticmethod
    def _server(connection: Connection) -> tuple[Any, ...]:
        """What a channel is for: streams may share it when this is the same (not the token:
        each stream carries its own)."""
        return (connection.address, connection.root_certificates, connection.tls_ca, connection.tls)

    @asynccontextmanager
    async def lease(self, connection: Connection) -> AsyncIterator[grpc.aio.Channel]:
        """A channel to ``connection``'s server with room for one more stream, for as long
        as the ``async with`` lasts."""
        channels = self.channels.setdefault(self._server(connection), [])
        shared = next((c for c in channels if c.streams < self.streams_per_channel), None)
        if shared is None:
            # Its own subchannel pool: else gRPC would put every channel with equal
            # arguments on one TCP connection, and so under one stream limit.
            shared = _Shared(connection.channel([("grpc.use_local_subchannel_pool", 1)]))
            channels.append(shared)
        shared.streams += 1
        try:
            yield shared.channel
        finally:
            shared.streams -= 1

    async def close(self) -> None:
        """Close every channel (their streams end)."""
        channels = [c for server in self.channels.values() for c in server]
        self.channels.clear()
        for shared in channels:
            await shared.channel.close()


async def play(bot: AsyncBot, connection: Connection, stop: asyncio.Event | None = None,
               pool: ChannelPool | None = None, name: str = "") -> None:
    """Play until ``stop`` is set (or forever), reconnecting with backoff. Raises
    ``FinalError`` when the gateway refuses the bot for good. With a ``pool`` the stream
    shares a channel with others; ``name`` prefixes the bot's log lines."""
    ended = Ended()
    await keep_playing(lambda: AsyncSession(bot, name, ended), connection, stop,
                       (lambda: pool.lease(connection)) if pool is not None else None)


class Fleet:
    """Many bots in one process, each with its own token and stream, on one event loop and
    shared channels. A bot that meets a final error stops; the others play on."""

    def __init__(self, streams_per_channel: int = STREAMS_PER_CHANNEL) -> None:
        self.pool = ChannelPool(streams_per_channel)
        self.bots: list[tuple[str, AsyncBot, Connection]] = []

    def add(self, bot: AsyncBot, connection: Connection, name: str = "") -> None:
        """Host ``bot``; ``name`` labels its log lines (default ``bot-<n>``)."""
        self.bots.append((name or f"bot-{len(self.bots) + 1}", bot, connection))

    async def play(self, stop: asyncio.Event | None = None) -> dict[str, BaseException | None]:
        """Play until ``stop`` is set or every bot has stopped for good; returns, by name,
        what stopped each bot (``None``: ``stop``)."""
        stop = stop or asyncio.Event()

        async def one(name: str, bot: AsyncBot, connection: Connection) -> BaseException | None:
            try:
                await play(bot, connection, stop, self.pool, name)
            except Exception as error:  # one bot's end is not the fleet's
                log.error("[%s] stopped: %s", name, error)
                return error
            return None

        try:
            outcomes = await asyncio.gather(*(one(*entry) for entry in self.bots))
        finally:
            await self.pool.close()
        return {name: outcome for (name, _, _), outcome in zip(self.bots, outcomes, strict=True)}


async def play_many(bots: Iterable[tuple[AsyncBot, Connection]], stop: asyncio.Event | None = None,
                    streams_per_channel: int = STREAMS_PER_CHANNEL) -> dict[str, BaseException | None]:
    """``Fleet.play`` for ``(bot, connection)`` pairs, named ``bot-1``, ``bot-2``, …"""
    fleet = Fleet(streams_per_channel)
    for bot, connection in bots:
        fleet.add(bot, connection)
    return await fleet.play(stop)


def run(bot: AsyncBot, connection: Connection | None = None) -> None:
    """Connect and play until interrupted (Ctrl-C); exit status 1 on a final error."""
    run_until_final(play(bot, connection or Connection()))


def run_fleet(fleet: Fleet) -> None:
    """Play the fleet until interrupted (Ctrl-C); exit status 1 once every bot has stopped
    on a final error."""

    async def until_every_bot_stops() -> None:
        stopped = await fleet.play()
        raise FinalError(f"every bot has stopped ({len(stopped)})")

    run_until_final(until_every_bot_stops())


def main(bot: AsyncBot, description: str, argv: list[str] | None = None) -> None:
    """Parse the example bots' command line (``arena_bot.cli.parse``), then ``run``."""
    from .cli import parse

    run(bot, parse(bot, description, argv))
