"""The Python bot SDK: subclass ``Bot``, implement ``act``, call ``run``.

    from arena_bot.sdk import Bot, Turn, run

    class FirstLegal(Bot):
        def act(self, turn: Turn) -> str:
            return turn.legal_actions[0]

    if __name__ == "__main__":
        run(FirstLegal())  # token from ARENA_BOT_TOKEN, address from ARENA_ADDRESS

The SDK keeps one stream open to the gateway, plays many matches at once, answers pings, and
reconnects with exponential backoff when the connection drops. A quick ``act`` (under
``INLINE_LIMIT``, 5 ms) runs inline on the SDK's event loop, with no thread hop on the move's
path; once a decision takes longer, ``act`` runs in a thread per turn, so a slow decision in
one match does not hold up the others (``Bot.blocking`` fixes either choice). Errors that
retrying cannot fix (a bad or revoked token) are final. The token never appears in logs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import time
from collections.abc import Callable, Coroutine, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from .v1 import gateway_pb2, gateway_pb2_grpc

log = logging.getLogger("arena.bot")

SDK_VERSION = "arena-sdk-python/0.1"
# Seconds: bot code that returns quicker than this runs inline on the event loop; slower code
# runs in a thread, so that it does not hold up the bot's other matches.
INLINE_LIMIT = 0.005
# Quick runs in a thread before code that was slow runs inline again; doubled each time it
# turns out slow again, so code that is only sometimes slow settles in its thread.
QUICK_STREAK = 4
MAX_QUICK_STREAK = 1024
# Status codes after which reconnecting cannot help: the token or the request is wrong.
FINAL_CODES = {
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION,
}


@dataclass(frozen=True)
class Match:
    """A match this bot has a seat in."""

    match_id: str
    game: str
    options: dict[str, Any]
    seat: int
    num_players: int
    players: list[str]
    move_deadline_ms: int
    time_bank_ms: int
    tournament_id: str


@dataclass(frozen=True)
class Turn:
    """One decision: answer ``act`` with one of ``legal_actions``.

    ``forced``: this seat's decisions since its previous turn that had a single legal action,
    which the referee applied without asking, as ``(turn_id, action)`` in order (empty for a
    bot with ``every_decision``)."""

    match: Match
    turn_id: int
    observation: dict[str, Any]
    legal_actions: list[str]
    deadline_ms: int
    time_bank_ms: int
    last_move_latency_ms: int
    sample_state: dict[str, Any] | None = None
    forced: tuple[tuple[int, str], ...] = ()


@dataclass
class MatchResult:
    """How a match ended for this bot."""

    match: Match
    scores: list[float]
    ranks: list[int]
    forfeited: bool
    reason: str

    @property
    def rank(self) -> int:
        return self.ranks[self.match.seat]


@dataclass(frozen=True)
class Challenges:
    """Which challenges from other bots this bot accepts (its Hello's ``ChallengePolicy``).

    The default declines every one. ``games``: the games it accepts them in (empty = every
    game it plays); ``from_bots``: the bots it accepts them from (empty = any bot);
    ``max_at_once``: how many it plays at once, on top of ``Bot.max_matches`` (the server
    may cap it). A bot's own challenges and the admin's need no consent.

        class Sparring(Bot):
            challenges = Challenges(accept=True, games=("durak",), from_bots=("my-other-bot",))
    """

    accept: bool = False
    games: tuple[str, ...] = ()
    from_bots: tuple[str, ...] = ()
    max_at_once: int = 1

    def to_proto(self) -> gateway_pb2.ChallengePolicy:
        return gateway_pb2.ChallengePolicy(accept=self.accept, games=list(self.games),
                                           from_bots=list(self.from_bots), max_at_once=max(1, self.max_at_once))


class FinalError(RuntimeError):
    """The gateway refused the bot for a reason retrying cannot fix."""


class Bot:
    """Subclass and implement ``act``. ``games`` limits what the bot is offered and paired in
    on the ladder (empty = all); ``table_sizes`` the table sizes it plays on the ladder (empty =
    2 players); ``max_matches`` is how many matches it plays at once; ``want_sample_state`` asks for a
    resampled full state on every turn, for search; ``challenges`` says which challenges from
    other bots it accepts (``Challenges``; by default none); ``every_decision`` asks for the
    decisions with a single legal action too (by default the referee applies them and lists
    them in the next ``Turn.forced``).

    ``blocking`` says where ``act`` and the hooks run: ``None`` (the default) inline on the
    event loop while they are quick (under ``INLINE_LIMIT``) and in a thread once they are
    not; ``True`` always in a thread; ``False`` always inline."""

    games: list[str] = []
    table_sizes: list[int] = []
    max_matches: int = 1
    want_sample_state: bool = False
    challenges: Challenges = Challenges()
    every_decision: bool = False
    blocking: bool | None = None

    def act(self, turn: Turn) -> str:
        """Return one of ``turn.legal_actions`` (or its index as an ``int``)."""
        raise NotImplementedError

    def on_match_start(self, match: Match) -> None:
        """Called when a match starts (optional)."""

    def on_match_end(self, result: MatchResult) -> None:
        """Called when a match ends (optional)."""


@dataclass
class Connection:
    """Where and who: the gateway's address, the bot's token, TLS and backoff settings.

    TLS is on when ``root_certificates`` holds the server's CA certificate (PEM), when
    ``tls_ca`` names a PEM file of it (default ``ARENA_TLS_CA``), or when ``tls`` is true
    (default ``ARENA_TLS=1``): then the system's roots are trusted, for a server whose
    certificate comes from a public CA. Otherwise the connection is plaintext."""

    address: str = field(default_factory=lambda: os.environ.get("ARENA_ADDRESS", "127.0.0.1:50051"))
    token: str = field(default_factory=lambda: os.environ.get("ARENA_BOT_TOKEN", ""), repr=False)
    root_certificates: bytes | None = None  # PEM; set to use TLS
    tls_ca: str | None = field(default_factory=lambda: os.environ.get("ARENA_TLS_CA") or None)
    tls: bool = field(default_factory=lambda: os.environ.get("ARENA_TLS") == "1")
    min_backoff: float = 0.5
    max_backoff: float = 30.0
    max_attempts: int | None = None  # None = reconnect forever

    def credentials(self) -> grpc.ChannelCredentials | None:
        """The TLS credentials a channel to ``address`` uses (as above); None: plaintext.
        ``OSError`` when the ``tls_ca`` file cannot be read."""
        roots = self.root_certificates
        if roots is None and self.tls_ca:
            roots = Path(self.tls_ca).read_bytes()
        if roots is not None or self.tls:
            return grpc.ssl_channel_credentials(roots)  # None: the system's roots
        return None

    def channel(self, extra_options: Sequence[tuple[str, Any]] = ()) -> grpc.aio.Channel:
        """A new channel to ``address`` (TLS as above) for the bot's stream; ``extra_options``
        are more gRPC channel arguments."""
        options = [("grpc.keepalive_time_ms", 20_000), ("grpc.keepalive_permit_without_calls", 1), *extra_options]
        credentials = self.credentials()
        if credentials is not None:
            return grpc.aio.secure_channel(self.address, credentials, options=options)
        return grpc.aio.insecure_channel(self.address, options=options)

    def blocking_channel(self) -> grpc.Channel:
        """A new blocking channel to ``address`` (TLS as above), for calls beside the bot's
        stream: the ``Rules`` service, the arena's ``Arena`` service."""
        credentials = self.credentials()
        if credentials is not None:
            return grpc.secure_channel(self.address, credentials)
        return grpc.insecure_channel(self.address)


class _Placement:
    """Where one piece of the bot's code runs (``Bot.blocking = None``): in a thread until
    it has shown itself quick, then inline until a run is slow."""

    def __init__(self, inline: bool = False) -> None:
        self.inline = inline
        self.quick_runs = 0
        self.streak = 1  # quick runs in a thread needed to go inline

    def ran(self, seconds: float) -> None:
        if seconds > INLINE_LIMIT:
            if self.inline:
                self.inline = False
                self.streak = min(MAX_QUICK_STREAK, max(QUICK_STREAK, self.streak * 2))
            self.quick_runs = 0
        elif not self.inline:
            self.quick_runs += 1
            if self.quick_runs >= self.streak:
                self.inline = True


def _is_default_hook(code: Any) -> bool:
    """The base class's empty hook: nothing to time, nothing to put in a thread."""
    return getattr(code, "__func__", None) in (Bot.on_match_start, Bot.on_match_end)


class Ended:
    """The matches whose end the bot was told, across its streams (the newest ``most``): a
    ``MatchEnded`` a replaced stream handed back to the newer one may have reached the bot
    already, and ``on_match_end`` is called once a match."""

    def __init__(self, most: int = 4096) -> None:
        self.most = most
        self.ids: dict[str, None] = {}  # in the order told

    def first(self, match_id: str) -> bool:
        """Whether this is the first time the bot is told ``match_id`` ended (now noted)."""
        if match_id in self.ids:
            return False
        self.ids[match_id] = None
        if len(self.ids) > self.most:
            del self.ids[next(iter(self.ids))]
        return True


class Session:
    """One connected stream: reads referee messages, answers turns concurrently."""

    client = SDK_VERSION  # the Hello's client field

    def __init__(self, bot: Bot, ended: Ended | None = None) -> None:
        self.bot: Any = bot
        self.ended = ended if ended is not None else Ended()  # shared by the bot's streams
        self.log: logging.Logger | logging.LoggerAdapter[logging.Logger] = log
        self.matches: dict[str, Match] = {}
        self.outbox: asyncio.Queue[gateway_pb2.BotMessage | None] = asyncio.Queue()
        self.welcomed = asyncio.Event()
        self.tasks: set[asyncio.Task[None]] = set()
        self.final: str | None = None  # set when the gateway ends the session for good
        self.placements: dict[Any, _Placement] = {}  # the bot's functions -> where they run

    async def messages(self) -> Any:
        """The bot's side of the stream: Hello first, then whatever the handlers queue."""
        yield gateway_pb2.BotMessage(hello=gateway_pb2.Hello(
            games=list(self.bot.games), max_matches=max(1, self.bot.max_matches),
            table_sizes=list(getattr(self.bot, "table_sizes", [])),
            client=self.client, want_sample_state=self.bot.want_sample_state,
            every_decision=bool(getattr(self.bot, "every_decision", False)),
            ok_implied=True,  # an OK result tells the bot nothing it acts on: the gateway leaves it out
            challenges=getattr(self.bot, "challenges", Challenges()).to_proto()))
        while (message := await self.outbox.get()) is not None:
            yield message

    def _placement(self, code: Any) -> _Placement | None:
        """Where ``code`` runs (None: fixed by ``Bot.blocking``, nothing to learn)."""
        if self.bot.blocking is not None:
            return None
        key = getattr(code, "__func__", code)
        placement = self.placements.get(key)
        if placement is None:
            placement = self.placements[key] = _Placement(inline=_is_default_hook(code))
        return placement

    def runs_inline(self, code: Any) -> bool:
        """Whether calling ``code`` now completes without leaving the event loop."""
        placement = self._placement(code)
        return placement.inline if placement is not None else not self.bot.blocking

    async def call(self, code: Any, *args: Any) -> Any:
        """Run the bot's code (``act`` or a hook): inline while it is quick, else in a thread,
        so that a slow decision in one match does not hold up the others."""
        placement = self._placement(code)
        if placement is None:
            return await asyncio.to_thread(code, *args) if self.bot.blocking else code(*args)
        if placement.inline:
            started = time.perf_counter()
            try:
                return code(*args)
            finally:
                placement.ran(time.perf_counter() - started)
        spent = 0.0

        def timed() -> Any:
            nonlocal spent
            started = time.perf_counter()
            try:
                return code(*args)
            finally:
                spent = time.perf_counter() - started

        try:
            return await asyncio.to_thread(timed)
        finally:
            placement.ran(spent)

    async def handle(self, message: gateway_pb2.RefereeMessage) -> None:
        kind = message.WhichOneof("body")
        if kind == "welcome":
            self.log.info("connected as %s (up to %d matches at once)",
                          message.welcome.bot_name, message.welcome.max_matches)
            self.welcomed.set()
        elif kind == "match_started":
            started = message.match_started
            match = Match(
                match_id=started.match_id, game=started.game,
                options=json.loads(started.options_json or "{}"), seat=started.seat,
                num_players=started.num_players, players=list(started.players),
                move_deadline_ms=started.move_deadline_ms, time_bank_ms=started.time_bank_ms,
                tournament_id=started.tournament_id)
            self.matches[match.match_id] = match
            await self.call(self.bot.on_match_start, match)
        elif kind == "turn":
            if self.runs_inline(self.bot.act):  # answered before the next message is read
                await self.answer(message.turn)
                return
            task = asyncio.create_task(self.answer(message.turn))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        elif kind == "move_result":
            result = message.move_result
            if result.code != gateway_pb2.MoveResult.OK:
                self.log.warning("match %s turn %d: %s (%s), strikes %d", result.match_id, result.turn_id,
                                 gateway_pb2.MoveResult.Code.Name(result.code), result.detail, result.strikes)
        elif kind == "match_ended":
            ended = message.match_ended
            known = self.matches.pop(ended.match_id, None)
            if not self.ended.first(ended.match_id):
                return  # told again on a newer stream (its older one was replaced as it went out)
            if known is None and ended.game:  # a match started before this connection
                known = Match(ended.match_id, ended.game, {}, ended.seat, len(ended.players), list(ended.players),
                              0, 0, ended.tournament_id)
            if known is not None:
                await self.call(self.bot.on_match_end, MatchResult(
                    match=known, scores=list(ended.scores), ranks=list(ended.ranks),
                    forfeited=ended.forfeited, reason=ended.reason))
        elif kind == "ping":
            await self.outbox.put(gateway_pb2.BotMessage(pong=gateway_pb2.Pong(nonce=message.ping.nonce)))
        elif kind == "error":
            self.log.error("gateway: %s: %s", message.error.code, message.error.message)
            if message.error.code in ("replaced", "revoked"):
                # Reconnecting would only fight the newer process (or a dead token).
                self.final = f"{message.error.code}: {message.error.message}"

    def turn(self, wire: gateway_pb2.Turn) -> Turn:
        """The ``Turn`` that ``act`` is handed for a turn off the wire."""
        match = self.matches.get(wire.match_id)
        if match is None:  # a turn for a match announced on an earlier connection
            match = Match(wire.match_id, "", {}, wire.seat, 0, [], 0, 0, "")
        return Turn(
            match=match, turn_id=wire.turn_id, observation=json.loads(wire.observation_json),
            legal_actions=list(wire.legal_actions), deadline_ms=wire.deadline_ms,
            time_bank_ms=wire.time_bank_ms, last_move_latency_ms=wire.last_move_latency_ms,
            sample_state=json.loads(wire.sample_state_json) if wire.sample_state_json else None,
            forced=tuple((forced.turn_id, forced.action) for forced in wire.forced))

    async def answer(self, wire: gateway_pb2.Turn) -> None:
        try:
            choice = await self.call(self.bot.act, self.turn(wire))
        except Exception:  # a bug in the bot must not kill its other matches
            self.log.exception("act() failed in match %s; sending nothing for this turn", wire.match_id)
            return
        await self.outbox.put(gateway_pb2.BotMessage(move=move(wire, choice)))


def move(wire: gateway_pb2.Turn, choice: Any) -> gateway_pb2.Move:
    """The ``Move`` answering ``wire`` with what ``act`` returned: an ``int`` is an index into
    the legal actions, anything else an action id."""
    answer = gateway_pb2.Move(match_id=wire.match_id, turn_id=wire.turn_id)
    if isinstance(choice, int) and not isinstance(choice, bool):
        answer.index = choice
    else:
        answer.action = str(choice)
    return answer


async def play(bot: Bot, connection: Connection, stop: asyncio.Event | None = None) -> None:
    """Play until ``stop`` is set (or forever), reconnecting with backoff. Raises
    ``FinalError`` when the gateway refuses the bot for good."""
    ended = Ended()
    await keep_playing(lambda: Session(bot, ended), connection, stop)


async def keep_playing(new_session: Callable[[], Session], connection: Connection,
                       stop: asyncio.Event | None = None,
                       open_channel: Callable[[], AbstractAsyncContextManager[grpc.aio.Channel]] | None = None,
                       ) -> None:
    """The loop behind ``play``: one ``new_session()`` per stream, reconnecting with backoff
    and jitter until ``stop`` is set or an error is final (``FinalError``). ``open_channel``
    gives the channel for one stream (default: a channel of its own, closed after it)."""
    if not connection.token:
        raise FinalError("no token: set ARENA_BOT_TOKEN or pass Connection(token=...)")
    stop = stop or asyncio.Event()
    open_channel = open_channel or connection.channel
    attempt = 0
    while not stop.is_set():
        session = new_session()
        try:
            async with open_channel() as channel:
                stub = gateway_pb2_grpc.BotGatewayStub(channel)
                call = stub.Connect(session.messages(),
                                    metadata=(("authorization", f"Bearer {connection.token}"),))
                reader = asyncio.ensure_future(_read(call, session))
                stopper = asyncio.ensure_future(stop.wait())
                done, _ = await asyncio.wait({reader, stopper}, return_when=asyncio.FIRST_COMPLETED)
                if stopper in done:
                    await session.outbox.put(None)
                    call.cancel()
                    reader.cancel()
                    return
                stopper.cancel()
                reader.result()
                if session.final:
                    raise FinalError(session.final)
                attempt = 0 if session.welcomed.is_set() else attempt
        except grpc.aio.AioRpcError as error:
            if session.final:  # the final GatewayError came first; its status follows it
                raise FinalError(session.final) from None
            if error.code() in FINAL_CODES:
                raise FinalError(f"{error.code().name}: {error.details()}") from None
            session.log.warning("connection lost: %s %s", error.code().name, error.details())
            if session.welcomed.is_set():
                attempt = 0
        attempt += 1
        if connection.max_attempts is not None and attempt >= connection.max_attempts:
            raise FinalError(f"gave up after {attempt} attempts")
        delay = min(connection.max_backoff, connection.min_backoff * 2 ** (attempt - 1))
        delay *= random.uniform(0.5, 1.0)  # jitter: many bots must not reconnect in lockstep
        session.log.info("reconnecting in %.1f s", delay)
        try:
            await asyncio.wait_for(stop.wait(), delay)
        except TimeoutError:
            pass


async def _read(call: Any, session: Session) -> None:
    async for message in call:
        await session.handle(message)


def run(bot: Bot, connection: Connection | None = None) -> None:
    """Connect and play until interrupted (Ctrl-C)."""
    run_until_final(play(bot, connection or Connection()))


def run_until_final(playing: Coroutine[Any, Any, Any]) -> None:
    """Log to stderr and run ``playing`` until interrupted (Ctrl-C); a ``FinalError`` is
    logged and exits with status 1."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        asyncio.run(playing)
    except KeyboardInterrupt:
        pass
    except FinalError as error:
        log.error("giving up: %s", error)
        raise SystemExit(1) from None
