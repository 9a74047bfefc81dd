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
  may reconnect within the grace period and gets its pending turns again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc

from arena.v1 import gateway_pb2, gateway_pb2_grpc

from . import consent, wire
from . import gateway_metrics as metrics
from .mailbox import Mailbox

log = logging.getLogger("arena.gateway")

HELLO_TIMEOUT = 10.0  # seconds a new stream has to say Hello
COLLECT_WAIT = 1.0  # seconds one wait on the mailbox lasts before looking around
DECIDED_MEMORY = 4096  # turns remembered per stream to tell a late answer from a wrong one


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
                 token_hash: str = "") -> None:
        self.identity = identity
        self.token_hash = token_hash  # which token opened it, to close it if that token is revoked
        self.final: tuple[grpc.StatusCode, str] | None = None  # the status ending a closed stream
        self.connection = uuid.uuid4().hex
        self.want_sample_state = hello.want_sample_state
        self.max_matches = max(1, min(hello.max_matches or 1, max_matches))
        self.outstanding: dict[tuple[str, int], str] = {}  # (match, turn) -> game
        self.answered: OrderedDict[tuple[str, int], None] = OrderedDict()
        self.decided: OrderedDict[tuple[str, int], None] = OrderedDict()
        self.games: dict[str, str] = {}  # match -> game, for metrics by game
        self.out: asyncio.Queue[gateway_pb2.RefereeMessage | None] = asyncio.Queue()
        self.closing = asyncio.Event()

    def remember(self, book: OrderedDict[tuple[str, int], None], key: tuple[str, int]) -> None:
        book[key] = None
        while len(book) > DECIDED_MEMORY:
            book.popitem(last=False)


