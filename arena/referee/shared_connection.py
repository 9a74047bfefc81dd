"""One Redis connection that an event loop's quick commands share, answered in order.

Redis answers a connection's commands in the order it read them, so every caller on a loop
can write to one connection: each exchange (a few commands written together) waits for as
many replies, and the replies, parsed as they arrive (hiredis, in C), settle the exchanges in
the order they were written. The exchanges written in one turn of the loop leave in one
system call. Compared with a pool of redis-py connections (a connection checked out and back
per exchange, a task per write, a reader waiting per reply) an exchange costs well under half
the CPU, and a runner with hundreds of matches in flight writes their turns in batches.

Only commands that answer at once belong on a shared line: a blocking one (``BLPOP``,
``XREAD BLOCK``) would hold up every exchange behind it, and goes on a line of its own. A line
can also carry a subscription (``Line.on_push``: the inbox watch's), whose messages are handed
over as the socket is read.

Failures: a connection lost fails every exchange in flight with redis's ``ConnectionError``,
and the next exchange connects again; so does ``drop`` (the caller's time for a reply ran
out). An exchange whose caller stopped waiting (cancelled) still takes its replies off the
line, so the next exchange reads its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any, cast

import hiredis
from redis.asyncio.connection import UnixDomainSocketConnection, parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

CONNECT_TIMEOUT = 5.0  # seconds to connect and be let in (redis-py's own default)
# What a URL may say for this connection: where, who, which database. Anything else (TLS,
# socket options, a protocol version) is left to redis-py's own connections.
UNDERSTOOD = frozenset({"host", "port", "db", "username", "password", "path", "connection_class"})


def understood(url: str) -> bool:
    """Whether a ``SharedConnection`` can talk to the Redis at ``url`` as redis-py would."""
    options = parse_url(url)
    return set(options) <= UNDERSTOOD and options.get("connection_class", UnixDomainSocketConnection) \
        is UnixDomainSocketConnection


class _Exchange:
    __slots__ = ("future", "left", "replies")

    def __init__(self, future: asyncio.Future[list[Any]], count: int) -> None:
        self.future = future
        self.left = count
        self.replies: list[Any] = []


class Line(asyncio.Protocol):
    """One connection: what was written on it and awaits its replies, in order. A reply
    nobody awaits (a subscription's messages) goes to ``on_push``, from the loop's read of the
    socket itself, with no task woken for it. ``ended`` is done once the connection is."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.on_push: Callable[[Any], None] | None = None
        self.ended: asyncio.Future[None] = loop.create_future()
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader(encoding="utf-8", replyError=ResponseError)
        self.in_flight: deque[_Exchange] = deque()
        self.outgoing: list[bytes] = []
        self.flush_due = False
        self.closed = False

    def send(self, commands: tuple[tuple[Any, ...], ...] | list[tuple[Any, ...]]) -> asyncio.Future[list[Any]]:
        """Queue ``commands`` for the next write; the future is their replies."""
        exchange = _Exchange(self.loop.create_future(), len(commands))
        if self.closed:
            exchange.future.set_exception(RedisConnectionError("the connection to Redis is closed"))
            return exchange.future
        data = b"".join([hiredis.pack_command(command) for command in commands])
        idle = not self.in_flight
        self.in_flight.append(exchange)
        if idle and self.transport is not None:
            # Nothing else is on its way: written at once, without waiting for company.
            self.transport.write(data)
            return exchange.future
        # Others are on their way: this one leaves with whatever else this turn of the loop writes.
        self.outgoing.append(data)
        if not self.flush_due:
            self.flush_due = True
            self.loop.call_soon(self._flush)
        return exchange.future

    async def request(self, commands: tuple[tuple[Any, ...], ...] | list[tuple[Any, ...]]) -> list[Any]:
        """The replies to ``commands``; a reply that is an error raises it (redis's
        ``ResponseError``), as redis-py does."""
        replies = await self.send(commands)
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    def _flush(self) -> None:
        self.flush_due = False
        data, self.outgoing = self.outgoing, []
        if self.transport is not None and not self.closed and data:
            self.transport.write(b"".join(data))

    def abort(self, error: BaseException) -> None:
        if self.transport is not None:
            self.transport.abort()
        self._fail(error)

    @property
    def is_connected(self) -> bool:
        return self.transport is not None and not self.closed

    async def send_command(self, *command: Any) -> None:
        """Write ``command`` expecting no reply of its own: on a subscribed connection, what
        Redis says back comes to ``on_push``."""
        if self.is_connected:
            assert self.transport is not None
            self.transport.write(hiredis.pack_command(command))

    async def disconnect(self) -> None:
        self.abort(RedisConnectionError("the connection was closed here"))

    def _fail(self, error: BaseException) -> None:
        self.closed = True
        if not self.ended.done():
            self.ended.set_result(None)
        self.outgoing = []
        in_flight, self.in_flight = self.in_flight, deque()
        for exchange in in_flight:
            if not exchange.future.done():
                exchange.future.set_exception(error)
                exchange.future.exception()  # a caller that stopped waiting never reads it

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not asyncio's class

    def connection_lost(self, exc: Exception | None) -> None:
        self._fail(RedisConnectionError(f"Redis closed the connection: {exc or 'end of stream'}"))

    def data_received(self, data: bytes) -> None:
        self.reader.feed(data)
        while True:
            try:
                reply = self.reader.gets()
            except hiredis.ProtocolError as error:
                self.abort(RedisConnectionError(f"Redis's reply could not be read: {error}"))
                return
            if reply is False:
                return
            if not self.in_flight:
                if self.on_push is not None:
                    self.on_push(reply)
                    continue
                # A reply no command asked for: the line is out of step.
                self.abort(RedisConnectionError("a reply from Redis that no command asked for"))
                return
            exchange = self.in_flight[0]
            exchange.replies.append(reply)
            exchange.left -= 1
            if exchange.left == 0:
                self.in_flight.popleft()
                if not exchange.future.done():
                    exchange.future.set_result(exchange.replies)


async def open_line(options: Mapping[str, Any], client_name: str | None = None) -> Line:
    """A new line to the Redis ``options`` describe (``parse_url``'s), logged in (``AUTH``,
    ``SELECT``, ``CLIENT SETNAME`` as they and the name say) before anything else is written
    on it."""
    loop = asyncio.get_running_loop()
    line = Line(loop)
    if "path" in options:
        await loop.create_unix_connection(lambda: line, options["path"])
    else:
        await loop.create_connection(lambda: line, options.get("host", "localhost"), options.get("port", 6379))
    login: list[tuple[Any, ...]] = []
    if options.get("password"):
        login.append(("AUTH", *([options["username"]] if options.get("username") else []), options["password"]))
    if options.get("db"):
        login.append(("SELECT", options["db"]))
    if client_name:
        login.append(("CLIENT", "SETNAME", client_name))
    if login:
        try:
            await line.request(login)
        except ResponseError as refused:
            line.abort(RedisConnectionError(f"Redis refused the connection: {refused}"))
            raise RedisConnectionError(f"Redis refused the connection: {refused}") from refused
        except BaseException:
            line.abort(RedisConnectionError("the login was interrupted"))
            raise
    return line


class SharedConnection:
    """See the module's docstring. Belongs to the event loop that made it."""

    def __init__(self, url: str, client_name: str | None = None) -> None:
        self._options = parse_url(url)
        self._client_name = client_name
        self.loop = asyncio.get_running_loop()
        self._line: Line | None = None  # connected and logged in
        self._opening: asyncio.Future[Line] | None = None

    async def execute(self, commands: tuple[tuple[Any, ...], ...] | list[tuple[Any, ...]]) -> list[Any]:
        """The replies to ``commands``, written together. A reply that is an error raises it
        (redis's ``ResponseError``), as redis-py does."""
        line = self._line
        if line is None or line.closed:
            line = await self._open()
        return await line.request(commands)

    async def _open(self) -> Line:
        """Connect and log in, once for every caller waiting meanwhile."""
        if self._opening is not None:
            return await asyncio.shield(self._opening)
        opening = self._opening = self.loop.create_future()
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                line = await open_line(self._options, self._client_name)
        except BaseException as error:
            failure = error if isinstance(error, RedisConnectionError) \
                else RedisConnectionError(f"could not connect to Redis: {error!r}")
            opening.set_exception(failure)  # the callers waiting meanwhile try again themselves
            opening.exception()  # retrieved: they have theirs
            if isinstance(error, asyncio.CancelledError):
                raise
            raise failure from error
        finally:
            self._opening = None
        self._line = line
        opening.set_result(line)
        return line

    def drop(self, error: BaseException | None = None) -> None:
        """Close the connection: every exchange in flight fails, and the next connects again."""
        line, self._line = self._line, None
        if line is not None:
            line.abort(error or RedisConnectionError("the connection to Redis was dropped"))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError):  # its loop is already closed
            self.drop()
