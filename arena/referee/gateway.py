"""``arena.v1.BotGateway``: where external bots connect.

One bidirectional stream per bot process carries all its matches. The gateway never decides
a rule: it authenticates the stream, forwards the bot's mailbox messages down it, and posts
the bot's moves back to the mailbox for the runner, after checking that each move answers a
turn this bot was actually asked (right match, right turn, not already answered).

Policies, each with a test:
- a missing, unknown or revoked token ends the call with UNAUTHENTICATED;
- a second stream with the same token REPLACES the first: the older stream is told why
  (``GatewayError`` ``replaced``) and ends with ABORTED (a bot that lost its connection
  without noticing must be able to come back);
- a revoked token's streams are told (``revoked``) and end with UNAUTHENTICATED, on every
  gateway (``kick_tokens``, driven by ``arena.server.revocations``);
- a move for a turn the bot was never sent, or for another bot's seat, is REJECTED; an answer
  to a turn already answered is REJECTED as a replay (before or after its result); an answer
  to a turn the referee decided without one (time out) is LATE; neither is ever applied;
- a Hello's challenge policy is published beside the bot's presence for ``Arena.Challenge``
  (``consent``); one too large to keep ends the call with INVALID_ARGUMENT;
- a move with neither action nor index is MALFORMED: the runner applies a random legal action
  and counts a strike;
- an oversized message ends the stream with RESOURCE_EXHAUSTED (gRPC's own limit); the bot
  may reconnect within the grace period and gets its undecided turns again.

The bot's clock runs here, where its stream is held: from the moment a Turn is written to the
stream until the bot's Move arrives on it. The gateway puts that time on the move it posts
(``latency_ms``), and when a turn's time (move time plus bank, as the turn says) runs out on
the stream first, it posts a time-out for the bot itself; the runner charges these, not its own
wall clock, so a stall of the runner, the mailbox or this loop before the turn went out is
never the bot's; nor is a stall of this loop while the turn is out (``stalls.StallWatch``),
which would otherwise delay reading a move that arrived in time. A turn sent again on a new
stream keeps its first deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
import uuid
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
from arena_bot.v1 import gateway_pb2, gateway_pb2_grpc

from arena.ratelimit import RateLimiter

from . import consent, wire
from . import gateway_metrics as metrics
from .mailbox import Mailbox
from .remote import bot_time
from .stalls import StallWatch

log = logging.getLogger("arena.gateway")

HELLO_TIMEOUT = 10.0  # seconds a new stream has to say Hello
COLLECT_WAIT = 1.0  # seconds one wait on the mailbox lasts before looking around
DECIDED_MEMORY = 4096  # turns remembered per stream to tell a late answer from a wrong one
# What a replaced stream hands back of what it wrote since its last heartbeat (``_replaced``):
# a turn is sent again by its runner, with its match's start before it.
HANDED_BACK = frozenset({"move_result", "match_ended"})


@dataclass
class TurnClock:
    """A turn out on a stream: when it was written, the seconds it had from then, and the
    timer that answers for the bot when they are up. ``resent``: the turn was out before, on
    an earlier stream."""

    written: float  # time.monotonic()
    allowed: float
    resent: bool
    timer: asyncio.TimerHandle


@dataclass(frozen=True)
class BotIdentity:
    """Who a token belongs to."""

    bot_id: str
    name: str


Authenticator = Callable[[str], Awaitable[BotIdentity | None]]


def bearer_token(metadata: Any) -> str | None:
    """The token from ``authorization: Bearer <token>`` metadata, or None."""
    for key, value in metadata or ():
        if key.lower() == "authorization" and isinstance(value, str) and value.startswith("Bearer "):
            token = value[len("Bearer "):].strip()
            return token or None
    return None


def peer_address(context: Any) -> str:
    """The caller's address without its port (``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``)."""
    peer = context.peer() or "unknown"
    return peer.rsplit(":", 1)[0] if peer.count(":") >= 2 else peer


