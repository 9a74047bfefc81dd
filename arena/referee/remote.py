"""An external bot as a player of the match runner, reached through the mailbox.

The runner asks ``act(turn)``; the player delivers the turn to the bot's mailbox, waits for
the move the gateway posts back, and turns it into an action id. The runner keeps the clock
(it cancels ``act`` when the bot's time is up); this side only knows about the connection:
a bot that has had no live stream for longer than the grace period forfeits at once.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from arena.games import dumps

from .mailbox import Mailbox
from .players import Disconnected, Turn

POLL = 0.5  # seconds between looks at the bot's presence while waiting for its move


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
    in_process: bool = False
    # A challenge's seat: bounded when the challenge was made (``arena.server.challenge``), it
    # never takes one of the slots (``max_matches``) the bot's rated matches use.
    challenge: bool = False
    _started: bool = field(default=False, init=False)
    _last_latency_ms: int = field(default=0, init=False)
    _detail: str = field(default="", init=False)
    _created: float = field(default_factory=time.time, init=False)
    _wants_samples: bool = field(default=False, init=False)
    _sent: float = field(default=0.0, init=False)

    async def act(self, turn: Turn) -> Any:
        if not self._started:  # a runner that did not call prepare()
            await self.prepare()
        message = {
            "kind": "turn",
            "match_id": turn.match_id,
            "turn_id": turn.turn_id,
            "seat": turn.seat,
            # Encoded once, here: the mailbox and the gateway carry the text as it is.
            "observation_json": dumps(turn.observation),
            "legal_actions": list(turn.legal_actions),
            "deadline_ms": int(turn.move_time * 1000),
            "time_bank_ms": int(turn.time_bank * 1000),
            "last_move_latency_ms": self._last_latency_ms,
            "match": self.info.to_json(),  # so a stream that reconnects mid-match can be told
        }
        if self._wants_samples and turn.sample is not None:
            message["sample_state"] = turn.sample()
        sent = self._sent = time.monotonic()
        self._detail = "no answer in time"
        try:
            move = await self.mailbox.ask(self.bot_id, message, POLL)
            if move is None:
                move = await self._await_move(turn)
            self._last_latency_ms = int((time.monotonic() - sent) * 1000)
            action, _, self._detail = resolve(move, turn.legal_actions)
            return action
        except Forfeited as gone:
            self._detail = ("the bot's token was revoked: forfeit" if "revoked" in str(gone)
                            else f"disconnected for more than {self.grace:g} s: forfeit")
            raise

    async def decided(self, turn_id: int, action: str, code: str, strikes: int) -> None:
        """Called by the runner once the turn is decided: the bot learns the code, the
        action applied for it and its strikes; the turn stops being pending."""
        match_id = self.info.match_id
        if code != "ok":  # unanswered: what it cost the bot is the time the referee waited
            self._last_latency_ms = int((time.monotonic() - self._sent) * 1000)
        await self.mailbox.settle(self.bot_id, match_id, turn_id, {
            "kind": "move_result", "match_id": match_id, "turn_id": turn_id,
            "code": code.upper(), "detail": "" if code == "ok" else self._detail,
            "applied_action": action, "strikes": strikes, "latency_ms": self._last_latency_ms})

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
            if self.challenge or await self.mailbox.enter_match(self.bot_id, self.info.match_id,
                                                                int(prefs.get("max_matches", 1))):
                return
            await self._check_presence()
            await asyncio.sleep(POLL)

    async def _check_presence(self) -> None:
        if await self.mailbox.revoked(self.bot_id):
            raise Forfeited(f"bot {self.bot_id} was revoked")
        since = await self.mailbox.offline_since(self.bot_id)
        # A bot that has not come yet gets its grace from the start of the match.
        if since is not None and time.time() - max(since, self._created) > self.grace:
            raise Forfeited(f"bot {self.bot_id} gone since {since:.0f}")

    async def _await_move(self, turn: Turn) -> dict[str, Any]:
        """The move, once the first wait (``Mailbox.ask``) has passed without it."""
        while True:
            await self._check_presence()
            move = await self.mailbox.await_move(turn.match_id, turn.turn_id, POLL)
            if move is not None:
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
