"""An external bot as a player of the match runner, reached through the mailbox.

The runner asks ``act(turn)``; the player delivers the turn to the bot's mailbox, waits for
the move the gateway posts back, and turns it into an action id with the time the gateway
measured for it (``Timed``): the bot's time runs from the moment its turn was written to its
stream until its move arrived there, so no stall on this side of the gateway is charged to it.
The gateway answers a turn whose time ran out with a time-out; the runner's own deadline
(``server_allowance`` later) is only a safety net. This side also knows about the connection:
a bot that has had no live stream for longer than the grace period forfeits at once.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from arena.games import dumps

from . import consent
from .mailbox import Mailbox
from .players import Disconnected, Timed, Turn

POLL = 0.5  # seconds between looks at the bot's presence while waiting for its move
# A connected bot's turn is timed by its gateway, which answers for it when its time is up and
# says when its stream closes with the turn on it (``Mailbox.left``): the runner looks at the
# bot's presence only once this share of the grace period has passed without word (a gateway
# that died says nothing), or at once when the bot was away on its last turn.
FIRST_LOOK = 0.5


class Forfeited(Disconnected):
    """The bot stayed away past the grace period: the seat forfeits the match now."""

    forfeit = True


@dataclass
class MatchInfo:
    """What a bot is told when its match starts."""

    match_id: str
    game: str
    options: dict[str, Any]
    seat: int
    num_players: int
    players: list[str]
    move_deadline_ms: int
    time_bank_ms: int
    tournament_id: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"kind": "match_started", **self.__dict__}


@dataclass
class RemotePlayer:
    """One seat played by an external bot."""

    mailbox: Mailbox
    bot_id: str
    info: MatchInfo
    grace: float = 30.0
    # Seconds the runner waits past the bot's time for the gateway's word on a turn (the
    # turn's trips through the mailbox, a stalled server) before it decides without it.
    server_allowance: float = 5.0
    in_process: bool = False
    # A challenge's seat: bounded when the challenge was made (``arena.server.challenge``), it
    # never takes one of the slots (``max_matches``) the bot's rated matches use.
    challenge: bool = False
    _started: bool = field(default=False, init=False)
    _last_latency_ms: int = field(default=0, init=False)
    _detail: str = field(default="", init=False)
    _created: float = field(default_factory=time.time, init=False)
    _wants_samples: bool = field(default=False, init=False)
    # The bot's Hello asked for every decision (read when the match starts, with its other
    # preferences): else the runner applies its forced decisions without asking.
    every_decision: bool = field(default=False, init=False)
    _sent: float = field(default=0.0, init=False)
    _acknowledged: int | None = field(default=None, init=False)  # the turn the gateway answered OK
    # The bot was seen without a stream, and not since; or not yet answered in this match, so
    # its first turn is looked after as a gone bot's is (a bot not come, or revoked, has no
    # gateway to time its turn or say it left).
    _away: bool = field(default=True, init=False)

    async def act(self, turn: Turn) -> Any:
        if not self._started:  # a runner that did not call prepare()
            await self.prepare()
        message = turn_message(turn, self._last_latency_ms, self._wants_samples) | {
            "match": self.info.to_json(),  # so a stream that reconnects mid-match can be told
            # When the turn first left: a turn sent again on a new stream keeps its deadline.
            "sent_at": time.time(),
            # What an OK result for this turn tells the bot, should the gateway give it.
            "strikes": turn.strikes,
        }
        sent = self._sent = time.monotonic()
        self._detail = "no answer in time"
        try:
            first_wait = self._first_wait(turn)
            move = await self.mailbox.ask(self.bot_id, message, first_wait)
            while move is not None and move.get("back"):  # on a new stream: the turn goes again
                await self.mailbox.resend(self.bot_id, message)
                move = await self.mailbox.await_move(turn.match_id, turn.turn_id,
                                                     first_wait - (time.monotonic() - sent))
            if move is None or move.get("left"):
                move = await self._await_move(turn, message, left=move is not None)
            else:
                self._away = False  # its gateway answered: it is there
            seconds = bot_time(move, time.monotonic() - sent)
            self._last_latency_ms = int(seconds * 1000)
            if move.get("timeout"):
                return Timed(None, seconds, timed_out=True)
            action, _, self._detail = resolve(move, turn.legal_actions)
            self._acknowledged = turn.turn_id if move.get("acknowledged") else None
            return Timed(action, seconds)
        except Forfeited as gone:
            self._last_latency_ms = int((time.monotonic() - sent) * 1000)
            self._detail = ("the bot's token was revoked: forfeit" if "revoked" in str(gone)
                            else f"disconnected for more than {self.grace:g} s: forfeit")
            raise

    async def decided(self, turn_id: int, action: str, code: str, strikes: int) -> None:
        """Called by the runner once the turn is decided: the bot learns the code, the
        action applied for it and its strikes; the turn stops being pending. A move the
        gateway acknowledged (legal and in time on its stream: it sent the OK itself and
        settled the turn) needs nothing more when the runner applies it."""
        match_id = self.info.match_id
        if code == "ok" and self._acknowledged == turn_id:
            return  # the gateway told the bot already, and settled the turn with its move
        await self.mailbox.settle(self.bot_id, match_id, turn_id, {
            "kind": "move_result", "match_id": match_id, "turn_id": turn_id,
            "code": code.upper(), "detail": "" if code == "ok" else self._detail,
            "applied_action": action, "strikes": strikes, "latency_ms": self._last_latency_ms})

    async def still_connected(self) -> bool:
        """Whether the bot has a live stream now and its token stands (asked by the runner
        when the gateway never said what became of a turn). The detail the bot is told says
        which way it went."""
        connected = not await self.mailbox.revoked(self.bot_id) and await self.mailbox.offline_since(self.bot_id) is None
        self._last_latency_ms = int((time.monotonic() - self._sent) * 1000)
        if connected:
            self._detail = "the server could not time this turn (it was slow): no strike, no bank spent"
        return connected

    async def prepare(self) -> None:
        """Before the clock starts: wait for a free slot among the matches the bot plays at
        once (its Hello's ``max_matches``, as granted by the gateway; a challenge takes none),
        then tell it the match starts. A bot that stays away past the grace period forfeits
        (``Forfeited``)."""
        await self._enter()
        self._started = True
        await self.mailbox.deliver(self.bot_id, self.info.to_json())

    async def _enter(self) -> None:
        while True:
            prefs = await self.mailbox.prefs(self.bot_id)
            self._wants_samples = bool(prefs.get("want_sample_state"))
            self.every_decision = bool(prefs.get("every_decision"))
            if not consent.plays(prefs, self.info.game):
                raise Forfeited(f"bot {self.bot_id} does not play {self.info.game} (its Hello's games)")
            if self.challenge or await self.mailbox.enter_match(self.bot_id, self.info.match_id,
                                                                int(prefs.get("max_matches", 1))):
                return
            await self._check_presence()
            await asyncio.sleep(POLL)

    async def _check_presence(self) -> bool:
        """True while the bot has a live stream; False while it is away within its grace."""
        if await self.mailbox.revoked(self.bot_id):
            raise Forfeited(f"bot {self.bot_id} was revoked")
        since = await self.mailbox.offline_since(self.bot_id)
        # A bot that has not come yet gets its grace from the start of the match.
        if since is not None and time.time() - max(since, self._created) > self.grace:
            raise Forfeited(f"bot {self.bot_id} gone since {since:.0f}")
        return since is None

    def _first_wait(self, turn: Turn) -> float:
        """Seconds to wait for the gateway's word before looking at the bot's presence."""
        if self._away:
            return POLL
        return max(POLL, min(turn.move_time + turn.time_bank + self.server_allowance, self.grace * FIRST_LOOK))

    async def _await_move(self, turn: Turn, message: dict[str, Any], left: bool) -> dict[str, Any]:
        """The move, once the first wait (``Mailbox.ask``) has passed without it or the bot's
        stream closed with the turn on it (``left``). While the bot has no stream, no gateway
        times its turn: the runner's clock does, and the turn times out when the bot's time is
        up on it. The turn is sent again whenever the bot may be on a stream that does not
        have it: it is back (a note, or seen again after being away), or present when its
        stream left (a newer stream replaced it); a stream that has it does not write it twice."""
        allowed = turn.move_time + turn.time_bank
        away = False
        while True:
            present = await self._check_presence()
            if present and (left or away):
                await self.mailbox.resend(self.bot_id, message)
            left, away = False, not present
            self._away = away
            if not present and time.monotonic() - self._sent > allowed:
                return {"timeout": True}
            move = await self.mailbox.await_move(turn.match_id, turn.turn_id, POLL)
            if move is None:
                continue
            if move.get("back"):
                await self.mailbox.resend(self.bot_id, message)
            elif move.get("left"):
                left = True
            else:
                return move

    async def match_ended(self, result: dict[str, Any]) -> None:
        await self.mailbox.leave_match(self.bot_id, self.info.match_id)
        seat = self.info.seat
        # Self-contained: a bot that comes back after forfeiting never saw the match start.
        await self.mailbox.deliver(self.bot_id, {
            "kind": "match_ended", "match_id": self.info.match_id,
            "scores": result.get("scores", []), "ranks": result.get("ranks", []),
            "forfeited": bool(result.get("forfeited", [False] * (seat + 1))[seat]),
            "reason": result.get("reason", "finished"), "game": self.info.game, "seat": seat,
            "players": list(self.info.players), "tournament_id": self.info.tournament_id})


def turn_message(turn: Turn, last_move_latency_ms: int, want_sample_state: bool) -> dict[str, Any]:
    """The mailbox message of a turn for a bot (``arena.referee.wire`` makes it the protobuf
    ``Turn``): what the seat may see and choose, its clock, its forced decisions since its
    previous turn, and, when the bot asked for them, a sample state."""
    message: dict[str, Any] = {
        "kind": "turn",
        "match_id": turn.match_id,
        "turn_id": turn.turn_id,
        "seat": turn.seat,
        # Encoded once, here: the mailbox and the gateway carry the text as it is.
        "observation_json": dumps(turn.observation),
        "legal_actions": list(turn.legal_actions),
        "deadline_ms": int(turn.move_time * 1000),
        "time_bank_ms": int(turn.time_bank * 1000),
        "last_move_latency_ms": last_move_latency_ms,
    }
    if turn.forced:
        message["forced"] = [list(decision) for decision in turn.forced]
    if want_sample_state and turn.sample is not None:
        message["sample_state"] = turn.sample()
    return message


def bot_time(move: dict[str, Any], waited: float) -> float:
    """Seconds to charge the bot for ``move``: what the gateway measured at the bot's stream.
    A turn sent again after a reconnect was out before this stream had it, and a move from a
    gateway that does not measure carries nothing: both are charged the runner's ``waited``."""
    measured = move.get("latency_ms")
    if move.get("resent") or not isinstance(measured, (int, float)):
        return waited
    return max(0.0, float(measured) / 1000)


def resolve(move: dict[str, Any], legal: list[str]) -> tuple[Any, str, str]:
    """(action to hand the runner, code, detail) for a posted move. A move by index picks
    from the legal list; anything unreadable is handed on as ``None`` (malformed)."""
    if "malformed" in move:
        return None, "MALFORMED", str(move["malformed"])
    if "index" in move:
        index = move["index"]
        if isinstance(index, int) and 0 <= index < len(legal):
            return legal[index], "OK", ""
        return None, "MALFORMED", f"index {index!r} out of range 0..{len(legal) - 1}"
    action = move.get("action")
    if not isinstance(action, str):
        return None, "MALFORMED", "no action"
    if action not in legal:
        return action, "ILLEGAL", f"{action[:80]!r} is not a legal action"
    return action, "OK", ""