class _Stream:
    """The gateway's view of one connected stream."""

    def __init__(self, identity: BotIdentity, hello: gateway_pb2.Hello, max_matches: int,
                 token_hash: str = "", gateway: str = "") -> None:
        self.identity = identity
        self.token_hash = token_hash  # which token opened it, to close it if that token is revoked
        self.final: tuple[grpc.StatusCode, str] | None = None  # the status ending a closed stream
        # Named after its gateway: the mailbox keeps it present while that gateway's heartbeat lives.
        self.connection = f"{gateway}.{uuid.uuid4().hex}" if gateway else uuid.uuid4().hex
        self.want_sample_state = hello.want_sample_state
        self.ok_implied = hello.ok_implied  # no MoveResult for a move applied as sent
        self.max_matches = max(1, min(hello.max_matches or 1, max_matches))
        self.outstanding: dict[tuple[str, int], str] = {}  # (match, turn) -> game
        self.reply_to: dict[tuple[str, int], str] = {}  # (match, turn) -> where its runner awaits it
        # (match, turn) -> its legal actions and the seat's strikes, to answer a good move at once
        self.turns: dict[tuple[str, int], tuple[list[str], int]] = {}
        self.answered: OrderedDict[tuple[str, int], None] = OrderedDict()
        self.decided: OrderedDict[tuple[str, int], None] = OrderedDict()
        self.games: dict[str, str] = {}  # match -> game, for metrics by game
        self.out: asyncio.Queue[gateway_pb2.RefereeMessage | None] = asyncio.Queue()
        self.closing = asyncio.Event()
        # The clock of each turn: its time allowed in seconds, and for a turn sent again
        # after a reconnect when it first left (epoch seconds), until it is written ...
        self.limits: dict[tuple[str, int], tuple[float, float | None]] = {}
        self.clocks: dict[tuple[str, int], TurnClock] = {}  # ... then running, until answered
        self.posting: set[asyncio.Task[None]] = set()  # time-outs on their way to the mailbox
        # Whether this stream holds its bot, as this gateway last learnt: a newer stream of the
        # bot here takes it away at once, one on another gateway at the next heartbeat
        # (``_beat``). Nothing is asked of the mailbox per message.
        self.held = True
        self.claimed = False  # until the mailbox has this stream as its bot's (``Connect``)
        # The results and match ends written since the last heartbeat found this stream
        # holding the bot: should it find a newer stream instead, they may have come after
        # that one took over, and are handed back for it. (A turn's runner sends it again,
        # after its match's start.)
        self.unconfirmed: list[dict[str, Any]] = []

    def remember(self, book: OrderedDict[tuple[str, int], None], key: tuple[str, int]) -> None:
        book[key] = None
        while len(book) > DECIDED_MEMORY:
            book.popitem(last=False)


def _implied(stream: _Stream, message: dict[str, Any]) -> bool:
    """Whether the message goes without saying on this stream: an OK result to a bot whose
    Hello asked for ``ok_implied`` (its next turn or the match's end tells it as much, and the
    write is a third of a move's messages)."""
    return stream.ok_implied and message["kind"] == "move_result" and message.get("code") == "OK"


