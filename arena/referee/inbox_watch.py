"""One subscription per event loop to the inboxes of the bots a gateway collects for.

Without it, each connected bot's forwarder waits for its messages in a ``BLPOP`` of its own: a
Redis connection per bot, and every idle bot's wait made again once a second. With it, one
connection per loop subscribes to the keyspace channel of each bot's inbox (Redis keyspace
notifications, ``notify-keyspace-events`` with ``K`` and ``l``). Redis says when a message is
pushed there, and only then does the forwarder pop it (``LPOP``, which answers at once). An
idle bot costs Redis nothing, and a gateway's connections no longer grow with its bots.

The same connection listens on the gateway's post channel (``post:{gateway}``): a runner that
knows which gateway holds a bot publishes the bot's messages there, one command a message and
nothing to pop. A message published there for a bot no stream here collects any more is pushed
to the bot's inbox, where whichever gateway holds it next takes it. Per bot, what the
connection tells (a push to the inbox, a message published) is queued in the order Redis told
it, so the two ways in never overtake each other.

The watch turns the notifications on itself (``CONFIG SET``, adding to the flags already set).
Where Redis refuses (``CONFIG`` renamed or denied), ``supported`` is False and the mailbox waits
with ``BLPOP`` as before. Pub/sub tells at most once, so silence is trusted only for a bot whose
subscription Redis has confirmed on a connection still up: until then, and while the connection
is down, the bot's collector pops at each wait.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from typing import Any

from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from .loops import loop_gone
from .shared_connection import CONNECT_TIMEOUT, Line, open_line, understood

log = logging.getLogger("arena.mailbox")

# The events that put something in a list (LPOP's own event, an expiry, ... wake nobody).
PUSHES = frozenset({"rpush", "lpush", "rpushx", "lpushx", "linsert"})
UNUSED_AFTER = 30.0  # seconds a bot's inbox stays subscribed after its last collect
SWEEP_EVERY = 10.0  # seconds between two looks for inboxes nobody collects any more
RECONNECT_MAX = 1.0  # seconds between two tries to subscribe again, at most

class _Take:
    """In a bot's queue: a message was pushed to its inbox, to be popped in its turn."""


TAKE = _Take()


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def needed_flags(flags: str) -> str:
    """What ``notify-keyspace-events`` must become for the watch, from what it is: keyspace
    channels (``K``) for list events (``l``, or ``A``: every class), added to the rest."""
    missing = "" if "K" in flags else "K"
    if "l" not in flags and "A" not in flags:
        missing += "l"
    return flags + missing