class Gateway(gateway_pb2_grpc.BotGatewayServicer):
    """The servicer. ``authenticate`` maps a token to a bot (or None)."""

    def __init__(self, mailbox: Mailbox, authenticate: Authenticator, *, max_matches_per_bot: int = 8,
                 heartbeat: float = 2.0, ping_every: float = 15.0, limiter: Any = None) -> None:
        self.mailbox = mailbox
        self.authenticate = authenticate
        self.max_matches_per_bot = max_matches_per_bot
        self.heartbeat = heartbeat
        self.ping_every = ping_every
        self.limiter = limiter  # failed attempts per peer (``arena.server.access.AttemptLimiter``)
        self.streams: dict[str, _Stream] = {}  # connection -> stream, on this gateway

    async def Connect(self, request_iterator: Any, context: Any) -> Any:
        token = bearer_token(context.invocation_metadata())
        peer = peer_address(context)
        if self.limiter is not None and self.limiter.blocked(peer):
            metrics.REJECTED_AUTH.inc()
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED,
                                "too many failed authentication attempts: try again in a minute")
        identity = await self.authenticate(token) if token else None
        if identity is None:
            if self.limiter is not None:
                self.limiter.failed(peer)
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
            challenges = consent.published(first.hello)
        except ValueError as error:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(error))

        stream = _Stream(identity, first.hello, self.max_matches_per_bot,
                         hashlib.sha256((token or "").encode()).hexdigest())
        self.streams[stream.connection] = stream
        await self.mailbox.set_revoked(identity.bot_id, False)  # a live token: it may play again
        await self.mailbox.set_prefs(identity.bot_id, {"want_sample_state": stream.want_sample_state,
                                                       "max_matches": stream.max_matches,
                                                       "challenges": challenges})
        await self.mailbox.claim(identity.bot_id, stream.connection)
        metrics.CONNECTED.inc()
        log.info("bot %s connected", identity.name)
        yield gateway_pb2.RefereeMessage(welcome=gateway_pb2.Welcome(
            bot_id=identity.bot_id, bot_name=identity.name, max_matches=stream.max_matches))
        for turn in await self.mailbox.pending_turns(identity.bot_id):
            for out in self._outgoing(stream, turn):
                yield out

        forward = asyncio.create_task(self._forward(stream))
        others = [asyncio.create_task(self._read(stream, incoming)),
                  asyncio.create_task(self._keep_alive(stream))]
        try:
            while (message := await stream.out.get()) is not None:
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
            self.streams.pop(stream.connection, None)
            await self.mailbox.release(identity.bot_id, stream.connection)
            metrics.CONNECTED.dec()
            log.info("bot %s disconnected", identity.name)

    def _outgoing(self, stream: _Stream, message: dict[str, Any]) -> list[gateway_pb2.RefereeMessage]:
        """The protobuf messages for one mailbox message. A turn of a match this stream has
        not been told about (a reconnect mid-match) is preceded by its match-started."""
        out = []
        if message["kind"] == "turn" and message["match_id"] not in stream.games and "match" in message:
            out += self._outgoing(stream, message["match"])
        self._sending(stream, message)
        out.append(wire.to_referee_message(message, stream.want_sample_state))
        return out

    def _sending(self, stream: _Stream, message: dict[str, Any]) -> None:
        """Bookkeeping for a message about to go down the stream."""
        key = (message.get("match_id", ""), message.get("turn_id", -1))
        kind = message["kind"]
        if kind == "match_started":
            stream.games[message["match_id"]] = message["game"]
        elif kind == "turn":
            stream.outstanding[key] = stream.games.get(key[0], "unknown")
            metrics.TURNS_SENT.labels(game=stream.outstanding[key]).inc()
        elif kind == "move_result":
            game = stream.outstanding.pop(key, stream.games.get(key[0], "unknown"))
            stream.remember(stream.decided, key)
            if message["code"] == "TIMEOUT":
                metrics.TIMEOUTS.labels(game=game).inc()
            elif message["code"] == "ILLEGAL":
                metrics.ILLEGAL.labels(game=game).inc()
            elif message["code"] == "OK" and message.get("latency_ms") is not None:
                metrics.MOVE_LATENCY.labels(game=game).observe(message["latency_ms"] / 1000)
        elif kind == "match_ended":
            stream.games.pop(message["match_id"], None)

    async def _forward(self, stream: _Stream) -> None:
        """Mailbox -> stream, while this connection holds the bot."""
        bot_id = stream.identity.bot_id
        while not stream.closing.is_set():
            message, held = await self.mailbox.collect_held(bot_id, stream.connection, COLLECT_WAIT)
            if message is None:
                continue
            if stream.closing.is_set() or not held:
                await self.mailbox.requeue(bot_id, message)  # not ours any more: hand it back
                return
            for out in self._outgoing(stream, message):
                stream.out.put_nowait(out)
            # The stream sends it before this task waits for the next (a wait on Redis costs
            # a request's worth of work first).
            await asyncio.sleep(0)

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
        key = (move.match_id, move.turn_id)
        if key in stream.outstanding and key not in stream.answered:
            stream.remember(stream.answered, key)
            await self.mailbox.post_move(move.match_id, move.turn_id, wire.to_mailbox_move(move))
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

    async def _keep_alive(self, stream: _Stream) -> None:
        """Refresh presence; notice being replaced by a newer stream; ping now and then."""
        bot_id = stream.identity.bot_id
        since_ping = 0.0
        nonce = 0
        while True:
            await asyncio.sleep(self.heartbeat)
            if await self.mailbox.holder(bot_id) not in (stream.connection, None):
                await self._close(stream, "replaced", "a newer connection with this token took over",
                                  grpc.StatusCode.ABORTED)
                return
            await self.mailbox.claim(bot_id, stream.connection)
            since_ping += self.heartbeat
            if since_ping >= self.ping_every:
                since_ping = 0.0
                nonce += 1
                await stream.out.put(gateway_pb2.RefereeMessage(ping=gateway_pb2.Ping(nonce=nonce)))

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