class Gateway(gateway_pb2_grpc.BotGatewayServicer):
    """The servicer. ``authenticate`` maps a token to a bot (or None)."""

    def __init__(self, mailbox: Mailbox, authenticate: Authenticator, *, max_matches_per_bot: int = 8,
                 heartbeat: float = 2.0, ping_every: float = 15.0, limiter: RateLimiter | None = None) -> None:
        self.mailbox = mailbox
        self.authenticate = authenticate
        self.max_matches_per_bot = max_matches_per_bot
        self.heartbeat = heartbeat
        self.ping_every = ping_every
        self.limiter = limiter  # failed authentications per peer (``ARENA_AUTH_FAILURES_PER_MINUTE``)
        self.streams: dict[str, _Stream] = {}  # connection -> stream, on this gateway
        self.stalls = StallWatch()  # this loop's own stalls, kept off the bots' clocks
        self.id = uuid.uuid4().hex[:16]  # this gateway's name in the mailbox, for its heartbeat
        self._beating: asyncio.Task[None] | None = None  # the heartbeat, while any stream is open
        # Per bot, the streams opening here claim it one after the other: the last to claim
        # it in the mailbox is the one the others here give way to. A lock lives while a
        # stream opening holds or awaits it.
        self._claims: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    async def Connect(self, request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Any:
        token = bearer_token(context.invocation_metadata())
        peer = peer_address(context)
        wait = self.limiter.wait(peer) if self.limiter is not None else None
        if wait is not None:
            metrics.REJECTED_AUTH.inc()
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                f"too many failed authentication attempts: try again in {wait} s",
                                trailing_metadata=(("retry-after", str(wait)),))
        identity = await self.authenticate(token) if token else None
        if identity is None:
            if self.limiter is not None:
                self.limiter.hit(peer)
            metrics.REJECTED_AUTH.inc()
            await context.abort(grpc.StatusCode.UNAUTHENTICATED,
                                "missing, unknown or revoked token (authorization: Bearer <token>)")
        incoming = request_iterator.__aiter__()
        try:
            first = await asyncio.wait_for(incoming.__anext__(), HELLO_TIMEOUT)
        except (TimeoutError, StopAsyncIteration):
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
        if first.WhichOneof("body") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")

        try:
            plays = consent.offered(first.hello)
            challenges = consent.published(first.hello)
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))

        self.stalls.start()
        stream = _Stream(identity, first.hello, self.max_matches_per_bot,
                         hashlib.sha256((token or "").encode()).hexdigest(), self.id)
        self.streams[stream.connection] = stream
        if self._beating is None:
            self._beating = asyncio.create_task(self._beat())
        await self.mailbox.set_revoked(identity.bot_id, False)  # a live token: it may play again
        await self.mailbox.set_prefs(identity.bot_id, {"want_sample_state": stream.want_sample_state,
                                                       "every_decision": first.hello.every_decision,
                                                       "max_matches": stream.max_matches,
                                                       **plays, "challenges": challenges})
        claiming = self._claims.get(identity.bot_id)
        if claiming is None:
            claiming = self._claims[identity.bot_id] = asyncio.Lock()
        async with claiming:
            await self.mailbox.claim(identity.bot_id, stream.connection)
            for older in list(self.streams.values()):  # this bot's streams claimed before: replaced now
                if older.identity.bot_id == identity.bot_id and older.claimed and older.held:
                    await self._replaced(older)
            stream.claimed = True
        metrics.CONNECTED.inc()
        log.info("bot %s connected", identity.name)
        yield gateway_pb2.RefereeMessage(welcome=gateway_pb2.Welcome(
            bot_id=identity.bot_id, bot_name=identity.name, max_matches=stream.max_matches))
        for turn in await self.mailbox.pending_turns(identity.bot_id):
            for out in self._outgoing(stream, turn, resent=True):
                self._start_clock(stream, out)
                yield out

        forward = asyncio.create_task(self._forward(stream))
        others = [asyncio.create_task(self._read(stream, incoming))]
        try:
            while (message := await stream.out.get()) is not None:
                self._start_clock(stream, message)
                yield message
            if stream.final is not None:  # replaced or revoked: the stream ends with a status
                await context.abort(*stream.final)
        finally:
            for task in others:
                task.cancel()
            # The forwarder is not cancelled mid-collect (a message popped from Redis would
            # be lost): it is told to stop and hands back what it holds.
            stream.closing.set()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(forward, COLLECT_WAIT + 5)
            for task in others:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            for clock in stream.clocks.values():  # a new stream times them from here on
                clock.timer.cancel()
            self.streams.pop(stream.connection, None)
            if not self.streams:
                self.stalls.stop()
                if self._beating is not None:
                    self._beating.cancel()
                    self._beating = None
            await self.mailbox.release(identity.bot_id, stream.connection)
            if not any(other.identity.bot_id == identity.bot_id for other in self.streams.values()):
                await self.mailbox.unwatch(identity.bot_id)
            await self._tell_runners_it_left(stream)
            metrics.CONNECTED.dec()
            log.info("bot %s disconnected", identity.name)

    async def _tell_runners_it_left(self, stream: _Stream) -> None:
        """The turns this stream had out and unanswered: their runners are told it closed, so
        they look at the bot's presence now (they wait for a connected bot's word without
        looking). Best effort: a runner not told looks by itself later."""
        for match_id, turn_id in [key for key in stream.outstanding if key not in stream.answered]:
            with contextlib.suppress(Exception):
                await self.mailbox.left(match_id, turn_id, stream.reply_to.get((match_id, turn_id), ""))

    def _outgoing(self, stream: _Stream, message: dict[str, Any],
                  resent: bool = False) -> list[gateway_pb2.RefereeMessage]:
        """The protobuf messages for one mailbox message. A turn of a match this stream has
        not been told about (a reconnect mid-match) is preceded by its match-started.
        ``resent``: a turn sent again to a stream that reconnected."""
        out: list[gateway_pb2.RefereeMessage] = []
        if message["kind"] == "turn":
            key = (message["match_id"], message["turn_id"])
            if key in stream.outstanding or key in stream.answered or key in stream.decided:
                # Already written to this stream: a turn delivered while the stream opened is
                # both among the pending turns it was sent and in the inbox.
                return out
        if message["kind"] == "turn" and message["match_id"] not in stream.games and "match" in message:
            out += self._outgoing(stream, message["match"])
        self._sending(stream, message, resent)
        if not _implied(stream, message):
            out.append(wire.to_referee_message(message, stream.want_sample_state))
        return out

    def _sending(self, stream: _Stream, message: dict[str, Any], resent: bool = False) -> None:
        """Bookkeeping for a message about to go down the stream."""
        key = (message.get("match_id", ""), message.get("turn_id", -1))
        kind = message["kind"]
        if kind == "match_started":
            stream.games[message["match_id"]] = message["game"]
        elif kind == "turn":
            stream.outstanding[key] = stream.games.get(key[0], "unknown")
            stream.reply_to[key] = message.get("reply_to", "")
            stream.turns[key] = (message.get("legal_actions", []), int(message.get("strikes", 0)))
            metrics.TURNS_SENT.labels(game=stream.outstanding[key]).inc()
            if "deadline_ms" in message:
                allowed = (message["deadline_ms"] + message.get("time_bank_ms", 0)) / 1000
                stream.limits[key] = (allowed, message.get("sent_at") if resent else None)
        elif kind == "move_result":
            self._stop_clock(stream, key)
            game = stream.outstanding.pop(key, stream.games.get(key[0], "unknown"))
            stream.reply_to.pop(key, None)
            stream.turns.pop(key, None)
            stream.remember(stream.decided, key)
            if message["code"] == "TIMEOUT":
                metrics.TIMEOUTS.labels(game=game).inc()
            elif message["code"] == "ILLEGAL":
                metrics.ILLEGAL.labels(game=game).inc()
            elif message["code"] == "OK" and message.get("latency_ms") is not None:
                metrics.MOVE_LATENCY.labels(game=game).observe(message["latency_ms"] / 1000)
        elif kind == "match_ended":
            stream.games.pop(message["match_id"], None)

    def _start_clock(self, stream: _Stream, message: gateway_pb2.RefereeMessage) -> None:
        """A turn is being written to the stream: the bot's time starts now (once per turn on
        a stream, however often it is written), and a timer answers for the bot when it is up.
        A turn sent again after a reconnect gets what was left of its first deadline."""
        if message.WhichOneof("body") != "turn":
            return
        key = (message.turn.match_id, message.turn.turn_id)
        limit = stream.limits.pop(key, None)
        if limit is None or key in stream.clocks or key not in stream.outstanding:
            return
        allowed, first_sent = limit
        left = allowed if first_sent is None else max(0.0, allowed - (time.time() - first_sent))
        timer = asyncio.get_running_loop().call_later(left, self._time_out, stream, key)
        stream.clocks[key] = TurnClock(time.monotonic(), left, first_sent is not None, timer)

    def _bot_time(self, clock: TurnClock, now: float) -> float:
        """Seconds the turn has been the bot's: out on its stream, less this loop's stalls."""
        return max(0.0, now - clock.written - self.stalls.stalled(clock.written, now))

    def _stop_clock(self, stream: _Stream, key: tuple[str, int]) -> TurnClock | None:
        stream.limits.pop(key, None)
        clock = stream.clocks.pop(key, None)
        if clock is not None:
            clock.timer.cancel()
        return clock

    def _time_out(self, stream: _Stream, key: tuple[str, int]) -> None:
        """The turn's time ran out on the stream before the bot answered: the turn is decided
        for the bot (a move still coming is LATE) and the runner is told so."""
        clock = stream.clocks.get(key)
        if clock is None or key not in stream.outstanding or key in stream.answered:
            stream.clocks.pop(key, None)
            return
        took = self._bot_time(clock, time.monotonic())
        if took < clock.allowed:  # this loop was stalled meanwhile: the bot keeps that time
            clock.timer = asyncio.get_running_loop().call_later(clock.allowed - took, self._time_out, stream, key)
            return
        del stream.clocks[key]
        stream.remember(stream.decided, key)
        stream.outstanding.pop(key)
        task = asyncio.ensure_future(self.mailbox.post_move(key[0], key[1], wire.timed_out(took * 1000, clock.resent),
                                                            stream.reply_to.pop(key, "")))
        stream.posting.add(task)
        task.add_done_callback(stream.posting.discard)

    async def _forward(self, stream: _Stream) -> None:
        """Mailbox -> stream, while this connection holds the bot."""
        bot_id = stream.identity.bot_id
        while not stream.closing.is_set():
            message = await self.mailbox.collect(bot_id, COLLECT_WAIT)
            if message is None:
                continue
            if stream.closing.is_set() or not stream.held:
                await self.mailbox.requeue(bot_id, message)  # not ours any more: hand it back
                return
            if message["kind"] in HANDED_BACK:
                stream.unconfirmed.append(message)
            # A turn its runner sent again (the bot came back) keeps its first deadline.
            for out in self._outgoing(stream, message, resent=bool(message.get("resent"))):
                stream.out.put_nowait(out)

    async def _read(self, stream: _Stream, incoming: Any) -> None:
        """Stream -> mailbox: check every move before the runner sees it."""
        try:
            async for message in incoming:
                kind = message.WhichOneof("body")
                if kind == "move":
                    await self._on_move(stream, message.move)
                elif kind == "hello":
                    await self._reply(stream, "REJECTED", message_detail="Hello only once", move=None)
                # pongs need no answer: receiving them is what keeps the stream alive
        except (grpc.aio.AioRpcError, asyncio.CancelledError):
            pass
        finally:
            await stream.out.put(None)

    async def _on_move(self, stream: _Stream, move: gateway_pb2.Move) -> None:
        arrived = time.monotonic()
        key = (move.match_id, move.turn_id)
        if key in stream.outstanding and key not in stream.answered:
            stream.remember(stream.answered, key)
            clock = self._stop_clock(stream, key)
            took = None if clock is None else self._bot_time(clock, arrived) * 1000
            posted = wire.to_mailbox_move(move, took, clock is not None and clock.resent)
            legal, strikes = stream.turns.pop(key, ([], 0))
            applied = wire.chosen(move, legal)
            # A legal move, in time on a turn first written to this stream, is what the runner
            # applies with OK: the bot is told so now, and the turn settled with the move (no
            # result from the runner, no trip through the mailbox for it). Anything else the
            # runner judges and answers, as before.
            acknowledged = applied is not None and took is not None and clock is not None and not clock.resent
            if acknowledged:
                posted["acknowledged"] = True
            await self.mailbox.post_move(move.match_id, move.turn_id, posted, stream.reply_to.pop(key, ""),
                                         settled_for=stream.identity.bot_id if acknowledged else "")
            if acknowledged:
                result = {"kind": "move_result", "match_id": move.match_id, "turn_id": move.turn_id,
                          "code": "OK", "applied_action": applied, "strikes": strikes,
                          "latency_ms": int(bot_time(posted, 0.0) * 1000)}  # as the runner counts it
                self._sending(stream, result)
                if not _implied(stream, result):
                    await stream.out.put(wire.to_referee_message(result))
            return
        if key in stream.answered:
            await self._reply(stream, "REJECTED", "this turn was already answered (replay)", move)
        elif key in stream.decided:
            await self._reply(stream, "LATE", "this turn was already decided; the move is discarded", move)
        else:
            await self._reply(stream, "REJECTED", "no such turn for this bot (wrong match, turn or seat)", move)

    async def _reply(self, stream: _Stream, code: str, message_detail: str, move: gateway_pb2.Move | None) -> None:
        match_id, turn_id = (move.match_id, move.turn_id) if move is not None else ("", 0)
        await stream.out.put(gateway_pb2.RefereeMessage(
            move_result=wire.move_result(match_id, turn_id, code, message_detail)))

    async def _beat(self) -> None:
        """The gateway's heartbeat, in one trip for all its streams: refresh the presence of
        every bot held here, find the streams a newer one on another gateway replaced, and
        ping every stream now and then."""
        since_ping = 0.0
        nonce = 0
        while True:
            await asyncio.sleep(self.heartbeat)
            streams = [stream for stream in self.streams.values() if stream.held and stream.claimed]
            written = [len(stream.unconfirmed) for stream in streams]
            try:
                found = await self.mailbox.renew_all(
                    self.id, {stream.identity.bot_id: stream.connection for stream in streams})
            except Exception as error:  # the mailbox out of reach: presence lapses, streams stay
                log.warning("heartbeat failed: %s", error)
                continue
            for stream, count in zip(streams, written, strict=True):
                if not stream.held:  # replaced here meanwhile
                    continue
                if found.get(stream.identity.bot_id) not in (stream.connection, None):
                    await self._replaced(stream)
                else:
                    del stream.unconfirmed[:count]  # the stream held the bot after these were written
            since_ping += self.heartbeat
            if since_ping >= self.ping_every:
                since_ping = 0.0
                nonce += 1
                for stream in list(self.streams.values()):
                    await stream.out.put(gateway_pb2.RefereeMessage(ping=gateway_pb2.Ping(nonce=nonce)))

    async def _replaced(self, stream: _Stream) -> None:
        """A newer stream holds the stream's bot: hand back what may have been meant for it,
        and close this one. Its turns out and unanswered go to their runners as ``left`` notes
        when it ends; finding the bot connected, they send them again."""
        stream.held = False
        handed_back, stream.unconfirmed = stream.unconfirmed, []
        for message in reversed(handed_back):  # back at the front, in their order
            await self.mailbox.requeue(stream.identity.bot_id, message)
        await self._close(stream, "replaced", "a newer connection with this token took over", grpc.StatusCode.ABORTED)

    async def _close(self, stream: _Stream, code: str, reason: str, status: grpc.StatusCode) -> None:
        """Tell the bot why with a final ``GatewayError``, then end the stream with ``status``."""
        stream.final = (status, reason)
        await stream.out.put(gateway_pb2.RefereeMessage(error=gateway_pb2.GatewayError(code=code, message=reason)))
        await stream.out.put(None)

    async def kick(self, bot_id: str, reason: str) -> None:
        """Close every stream of ``bot_id`` on this gateway (its token was revoked)."""
        await self.mailbox.set_revoked(bot_id, True)
        for stream in list(self.streams.values()):
            if stream.identity.bot_id == bot_id:
                await self._close(stream, "revoked", reason, grpc.StatusCode.UNAUTHENTICATED)

    async def kick_tokens(self, token_hashes: set[str], reason: str) -> None:
        """Close the streams opened with any of these (revoked) tokens; their bots' matches
        in play forfeit at once."""
        for stream in list(self.streams.values()):
            if stream.token_hash in token_hashes:
                await self.mailbox.set_revoked(stream.identity.bot_id, True)
                await self._close(stream, "revoked", reason, grpc.StatusCode.UNAUTHENTICATED)