class InboxWatch:
    """Keyspace notifications for one event loop's inboxes (see the module's docstring).
    A bot's inbox is the key ``inbox_prefix`` followed by the bot's id."""

    def __init__(self, url: str, inbox_prefix: str, post_channel: Callable[[str], str],
                 spill: Callable[[str, list[dict[str, Any]]], Awaitable[None]],
                 resubscribed: Callable[[list[str]], Awaitable[None]], names: dict[str, Any]) -> None:
        import redis.asyncio as aioredis

        # No read timeout: the connection waits for Redis's word as long as it takes.
        self._pool = aioredis.ConnectionPool.from_url(url, decode_responses=True, socket_timeout=None, **names)
        # Where the URL allows, the subscription is read on a line of our own: each message is
        # handled from the loop's read of the socket, with no task woken and no redis-py parse
        # per message. Otherwise (TLS, socket options) on redis-py's connection.
        self._line_options = parse_url(url) if understood(url) else None
        self._client_name = names.get("client_name")
        db = self._pool.connection_kwargs.get("db", 0)
        self._channels = f"__keyspace@{db}__:"
        self._inboxes = self._channels + inbox_prefix  # a bot's inbox channel, less its id
        self.used: dict[str, float] = {}  # bot -> its last collect (loop time): subscribed, or to be
        self.confirmed: set[str] = set()  # bots whose subscription Redis confirmed on this connection
        # Per bot, in the order told: messages published for it, and ``TAKE`` for each push to
        # its inbox not yet popped here (each message is pushed alone; another gateway's stream
        # may have popped it, and the pop finds the inbox empty).
        self.queued: dict[str, deque[dict[str, Any] | _Take]] = {}
        self._post_channel = post_channel
        self.posts: dict[str, str] = {}  # post channel -> the gateway served here
        self._spill = spill  # pushes a bot's messages to its inbox
        self._resubscribed = resubscribed  # told which bots were followed across a lost connection
        self._spilling: set[asyncio.Task[None]] = set()
        self.draining: set[str] = set()  # bots whose inbox is popped until empty (just confirmed)
        self._waiting: dict[str, list[asyncio.Future[None]]] = defaultdict(list)
        self._connection: Any = None  # while subscribed and up
        self.supported: bool | None = None  # unknown until the first connection
        self.known = asyncio.Event()  # set once ``supported`` is known
        self.loop = asyncio.get_running_loop()
        self._swept = self.loop.time()
        self.listener = asyncio.ensure_future(self._listen())

    def _channel(self, bot_id: str) -> str:
        return self._inboxes + bot_id

    def _bot(self, channel: str) -> str | None:
        """The bot whose inbox ``channel`` tells of, or None for another channel."""
        return channel[len(self._inboxes):] if channel.startswith(self._inboxes) else None

    def trusted(self, bot_id: str) -> bool:
        """Whether a push to the bot's inbox would be told now: if so, silence means empty."""
        return self._connection is not None and bot_id in self.confirmed

    async def collect(self, bot_id: str, timeout: float, pop: Callable[[], Awaitable[dict[str, Any] | None]]
                      ) -> dict[str, Any] | None:
        """The bot's next message (``pop()`` takes one from its inbox, None when empty),
        popping only when the inbox may hold one; None after ``timeout`` seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self._follow(bot_id, loop.time())
        while True:
            if bot_id in self.draining or not self.trusted(bot_id):
                # Pushes may have gone untold: the inbox first, until it is empty.
                message = await pop()
                if message is not None:
                    return message
                self.draining.discard(bot_id)
            queued = self.queued.get(bot_id)
            if queued:
                item = queued.popleft()
                if not isinstance(item, _Take):
                    return item
                message = await pop()
                if message is not None:
                    return message
                continue
            left = deadline - loop.time()
            if left <= 0:
                return None
            if bot_id not in self.draining and not self.queued.get(bot_id):
                await self._sleep(bot_id, left)

    def serve(self, gateway: str) -> None:
        """Listen on ``gateway``'s post channel (its streams claim bots on this loop)."""
        channel = self._post_channel(gateway)
        if channel not in self.posts:
            self.posts[channel] = gateway
            self._later(self._command("SUBSCRIBE", channel))

    def _later(self, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._spilling.add(task)
        task.add_done_callback(self._spilling.discard)

    def _let_go(self, bots: list[str]) -> None:
        """Forget ``bots`` here; the messages published for them and not collected go to
        their inboxes, in their order."""
        for bot in bots:
            self.used.pop(bot, None)
            self.confirmed.discard(bot)
            self.draining.discard(bot)
            left = [item for item in self.queued.pop(bot, ()) if not isinstance(item, _Take)]
            if left:
                self._later(self._spill(bot, left))  # type: ignore[arg-type]

    async def _sleep(self, bot_id: str, seconds: float) -> None:
        """Until the bot's inbox is told of, or ``seconds`` pass."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._waiting[bot_id].append(future)
        timer = loop.call_later(seconds, _resolve, future)
        try:
            await future
        finally:
            timer.cancel()
            waiting = self._waiting.get(bot_id)
            if waiting is not None:
                with contextlib.suppress(ValueError):
                    waiting.remove(future)
                if not waiting:
                    del self._waiting[bot_id]

    def _wake(self, bot_id: str) -> None:
        for future in self._waiting.get(bot_id, ()):
            _resolve(future)

    def follow(self, bot_id: str) -> None:
        """A stream here is to collect the bot's messages: its inbox is subscribed to, and
        what is published for it waits here from now on."""
        first = bot_id not in self.used
        self.used[bot_id] = self.loop.time()
        if first:
            self._later(self._command("SUBSCRIBE", self._channel(bot_id)))

    async def _follow(self, bot_id: str, now: float) -> None:
        """``follow`` the bot, and let go of the bots nobody collects for any more."""
        self.follow(bot_id)
        if now - self._swept >= SWEEP_EVERY:
            self._swept = now
            unused = [bot for bot, last in self.used.items()
                      if now - last >= UNUSED_AFTER and bot not in self._waiting]
            self._let_go(unused)
            if unused:
                await self._command("UNSUBSCRIBE", *(self._channel(bot) for bot in unused))

    async def _command(self, *args: str) -> None:
        """Write a (un)subscription on the watch's connection, if it is up: the listener reads
        Redis's confirmation. A connection down is subscribed to everything when it is back."""
        connection = self._connection
        if connection is None or not connection.is_connected:
            return
        with contextlib.suppress(Exception):  # the listener sees the connection fail
            await connection.send_command(*args)

    async def _notifications_on(self, connection: Any) -> bool:
        """Turn on the keyspace notifications the watch needs; False if Redis refuses."""
        async def ask(*command: Any) -> Any:
            if isinstance(connection, Line):
                (reply,) = await connection.request([command])
                return reply
            await connection.send_command(*command)
            return await connection.read_response()

        try:
            reply = await ask("CONFIG", "GET", "notify-keyspace-events")
            flags = (reply.get("notify-keyspace-events") if isinstance(reply, dict) else reply[1]) or ""
            wanted = needed_flags(flags)
            if wanted != flags:
                await ask("CONFIG", "SET", "notify-keyspace-events", wanted)
        except ResponseError as error:
            log.warning("Redis refused keyspace notifications (%s): each bot waits on a connection of its own",
                        error)
            return False
        return True

    async def _listen(self) -> None:
        attempt = 0
        while True:
            connection: Any = None
            try:
                connection = await self._connect()
                if not await self._notifications_on(connection):
                    self.supported = False
                    self.known.set()
                    await connection.disconnect()
                    return
                self.supported = True
                self.known.set()
                self._connection = connection
                if isinstance(connection, Line):
                    connection.on_push = self._on
                if self.used or self.posts:
                    await connection.send_command("SUBSCRIBE", *self.posts,
                                                  *(self._channel(bot) for bot in self.used))
                if attempt and self.used:  # what was published here meanwhile is lost: sent again
                    self._later(self._resubscribed(list(self.used)))
                attempt = 0
                if isinstance(connection, Line):  # its messages go to _on as they are read
                    await connection.ended
                    raise RedisConnectionError("the subscription's connection closed")
                while True:
                    # Under RESP3 the notifications are pushes, read only when asked for.
                    self._on(await connection.read_response(push_request=True))
            except asyncio.CancelledError:
                self._lost()
                raise
            except Exception as error:  # the connection failed: subscribe again once Redis answers
                self._lost()
                if loop_gone():
                    return
                if connection is not None:
                    with contextlib.suppress(Exception):
                        await connection.disconnect()
                if attempt == 0:
                    log.info("inbox notifications interrupted (%s): subscribing again", error)
            attempt += 1
            await asyncio.sleep(min(RECONNECT_MAX, 0.05 * attempt))

    async def _connect(self) -> Any:
        """A connection for the subscription: a ``Line`` where the URL allows, else redis-py's."""
        if self._line_options is not None:
            async with asyncio.timeout(CONNECT_TIMEOUT):
                return await open_line(self._line_options, self._client_name)
        connection = self._pool.make_connection()
        await connection.connect()
        return connection

    def _lost(self) -> None:
        """The connection is gone: nothing is trusted, and every waiting collector looks."""
        self._connection = None
        self.confirmed.clear()
        for bot_id in list(self._waiting):
            self._wake(bot_id)

    def _on(self, reply: Any) -> None:
        kind, channel, data = reply[0], reply[1], reply[2]
        if kind == "message" and channel in self.posts:
            try:
                bot_id, message = json.loads(data)
                if not isinstance(bot_id, str) or not isinstance(message, dict) or "kind" not in message:
                    raise ValueError("not [bot, message]")
            except (ValueError, TypeError) as error:  # not a runner's: dropped, the rest goes on
                log.warning("a message on %s that is not a bot's message was dropped: %s", channel, error)
                return
            self._queue(bot_id, message)
            return
        bot_id = self._bot(channel)
        if bot_id is None or bot_id not in self.used:
            return
        if kind == "message":
            if data in PUSHES:
                self._queue(bot_id, TAKE)
        elif kind == "subscribe":
            # From now on a push is told: what came before is popped until the inbox is empty.
            self.confirmed.add(bot_id)
            self.draining.add(bot_id)
            self._wake(bot_id)
        elif kind == "unsubscribe":
            # Subscribed again since (the bot came back): trusted once that is confirmed.
            self.confirmed.discard(bot_id)

    def _queue(self, bot_id: str, item: dict[str, Any] | _Take) -> None:
        if bot_id not in self.used:  # published for a bot no stream here collects
            if not isinstance(item, _Take):
                self._later(self._spill(bot_id, [item]))
            return
        self.queued.setdefault(bot_id, deque()).append(item)
        self._wake(bot_id)

    async def unwatch(self, bot_id: str) -> None:
        """No stream here collects for the bot any more: let go of its inbox at once (the
        sweep would, later). With no inbox left, the watch stops (``idle``)."""
        if bot_id not in self.used:
            return
        self._let_go([bot_id])
        await self._command("UNSUBSCRIBE", self._channel(bot_id))
        if not self.used:
            await self.close()

    @property
    def idle(self) -> bool:
        """Stopped with no inbox to watch: the next collect starts a new watch."""
        return self.listener.done() and not self.used

    async def close(self) -> None:
        """Stop listening; from another loop than the watch's (or after it closed), only that."""
        try:
            mine = asyncio.get_running_loop() is self.loop
            self.listener.cancel()
        except RuntimeError:  # its loop is already closed
            return
        if not mine:
            return
        connection = self._connection
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await self.listener
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.disconnect()
