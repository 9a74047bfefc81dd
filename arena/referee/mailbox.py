"""The mailbox between the match runner and the gateway.

The runner (in a worker, anywhere) and the gateway (where the bot's stream is) never talk
directly. Through the mailbox:

- the runner *delivers* messages for a bot (match started, turn, move result, match ended)
  and *awaits the move* for one (match, turn);
- the gateway *collects* a bot's messages to send down its stream, *posts moves* it read
  from the stream (each with the bot's time, measured there), and keeps the bot's *presence* (which connection is live, and since when
  it has been gone).

Two implementations with the same behaviour: ``LocalMailbox`` (in-process, the embedded
default) and ``RedisMailbox`` (channels, lists, streams and keys in Redis, so a worker on one
machine can run a match whose bots are connected to gateways on others: a bot's messages are
published to the gateway that holds it, or wait in its inbox list when none listens).

Every message is a JSON-ready dict with a ``kind``. A bot that reconnects is sent its
undecided turns again: the in-process mailbox keeps them per bot until decided; the Redis one
keeps nothing per turn, and instead tells each runner playing the bot that it is back (a
``{"back": True}`` note on the runner's reply desk), and the runner sends its turn again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import threading
import time
import uuid
from collections import defaultdict, deque
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from .inbox_watch import InboxWatch
from .loops import loop_gone
from .shared_connection import SharedConnection, understood

# How long mailbox keys outlive their use in Redis: long enough for any match, short enough
# that a crashed worker leaves no garbage behind for ever.
KEY_TTL = 6 * 3600
SEND_ATTEMPTS = 3  # tries of one step on the move's path before Redis counts as out of reach
# Connections one process may open to the Redis mailbox for waits that block (a gateway's
# BLPOP per connected bot; Redis itself accepts 10,000 clients by default, across every process).
MAX_CONNECTIONS = 5000
# Connections an event loop uses for commands that answer at once, however many matches it
# plays: a burst of sends waits its turn for one of them instead of opening more (seconds).
BRIEF_CONNECTIONS = 32
BRIEF_WAIT = 30.0
REPLY_TTL = 60  # seconds an answer nobody pops lives in Redis
LISTEN_WAIT = 1.0  # seconds a reply desk's listener blocks in one read
DESK_TTL = 60  # seconds a reply desk outlives its listener's last renewal
DESK_RENEW = 10.0  # seconds between two renewals of a reply desk's expiry
DESK_TRIM = 256  # answers read between two trims of a reply desk
DESK_BATCH = 512  # answers taken from a reply desk in one read
ONLINE = "online"  # the key of the board of bots online (``RedisMailbox``; the status page reads it)
# The messages that open and close a bot's part in a match: the bot's mailbox keys get their
# expiry with these, once a match, not with every turn.
LIFETIME_KINDS = frozenset({"match_started", "match_ended"})
DEAF_FOR = 10.0  # seconds a gateway found not listening on its post channel is not published to
# Seconds Redis has to answer a command (beyond the time it may block by design) before its
# connection counts as lost: redis-py's own default socket timeout, applied here once per
# exchange. (redis-py applies its socket timeout to every write as a task of its own, which
# costs the move's path more loop turns than the write.)
REPLY_TIMEOUT = 5.0


class Mailbox:
    """The interface both implementations share (all coroutines)."""

    async def deliver(self, bot_id: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for the bot (the in-process mailbox also keeps a ``turn`` pending
        until decided)."""
        raise NotImplementedError

    async def collect(self, bot_id: str, timeout: float) -> dict[str, Any] | None:
        """The bot's next message, waiting up to ``timeout`` seconds."""
        raise NotImplementedError

    async def requeue(self, bot_id: str, message: dict[str, Any]) -> None:
        """Put a collected message back at the front (its stream closed before sending it)."""
        raise NotImplementedError

    async def unwatch(self, bot_id: str) -> None:
        """No stream of this process collects the bot's messages any more: whatever waits
        for them on its behalf may stop (the Redis mailbox's inbox watch)."""

    async def pending_turns(self, bot_id: str) -> list[dict[str, Any]]:
        """Turns kept for the bot and not yet decided, sent again on reconnect (the Redis
        mailbox keeps none: their runners send them again, ``resend``)."""
        raise NotImplementedError

    async def settle(self, bot_id: str, match_id: str, turn_id: int,
                     result: dict[str, Any] | None = None) -> None:
        """The turn is decided: forget it as pending, and deliver ``result`` (its
        ``move_result``) in the same step."""
        raise NotImplementedError

    async def post_move(self, match_id: str, turn_id: int, move: dict[str, Any], reply_to: str = "",
                        settled_for: str = "") -> None:
        """A bot's answer for (match, turn), for the runner: its choice and ``latency_ms``,
        the bot's time as the gateway measured it; or the gateway's ``timeout`` when the
        turn's time ran out on the bot's stream (``wire.to_mailbox_move``, ``wire.timed_out``).
        ``reply_to``: the turn's ``reply_to`` (the runner's process-wide reply queue), if any.
        ``settled_for``: the bot whose pending turn this answer settles in the same step (the
        gateway already told the bot its move is applied: ``acknowledged``)."""
        raise NotImplementedError

    async def await_move(self, match_id: str, turn_id: int, timeout: float) -> dict[str, Any] | None:
        """The answer for (match, turn), or None after ``timeout`` seconds."""
        raise NotImplementedError

    async def left(self, match_id: str, turn_id: int, reply_to: str = "") -> None:
        """The bot's stream closed with (match, turn) written to it and unanswered: its runner
        is told, with a note (``{"left": True}``) where the answer goes, so it looks at the
        bot's presence now. The turn stays open: its answer may still come, on a new stream."""
        await self.post_move(match_id, turn_id, {"left": True}, reply_to)

    async def ask(self, bot_id: str, turn: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """``deliver`` a turn, then ``await_move`` its answer up to ``timeout`` seconds (in
        one trip where the mailbox can)."""
        await self.deliver(bot_id, turn)
        return await self.await_move(turn["match_id"], turn["turn_id"], timeout)

    async def resend(self, bot_id: str, turn: dict[str, Any]) -> None:
        """Deliver an undecided turn again, marked ``resent``: the bot is back on a stream that
        may never have had it (its runner was told, ``{"back": True}``, or found it present
        after a ``left`` note). The gateway gives it what is left of its first deadline, and a
        stream that has the turn already does not write it twice."""
        await self.deliver(bot_id, turn | {"resent": True})

    async def claim(self, bot_id: str, connection: str) -> None:
        """``connection`` is now the bot's live stream (a newer one replaces an older); its
        gateway's heartbeat keeps it so (``renew_all``)."""
        raise NotImplementedError

    async def renew_all(self, gateway: str, held: dict[str, str]) -> dict[str, str | None]:
        """The heartbeat of ``gateway``, for every bot it holds (bot -> its connection): each
        presence is refreshed unless a newer connection holds the bot. Returns the holder
        found for each bot (None when nobody held it)."""
        found: dict[str, str | None] = {}
        for bot_id, connection in held.items():
            holder = found[bot_id] = await self.holder(bot_id)
            if holder in (connection, None):
                await self.claim(bot_id, connection)
        return found

    async def release(self, bot_id: str, connection: str) -> None:
        """``connection`` ended; the bot is gone unless a newer connection holds it."""
        raise NotImplementedError

    async def holder(self, bot_id: str) -> str | None:
        """The connection that holds the bot now, or None."""
        raise NotImplementedError

    async def online(self) -> list[str]:
        """The bots with a live stream now, on any gateway (the ladder pairs them)."""
        raise NotImplementedError

    async def offline_since(self, bot_id: str) -> float | None:
        """Epoch seconds since the bot has had no live connection (None when connected;
        the Unix epoch when it has never connected)."""
        raise NotImplementedError

    async def enter_match(self, bot_id: str, match_id: str, limit: int) -> bool:
        """Count ``match_id`` among the bot's live matches unless it already has ``limit``;
        True when the match is (or already was) counted."""
        raise NotImplementedError

    async def leave_match(self, bot_id: str, match_id: str) -> None:
        """The match is over for the bot: it no longer counts against its limit."""
        raise NotImplementedError

    async def set_prefs(self, bot_id: str, prefs: dict[str, Any]) -> None:
        """What the bot asked for in its Hello (e.g. ``want_sample_state``), for runners."""
        raise NotImplementedError

    async def prefs(self, bot_id: str) -> dict[str, Any]:
        """The bot's last Hello preferences ({} if it never connected)."""
        raise NotImplementedError

    async def set_revoked(self, bot_id: str, revoked: bool) -> None:
        """Mark the bot revoked (its matches forfeit at once), or clear the mark when it
        comes back with a live token."""
        raise NotImplementedError

    async def revoked(self, bot_id: str) -> bool:
        """Whether the bot's token was revoked while it had matches to play."""
        raise NotImplementedError

    async def close(self) -> None:
        """Release resources."""


@functools.cache
def _bounded_redis() -> Any:
    """redis.asyncio's client, each command's reply bounded by ``REPLY_TIMEOUT`` (its pool has
    no socket timeout of its own, for ``_send``'s sake). Imported when first used: an
    embedded arena never loads redis.asyncio."""
    import redis.asyncio as aioredis

    class BoundedRedis(aioredis.Redis):  # type: ignore[misc]
        async def execute_command(self, *args: Any, **options: Any) -> Any:
            async with asyncio.timeout(REPLY_TIMEOUT):
                return await super().execute_command(*args, **options)

    return BoundedRedis


def _resolve(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def _gateway_of(connection: str) -> str | None:
    """The gateway of a connection named ``{gateway}.{stream}`` (``Gateway`` names its
    streams so), or None for a connection named otherwise."""
    gateway, dot, _ = connection.partition(".")
    return gateway if dot and gateway else None


ANSWER = 2  # the rank of an answer: the words below it are notes about the turn's bot


def _rank(word: dict[str, Any]) -> int:
    """What a runner must see first of two words about one turn: an answer, then that the
    bot is back, then that its stream left (both notes, not answers)."""
    return 0 if word.get("left") else 1 if word.get("back") else ANSWER


def _turn_key(message: dict[str, Any]) -> str:
    return f"{message['match_id']}:{message['turn_id']}"


class LocalMailbox(Mailbox):
    """In-process mailbox, safe across threads and event loops: the embedded runner may run
    in a worker thread with its own loop while the gateway serves on another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inbox: dict[str, deque[dict[str, Any]]] = defaultdict(deque)
        self._pending: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        self._moves: dict[str, dict[str, Any]] = {}
        self._holders: dict[str, str] = {}
        self._gone_since: dict[str, float] = {}
        self._prefs: dict[str, dict[str, Any]] = {}
        self._live: dict[str, set[str]] = defaultdict(set)
        self._revoked: set[str] = set()
        # Coroutines waiting for a key, each with its own loop: a post wakes them on their
        # loop directly (no thread hops on the move's path, nothing left behind on cancel).
        self._waiters: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = defaultdict(list)

    def _wake(self, key: str) -> None:
        """Wake everyone waiting for ``key`` (call with the lock held)."""
        for loop, future in self._waiters.pop(key, []):
            loop.call_soon_threadsafe(_resolve, future)

    async def _wait(self, key: str, ready: Any, take: Any, timeout: float) -> Any:
        """``take()`` once ``ready()`` holds, waiting up to ``timeout`` seconds; None if not."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            with self._lock:
                if ready():
                    return take()
                left = deadline - loop.time()
                if left <= 0:
                    return None
                future: asyncio.Future[None] = loop.create_future()
                self._waiters[key].append((loop, future))
            # A plain timer resolves the same future a post does: ``wait_for`` would add a
            # waiter future and a callback, two more loop iterations before the move is seen.
            timer = loop.call_later(left, _resolve, future)
            try:
                await future
            finally:
                timer.cancel()
                with self._lock:
                    waiting = self._waiters.get(key, [])
                    if (loop, future) in waiting:
                        waiting.remove((loop, future))

    async def deliver(self, bot_id: str, message: dict[str, Any]) -> None:
        with self._lock:
            if message.get("kind") == "turn":
                self._pending[bot_id][_turn_key(message)] = message
            self._inbox[bot_id].append(message)
            self._wake(f"inbox:{bot_id}")

    async def collect(self, bot_id: str, timeout: float) -> dict[str, Any] | None:
        return await self._wait(f"inbox:{bot_id}", lambda: self._inbox.get(bot_id),
                                lambda: self._inbox[bot_id].popleft(), timeout)

    async def requeue(self, bot_id: str, message: dict[str, Any]) -> None:
        with self._lock:
            self._inbox[bot_id].appendleft(message)
            self._wake(f"inbox:{bot_id}")

    async def pending_turns(self, bot_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return sorted(self._pending[bot_id].values(), key=lambda m: (m["match_id"], m["turn_id"]))

    async def settle(self, bot_id: str, match_id: str, turn_id: int,
                     result: dict[str, Any] | None = None) -> None:
        with self._lock:
            self._pending[bot_id].pop(f"{match_id}:{turn_id}", None)
            if result is not None:
                self._inbox[bot_id].append(result)
                self._wake(f"inbox:{bot_id}")

    async def post_move(self, match_id: str, turn_id: int, move: dict[str, Any], reply_to: str = "",
                        settled_for: str = "") -> None:
        key = f"{match_id}:{turn_id}"
        with self._lock:
            if settled_for:
                self._pending[settled_for].pop(key, None)
            if key not in self._moves or self._moves[key].get("left"):  # the first answer counts, not a note
                self._moves[key] = move
            self._wake(f"move:{key}")

    async def await_move(self, match_id: str, turn_id: int, timeout: float) -> dict[str, Any] | None:
        key = f"{match_id}:{turn_id}"
        return await self._wait(f"move:{key}", lambda: key in self._moves, lambda: self._moves.pop(key), timeout)

    async def claim(self, bot_id: str, connection: str) -> None:
        with self._lock:
            self._holders[bot_id] = connection
            self._gone_since.pop(bot_id, None)

    async def release(self, bot_id: str, connection: str) -> None:
        with self._lock:
            if self._holders.get(bot_id) == connection:
                del self._holders[bot_id]
                self._gone_since[bot_id] = time.time()

    async def holder(self, bot_id: str) -> str | None:
        with self._lock:
            return self._holders.get(bot_id)

    async def online(self) -> list[str]:
        with self._lock:
            return sorted(self._holders)

    async def offline_since(self, bot_id: str) -> float | None:
        with self._lock:
            if bot_id in self._holders:
                return None
            return self._gone_since.get(bot_id, 0.0)

    async def enter_match(self, bot_id: str, match_id: str, limit: int) -> bool:
        with self._lock:
            live = self._live[bot_id]
            if match_id not in live and len(live) >= limit:
                return False
            live.add(match_id)
            return True

    async def leave_match(self, bot_id: str, match_id: str) -> None:
        with self._lock:
            self._live[bot_id].discard(match_id)

    async def set_prefs(self, bot_id: str, prefs: dict[str, Any]) -> None:
        with self._lock:
            self._prefs[bot_id] = dict(prefs)

    async def prefs(self, bot_id: str) -> dict[str, Any]:
        with self._lock:
            return dict(self._prefs.get(bot_id, {}))

    async def set_revoked(self, bot_id: str, revoked: bool) -> None:
        with self._lock:
            (self._revoked.add if revoked else self._revoked.discard)(bot_id)

    async def revoked(self, bot_id: str) -> bool:
        with self._lock:
            return bot_id in self._revoked


class _ReplyDesk:
    """Where the answers to one event loop's turns arrive: one Redis stream for all of them.

    A runner's turn names it (``reply_to``); the gateway appends the bot's answer there with
    the match and turn; one listener on the loop reads them in batches and hands each to the
    runner awaiting that turn. So however many matches a process has in flight, it waits on
    Redis with one connection, and under load one read brings many answers. The listener
    trims what it has read now and then, and keeps the stream alive (``DESK_TTL``) only while
    it runs: the desk of a process that died expires on its own."""

    def __init__(self, mailbox: RedisMailbox) -> None:
        self.mailbox = mailbox
        self.key = mailbox._k("desk", uuid.uuid4().hex)
        self.line = mailbox.own_connection()  # for the listener's blocking reads
        self.waiting: dict[tuple[str, int], asyncio.Future[dict[str, Any]]] = {}
        self.bots: dict[tuple[str, int], str] = {}  # whose turn each awaited answer is
        self.listener = asyncio.ensure_future(self._listen())

    def expect(self, match_id: str, turn_id: int, bot_id: str = "") -> None:
        key = (match_id, int(turn_id))
        if key not in self.waiting:
            self.waiting[key] = asyncio.get_running_loop().create_future()
        if bot_id:
            self.bots[key] = bot_id

    def expects(self, match_id: str, turn_id: int) -> bool:
        return (match_id, int(turn_id)) in self.waiting

    async def wait(self, match_id: str, turn_id: int, timeout: float) -> dict[str, Any] | None:
        """The answer or a note, or None after ``timeout`` (the turn stays expected until
        ``forget``). A note (``left``, ``back``) leaves the turn expected: its answer may
        still come."""
        key = (match_id, int(turn_id))
        future = self.waiting[key]
        if future.cancelled():  # an earlier wait was cancelled with it
            future = self.waiting[key] = asyncio.get_running_loop().create_future()
        if not future.done():
            # Awaited as it is (not shielded: a shield costs the move two more callbacks). A
            # time-out cancels it, and the turn is expected again on a fresh one.
            try:
                async with asyncio.timeout(max(timeout, 0.0)):
                    await future
            except TimeoutError:
                if future.cancelled() and self.waiting.get(key) is future:
                    self.waiting[key] = asyncio.get_running_loop().create_future()
                return None
        # A word that came after the one that woke this wait may have outranked it (_post).
        future = self.waiting.get(key, future)
        answer = future.result()
        if _rank(answer) < ANSWER:  # a note
            if self.waiting.get(key) is future:
                self.waiting[key] = asyncio.get_running_loop().create_future()
        else:
            self.waiting.pop(key, None)
            self.bots.pop(key, None)
        return answer

    def forget(self, match_id: str, turn_id: int) -> None:
        """The turn is decided: an answer still coming is dropped."""
        self.waiting.pop((match_id, int(turn_id)), None)
        self.bots.pop((match_id, int(turn_id)), None)

    async def _listen(self) -> None:
        loop = asyncio.get_running_loop()
        last = "0-0"  # from the start: an answer appended before the first read is not missed
        unread_trimmed = 0  # answers read since the last trim
        renewed = -DESK_RENEW
        attempt = 0
        while True:
            try:
                if loop.time() - renewed >= DESK_RENEW or unread_trimmed >= DESK_TRIM:
                    # The stream may not exist yet (the first answer makes it): EXPIRE is a no-op then.
                    await self.mailbox._send(("EXPIRE", self.key, DESK_TTL), ("XTRIM", self.key, "MINID", last))
                    renewed, unread_trimmed = loop.time(), 0
                (got,) = await self.mailbox._send(("XREAD", "COUNT", DESK_BATCH, "BLOCK", int(LISTEN_WAIT * 1000),
                                                   "STREAMS", self.key, last), waits=LISTEN_WAIT,
                                                  line=self.line)
                attempt = 0
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis out of reach: the runners notice on their own calls
                if loop_gone():
                    return
                attempt += 1
                await asyncio.sleep(min(1.0, 0.05 * attempt))
                continue
            # A map of stream to entries, or pairs of them, as the connection's protocol has it.
            for _stream, entries in (got.items() if isinstance(got, dict) else got or ()):
                for entry_id, (name, value) in entries:
                    last = entry_id
                    unread_trimmed += 1
                    if name == "back":
                        self._back(value)
                    else:
                        reply = json.loads(value)
                        self._post((reply["match_id"], int(reply["turn_id"])), reply["move"])

    def _post(self, key: tuple[str, int], word: dict[str, Any]) -> None:
        """Hand ``word`` (an answer or a note) to the runner awaiting ``key``. An answer or a
        ``back`` note that comes while a ``left`` note is still unread takes its place: the
        runner acts on what matters most, and no answer is lost behind a note. A note says
        the bot moved: its gateway is looked up again."""
        if _rank(word) < ANSWER and key in self.bots:
            self.mailbox.forget_route(self.bots[key])
        future = self.waiting.get(key)
        if future is None:
            return
        if not future.done():
            future.set_result(word)
        elif future.cancelled() or _rank(word) > _rank(future.result()):
            replaced = self.waiting[key] = asyncio.get_running_loop().create_future()
            replaced.set_result(word)

    def _back(self, bot_id: str) -> None:
        """The bot is on a new stream: each of its awaited turns is to be sent again."""
        self.mailbox.forget_route(bot_id)
        for key in [key for key, bot in self.bots.items() if bot == bot_id]:
            self._post(key, {"back": True})

    def close(self) -> None:
        try:
            self.listener.cancel()
        except RuntimeError:  # its loop is already closed
            pass
        if self.line is not None:
            self.line.close()


class RedisMailbox(Mailbox):
    """The mailbox in Redis.

    Keys (all under ``prefix``): ``post:{gateway}`` the channel a gateway listens on for the
    messages of the bots it holds, where a runner publishes once it knows the bot's gateway
    (from its holder, read with its preferences before a match starts, or when a turn is sent
    again; forgotten when a note says the bot moved); ``inbox:{bot}`` a list for the messages
    no gateway took that way (none known, none listening, or one no longer serving the bot),
    which the gateway pops from when told of a push by its one subscription for all its bots
    (``InboxWatch``; a ``BLPOP`` per bot where Redis refuses keyspace notifications);
    ``desks:{bot}`` the reply desk of each match the bot plays, to tell their runners it is
    back (both expire ``KEY_TTL`` after the bot's last match started or ended);
    ``desk:{id}`` one stream per runner loop where the gateway appends the answers to that
    loop's turns, and ``claim`` its notes that a bot is back (``_ReplyDesk``; a turn with no ``reply_to``,
    from an older runner, is answered on ``move:{match}:{turn}``, a one-element list the
    runner pops with a timeout, and one naming a ``replies:{id}`` list there);
    ``holder:{bot}`` the connection that last claimed the bot, live while ``alive:{gateway}``
    lives (a gateway's connections are named ``{gateway}.{stream}``; its heartbeat renews that
    one key for all its bots, which lapses ``presence_ttl`` seconds after the gateway dies;
    a connection named otherwise lives ``presence_ttl`` from its claim); ``online`` the bots by when their
    presence lapses (or lapsed: kept ``KEY_TTL``, so a bot whose gateway died is known to be
    gone since its last heartbeat); ``seen:{bot}`` when the bot connected or left."""

    def __init__(self, url: str, prefix: str = "arena:mb:", presence_ttl: float = 10.0,
                 brief_connections: int = BRIEF_CONNECTIONS, client_name: str | None = None,
                 watch_inboxes: bool = True) -> None:
        self._url = url
        self._clients: dict[int, Any] = {}
        self._waits: dict[int, Any] = {}
        # Per loop, the one connection its commands that answer at once share (``_send``),
        # where the URL says nothing redis-py's connections would have to do for it (TLS).
        self._shared: dict[int, SharedConnection] = {}
        self._sharing = understood(url)
        self._desks: dict[int, _ReplyDesk] = {}
        # Per loop, one subscription told of pushes to the inboxes collected there; without
        # it (``watch_inboxes=False``, or a Redis that refuses notifications) a BLPOP per bot.
        self.watch_inboxes = watch_inboxes
        self._watches: dict[int, InboxWatch] = {}
        self._served: dict[int, set[str]] = defaultdict(set)  # per loop, the gateways claiming there
        # Where each bot's gateway listens (bot -> gateway), learnt from its holder when a
        # match starts or a turn is sent again, forgotten when the bot moves; and the
        # gateways found not listening, until when they are not tried (monotonic).
        self._routes: dict[str, str] = {}
        self._deaf: dict[str, float] = {}
        self._scripts: dict[str, Any] = {}
        self.prefix = prefix
        self.presence_ttl = presence_ttl
        self.brief_connections = brief_connections
        self._names = {"client_name": client_name} if client_name else {}
        self._claimed: dict[str, float] = {}  # bot -> when its holder was last set (monotonic)

    @property
    def redis(self) -> Any:
        """One client per event loop (redis.asyncio connections belong to the loop that made
        them, and the runner and the gateway may live on different loops), for commands that
        answer at once: at most ``brief_connections`` of them, so that the connections a
        runner holds do not follow its matches in flight."""
        import redis.asyncio as aioredis

        loop = id(asyncio.get_running_loop())
        client = self._clients.get(loop)
        if client is None:
            pool = aioredis.BlockingConnectionPool.from_url(
                self._url, max_connections=self.brief_connections, timeout=BRIEF_WAIT, decode_responses=True,
                socket_timeout=None, **self._names)
            client = self._clients[loop] = _bounded_redis().from_pool(pool)
        return client

    def _waiting(self) -> Any:
        """This loop's connections for commands that block until something arrives (a reply
        desk's read; a gateway's BLPOP per bot without an inbox watch): one each while it waits."""
        import redis.asyncio as aioredis

        loop = id(asyncio.get_running_loop())
        pool = self._waits.get(loop)
        if pool is None:
            pool = self._waits[loop] = aioredis.ConnectionPool.from_url(
                self._url, max_connections=MAX_CONNECTIONS, decode_responses=True, socket_timeout=None,
                **self._names)
        return pool

    def _k(self, *parts: Any) -> str:
        return self.prefix + ":".join(str(p) for p in parts)

    def _desk(self) -> _ReplyDesk:
        """This event loop's reply desk, opened on first use."""
        loop = id(asyncio.get_running_loop())
        desk = self._desks.get(loop)
        if desk is None or desk.listener.done():
            desk = self._desks[loop] = _ReplyDesk(self)
        return desk

    async def _send(self, *commands: tuple[Any, ...], waits: float = 0.0,
                    line: SharedConnection | None = None) -> list[Any]:
        """``commands`` written together, then their replies.

        redis-py's ``Pipeline`` (and, less so, each ``execute_command``) costs more in
        bookkeeping than the round trip itself; the move's path goes through here, as plain
        commands (a script would add its own call to every count), on the connection the
        loop's quick commands share (``SharedConnection``). A lost connection is tried again
        twice, shortly (as redis-py retries its own commands), then it is a ``redis``
        ``ConnectionError``; so is one whose replies take ``REPLY_TIMEOUT`` seconds.
        ``waits``: the seconds a command among them may block until something arrives: those
        go on a connection of their own: ``line`` when given (one a single caller waits on,
        such as a reply desk's), else one of ``_waiting``, dropped if the wait is interrupted,
        so no reply is left behind on it."""
        failure: BaseException | None = None
        for attempt in range(SEND_ATTEMPTS):
            if attempt:
                await asyncio.sleep(0.05 * attempt)
            try:
                if line is not None:
                    return await self._send_on(line, commands, waits)
                if waits or not self._sharing:
                    return await self._send_pooled(commands, waits)
                return await self._send_on(self._shared_connection(), commands, 0.0)
            except (OSError, RedisConnectionError, RedisTimeoutError) as error:  # TimeoutError is an OSError
                failure = error
        raise RedisConnectionError(f"the mailbox's Redis did not answer: {failure}") from failure

    def _shared_connection(self) -> SharedConnection:
        """This loop's connection for commands that answer at once."""
        loop = asyncio.get_running_loop()
        shared = self._shared.get(id(loop))
        if shared is None or shared.loop is not loop:
            shared = self._shared[id(loop)] = SharedConnection(self._url, self._names.get("client_name"))
        return shared

    def own_connection(self) -> SharedConnection | None:
        """A connection for one caller's blocking reads (``_send``'s ``line``), where the URL
        allows one; None: the pool's."""
        return SharedConnection(self._url, self._names.get("client_name")) if self._sharing else None

    async def _send_on(self, line: SharedConnection, commands: tuple[tuple[Any, ...], ...],
                       waits: float) -> list[Any]:
        # A caller that stops waiting leaves its replies to be read off the line and dropped.
        try:
            async with asyncio.timeout(waits + REPLY_TIMEOUT):
                return await line.execute(commands)
        except TimeoutError:
            line.drop(RedisConnectionError("Redis did not answer in time"))
            raise

    async def _send_pooled(self, commands: tuple[tuple[Any, ...], ...], waits: float) -> list[Any]:
        pool = self._waiting() if waits else self.redis.connection_pool
        connection = await pool.get_connection()
        closing = False
        try:
            async with asyncio.timeout(waits + REPLY_TIMEOUT):
                await connection.send_packed_command(connection.pack_commands(commands))
                return [await connection.read_response() for _ in commands]
        except BaseException as error:
            if isinstance(error, GeneratorExit) or loop_gone():
                closing = True  # its loop is gone (redis-py may have turned the exit into another error)
                raise
            await connection.disconnect()
            raise
        finally:
            if not closing:
                await pool.release(connection)

    def _deliver_commands(self, bot_id: str, message: dict[str, Any], route: str | None) -> list[tuple[Any, ...]]:
        """The commands that queue ``message`` for the bot: published to its gateway's post
        channel when ``route`` names it, else pushed to its inbox. Nothing is kept per turn: a
        bot that comes back on a new stream is sent its turns again by their runners, whose
        desks are noted per bot when its part in a match starts (``desks:{bot}``) and
        forgotten when it ends. The keys get their expiry then too, not with every turn. A
        match's start, and a turn sent again, also look up the bot's gateway (the last
        command: its holder)."""
        inbox = self._k("inbox", bot_id)
        commands: list[tuple[Any, ...]] = [("PUBLISH", self._k("post", route), json.dumps([bot_id, message]))
                                           if route is not None else ("RPUSH", inbox, json.dumps(message))]
        kind = message.get("kind")
        if kind in LIFETIME_KINDS:
            desks = self._k("desks", bot_id)
            # The inbox's expiry: when a match's start is pushed there, and at its end (what a
            # gateway not listening was pushed meanwhile then expires too).
            if route is None or kind == "match_ended":
                commands.append(("EXPIRE", inbox, KEY_TTL))
            if kind == "match_started":
                commands += [("HSET", desks, message["match_id"], self._desk().key), ("EXPIRE", desks, KEY_TTL)]
            else:
                commands.append(("HDEL", desks, message["match_id"]))
        if route is None and (kind == "match_started" or message.get("resent")):
            commands.append(("GET", self._k("holder", bot_id)))
        return commands

    async def _put(self, bot_id: str, message: dict[str, Any]) -> None:
        """Queue ``message`` for the bot. Once its gateway is known (``_routes``), one
        ``PUBLISH`` to that gateway's post channel does it; a gateway that is gone or not
        listening hears nothing (no subscriber), and the message goes to the bot's inbox,
        where whichever gateway holds the bot next takes it. A gateway that gets a message
        for a bot it no longer serves pushes it there too (``InboxWatch``)."""
        route = self._routes.get(bot_id)
        if route is not None and self._deaf.get(route, 0.0) > time.monotonic():
            route = None
        commands = self._deliver_commands(bot_id, message, route)
        replies = await self._send(*commands)
        if route is not None:
            if replies[0]:
                return
            # Nobody listens there: its gateway died or waits per bot. Not tried for a while.
            self._deaf[route] = time.monotonic() + DEAF_FOR
            self._routes.pop(bot_id, None)
            commands = self._deliver_commands(bot_id, message, None)
            replies = await self._send(*commands)
        if commands[-1][0] == "GET":
            self._learn_route(bot_id, replies[-1])

    def _learn_route(self, bot_id: str, holder: str | None) -> None:
        """The bot's gateway, from its holder (``{gateway}.{stream}``), unless found deaf."""
        gateway = _gateway_of(holder or "")
        if gateway is not None and self._deaf.get(gateway, 0.0) <= time.monotonic():
            self._routes[bot_id] = gateway

    def forget_route(self, bot_id: str) -> None:
        """The bot moved (a new stream, or its stream closed): its next messages go to its
        inbox until its gateway is looked up again."""
        self._routes.pop(bot_id, None)

    async def _pop(self, key: str, timeout: float) -> Any:
        wait = max(timeout, 0.01)
        (got,) = await self._send(("BLPOP", key, wait), waits=wait)
        return json.loads(got[1]) if got else None

    async def deliver(self, bot_id: str, message: dict[str, Any]) -> None:
        await self._put(bot_id, message)

    async def ask(self, bot_id: str, turn: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        # The answer comes to this loop's reply desk: expected before the turn goes out.
        desk = self._desk()
        desk.expect(turn["match_id"], turn["turn_id"], bot_id)
        await self._put(bot_id, turn | {"reply_to": desk.key})
        return await desk.wait(turn["match_id"], turn["turn_id"], timeout)

    async def resend(self, bot_id: str, turn: dict[str, Any]) -> None:
        desk = self._desk()
        desk.expect(turn["match_id"], turn["turn_id"], bot_id)
        await self._put(bot_id, turn | {"reply_to": desk.key, "resent": True})

    def _watch(self) -> InboxWatch | None:
        """This event loop's inbox watch, started on first use (None when not wanted)."""
        if not self.watch_inboxes:
            return None
        loop = id(asyncio.get_running_loop())
        watch = self._watches.get(loop)
        if watch is None or (watch.listener.done() and watch.supported is not False) or watch.idle:
            watch = self._watches[loop] = InboxWatch(
                self._url, self._k("inbox", ""), lambda gateway: self._k("post", gateway),
                self._spill, self._resubscribed, self._names)
            for gateway in self._served[loop]:
                watch.serve(gateway)
        return watch

    async def _to_inbox(self, bot_id: str, messages: list[dict[str, Any]], push: str = "RPUSH") -> None:
        """``messages`` to the bot's inbox, at its end (``RPUSH``) or, one by one, at its front
        (``LPUSH``), for whichever gateway holds the bot next."""
        inbox = self._k("inbox", bot_id)
        await self._send(*((push, inbox, json.dumps(message)) for message in messages), ("EXPIRE", inbox, KEY_TTL))

    async def _spill(self, bot_id: str, messages: list[dict[str, Any]]) -> None:
        """Messages published to this gateway for a bot it no longer serves: to the bot's inbox."""
        await self._to_inbox(bot_id, messages)

    async def _take(self, inbox: str) -> dict[str, Any] | None:
        (got,) = await self._send(("LPOP", inbox))
        return json.loads(got) if got is not None else None

    async def collect(self, bot_id: str, timeout: float) -> dict[str, Any] | None:
        inbox = self._k("inbox", bot_id)
        watch = self._watch()
        if watch is not None and watch.supported is None:  # its first connection is under way
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.known.wait(), timeout)
        if watch is not None and watch.supported:
            return await watch.collect(bot_id, timeout, lambda: self._take(inbox))
        # No notifications (or Redis out of reach so far): a wait of the bot's own.
        return await self._pop(inbox, timeout)  # type: ignore[no-any-return]

    async def unwatch(self, bot_id: str) -> None:
        watch = self._watches.get(id(asyncio.get_running_loop()))
        if watch is not None:
            await watch.unwatch(bot_id)

    async def requeue(self, bot_id: str, message: dict[str, Any]) -> None:
        await self._to_inbox(bot_id, [message], push="LPUSH")

    async def pending_turns(self, bot_id: str) -> list[dict[str, Any]]:
        return []  # kept by their runners, which send them again when the bot is back (``claim``)

    async def settle(self, bot_id: str, match_id: str, turn_id: int,
                     result: dict[str, Any] | None = None) -> None:
        desk = self._desks.get(id(asyncio.get_running_loop()))
        if desk is not None:
            desk.forget(match_id, turn_id)
        if result is not None:
            await self._put(bot_id, result)

    async def post_move(self, match_id: str, turn_id: int, move: dict[str, Any], reply_to: str = "",
                        settled_for: str = "") -> None:
        # ``settled_for`` needs nothing here: no turn is kept pending in Redis.
        reply = json.dumps({"match_id": match_id, "turn_id": turn_id, "move": move})
        if reply_to.startswith(self._k("desk", "")):
            # NOMKSTREAM: the desk of a runner that is gone is not made again by a late answer.
            (appended,) = await self._send(("XADD", reply_to, "NOMKSTREAM", "*", "reply", reply))
            if appended is None:  # no desk yet (nothing answered there so far) or it expired
                await self._send(("XADD", reply_to, "*", "reply", reply), ("EXPIRE", reply_to, DESK_TTL))
            return
        # Runners of an earlier release: an answer nobody waits for any more expires on its own.
        key, data = ((reply_to, reply) if reply_to.startswith(self._k("replies", ""))
                     else (self._k("move", match_id, turn_id), json.dumps(move)))
        await self._send(("RPUSH", key, data), ("EXPIRE", key, REPLY_TTL))

    async def left(self, match_id: str, turn_id: int, reply_to: str = "") -> None:
        # Only to a reply desk: a runner of an earlier release would read the note as a move.
        if reply_to.startswith(self._k("desk", "")):
            await self.post_move(match_id, turn_id, {"left": True}, reply_to)

    async def await_move(self, match_id: str, turn_id: int, timeout: float) -> dict[str, Any] | None:
        desk = self._desks.get(id(asyncio.get_running_loop()))
        if desk is not None and desk.expects(match_id, turn_id):
            return await desk.wait(match_id, turn_id, timeout)
        return await self._pop(self._k("move", match_id, turn_id), timeout)  # type: ignore[no-any-return]

    async def claim(self, bot_id: str, connection: str) -> None:
        now = time.time()
        presence = int(self.presence_ttl * 1000)
        gateway = _gateway_of(connection)
        watch = self._watch()
        if gateway is not None and watch is not None:
            # Runners that look up the bot's holder publish its messages to this gateway:
            # they wait here for its stream from now on.
            self._served[id(asyncio.get_running_loop())].add(gateway)
            watch.serve(gateway)
            watch.follow(bot_id)
        holder: tuple[Any, ...] = ("SET", self._k("holder", bot_id), connection)
        # A gateway's stream lives while its gateway's heartbeat does (``renew_all``); any
        # other claim lasts its presence time unless claimed again.
        commands = ([holder + ("EX", KEY_TTL), ("SET", self._k("alive", gateway), "1", "PX", presence)] if gateway
                    else [holder + ("PX", presence)])
        # The bots online, scored by when their presence lapses: a gateway that dies stops
        # renewing its bots, which then drop out of ``online`` as their presence lapses.
        *_, playing = await self._send(
            *commands,
            ("SET", self._k("seen", bot_id), repr(now), "EX", KEY_TTL),
            ("ZADD", self._k(ONLINE), repr(now + self.presence_ttl), bot_id),
            ("HVALS", self._k("desks", bot_id)))
        self._claimed[bot_id] = time.monotonic()
        await self._tell_back({bot_id: playing or []})

    async def _tell_back(self, desks: dict[str, list[str]]) -> None:
        """The runners of each bot's matches (bot -> their desks) are told it is back: each
        sends its undecided turn again, to the bot's inbox. A desk not made yet (no answer
        came to it so far) is made, as an answer would make it, with the expiry its listener
        renews."""
        back: list[tuple[Any, ...]] = []
        for bot_id, playing in desks.items():
            for desk in sorted(set(playing)):
                back += [("XADD", desk, "*", "back", bot_id), ("EXPIRE", desk, DESK_TTL)]
        if back:
            await self._send(*back)

    async def _resubscribed(self, bot_ids: list[str]) -> None:
        """This loop's inbox watch lost its connection and has it again: messages published
        to it meanwhile may be lost, so the runners of its bots' matches are told the bots
        are back, and send their undecided turns again."""
        playing = await self._send(*(("HVALS", self._k("desks", bot_id)) for bot_id in bot_ids))
        await self._tell_back({bot_id: desks or [] for bot_id, desks in zip(bot_ids, playing, strict=True)})

    async def renew_all(self, gateway: str, held: dict[str, str]) -> dict[str, str | None]:
        # One trip for every bot the gateway holds: its own heartbeat, who holds each bot, and
        # the board of bots online. A holder is set once a claim and kept ``KEY_TTL``: set
        # again when half of that has passed.
        presence = int(self.presence_ttl * 1000)
        bots = sorted(held)
        lapses = repr(time.time() + self.presence_ttl)
        commands: list[tuple[Any, ...]] = [("SET", self._k("alive", gateway), "1", "PX", presence)]
        if bots:
            commands += [("MGET", *(self._k("holder", bot_id) for bot_id in bots)),
                         ("ZADD", self._k(ONLINE), *(part for bot_id in bots for part in (lapses, bot_id)))]
        replies = await self._send(*commands)
        found = dict(zip(bots, replies[1] if bots else (), strict=True))
        old = time.monotonic() - KEY_TTL / 2
        again = [bot_id for bot_id in bots if found[bot_id] in (held[bot_id], None) and self._claimed.get(bot_id, 0) < old]
        if again:
            await self._send(*(("SET", self._k("holder", bot_id), held[bot_id], "EX", KEY_TTL) for bot_id in again))
            self._claimed.update(dict.fromkeys(again, time.monotonic()))
        return found

    async def release(self, bot_id: str, connection: str) -> None:
        self._claimed.pop(bot_id, None)
        # Only the holder may let go: a replaced connection must not log out its successor.
        script = (
            "if redis.call('get', KEYS[1]) == ARGV[1] then "
            "redis.call('del', KEYS[1]); redis.call('set', KEYS[2], ARGV[2], 'EX', ARGV[3]); "
            "redis.call('zrem', KEYS[3], ARGV[4]) end"
        )
        await self.redis.eval(script, 3, self._k("holder", bot_id), self._k("seen", bot_id), self._k(ONLINE),
                              connection, repr(time.time()), KEY_TTL, bot_id)

    async def online(self) -> list[str]:
        now = time.time()
        replies = await self._send(("MULTI",), ("ZREMRANGEBYSCORE", self._k(ONLINE), "-inf", now - KEY_TTL),
                                   ("ZRANGEBYSCORE", self._k(ONLINE), now, "+inf"), ("EXEC",))
        return sorted(replies[-1][1])

    # The holder, while it lives: a gateway's stream while its gateway's heartbeat does.
    _HOLDER = (
        "local holder = redis.call('get', KEYS[1]) "
        "if not holder then return false end "
        "local gateway = string.match(holder, '^([^.]+)%.') "
        "if gateway and redis.call('exists', ARGV[1] .. gateway) == 0 then return false end "
        "return holder"
    )

    async def holder(self, bot_id: str) -> str | None:
        script = self._scripts.get("holder")
        if script is None:
            script = self._scripts["holder"] = self.redis.register_script(self._HOLDER)
        value = await script(keys=[self._k("holder", bot_id)], args=[self._k("alive", "")],
                             client=self.redis)  # this loop's client
        return str(value) if value is not None else None

    async def offline_since(self, bot_id: str) -> float | None:
        if await self.holder(bot_id) is not None:
            return None
        seen, lapses = await self._send(("GET", self._k("seen", bot_id)), ("ZSCORE", self._k(ONLINE), bot_id))
        # Gone since it left (``seen``), or since its gateway's last heartbeat for it.
        last_heartbeat = float(lapses) - self.presence_ttl if lapses is not None else 0.0
        return max(float(seen) if seen is not None else 0.0, last_heartbeat)

    # Live matches are a sorted set scored by entry time; when it is full, entries older than
    # KEY_TTL are dropped first, so a worker that died mid-match cannot hold a slot for ever.
    _ENTER = (
        "if redis.call('zscore', KEYS[1], ARGV[2]) then return 1 end "
        "if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[3]) then "
        "  redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1] - ARGV[4]) "
        "  if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end "
        "end "
        "redis.call('zadd', KEYS[1], ARGV[1], ARGV[2]) redis.call('expire', KEYS[1], ARGV[4]) return 1"
    )

    async def enter_match(self, bot_id: str, match_id: str, limit: int) -> bool:
        entered = await self.redis.eval(self._ENTER, 1, self._k("live", bot_id), repr(time.time()), match_id,
                                        limit, KEY_TTL)
        return bool(entered)

    async def leave_match(self, bot_id: str, match_id: str) -> None:
        await self.redis.zrem(self._k("live", bot_id), match_id)

    async def set_prefs(self, bot_id: str, prefs: dict[str, Any]) -> None:
        await self.redis.set(self._k("prefs", bot_id), json.dumps(prefs), ex=KEY_TTL)

    async def prefs(self, bot_id: str) -> dict[str, Any]:
        # Read before a match starts: the bot's gateway is looked up in the same trip.
        ((raw, holder),) = await self._send(("MGET", self._k("prefs", bot_id), self._k("holder", bot_id)))
        self._learn_route(bot_id, holder)
        return json.loads(raw) if raw else {}

    async def set_revoked(self, bot_id: str, revoked: bool) -> None:
        if revoked:
            await self.redis.set(self._k("revoked", bot_id), "1", ex=KEY_TTL)
        else:
            await self.redis.delete(self._k("revoked", bot_id))

    async def revoked(self, bot_id: str) -> bool:
        return bool(await self.redis.exists(self._k("revoked", bot_id)))

    async def close(self) -> None:
        for desk in self._desks.values():
            desk.close()
        self._desks.clear()
        for watch in self._watches.values():
            await watch.close()
        self._watches.clear()
        for shared in self._shared.values():
            shared.close()
        self._shared.clear()
        for client in [*self._clients.values(), *self._waits.values()]:
            try:
                await client.aclose()
            except RuntimeError:  # its loop is already closed
                pass
        self._clients.clear()
        self._waits.clear()
