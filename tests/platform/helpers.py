"""Shared helpers for the platform tests: which registered games to use, scripted players."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from arena import games
from arena.referee import Disconnected, Turn

# Games known to play quickly with house bots, preferred for pipeline tests; any other
# registered game is used when none of these is registered yet.
PREFERRED = ["crazy_eights", "yaniv", "durak", "shithead", "bastard_brag"]


def fast_games(count: int = 2) -> list[str]:
    """Up to ``count`` registered games, the quick ones first."""
    registered = games.names()
    ordered = [g for g in PREFERRED if g in registered] + [g for g in registered if g not in PREFERRED]
    return ordered[:count]


def table_sizes(game: str) -> list[int]:
    """The smallest two legal table sizes of ``game`` under its default options."""
    counts = games.get(game).player_counts(games.get(game).resolve_options(None))
    return list(counts)[:2]


@dataclass
class ScriptedPlayer:
    """A player that misbehaves on cue: ``script[i]`` says what to do on its i-th turn
    ("ok", "illegal", "malformed", "slow", "disconnect", "crash"); after the script it plays
    the first legal action."""

    script: list[str] = field(default_factory=list)
    slow: float = 0.05
    in_process: bool = False
    asked: int = 0

    async def act(self, turn: Turn) -> str:
        step = self.script[self.asked] if self.asked < len(self.script) else "ok"
        self.asked += 1
        if step == "illegal":
            return "no such action"
        if step == "malformed":
            return 42  # type: ignore[return-value]
        if step == "slow":
            await asyncio.sleep(self.slow)
        if step == "disconnect":
            raise Disconnected("gone")
        if step == "crash":
            raise RuntimeError("bot bug")
        return turn.legal_actions[0]

    async def match_ended(self, result: dict) -> None:
        return None
