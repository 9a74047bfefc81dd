"""A house bot of the arena (the per-game ``heuristic`` by default) playing over the wire,
exactly as any external bot would: it sees the same observation and legal actions.
``python -m bots.house_bot [--strategy heuristic]``."""

from __future__ import annotations

import sys
from typing import Any

from arena_bot.cli import main
from arena_bot.sdk import Bot, Match, MatchResult, Turn

from arena.games import house


class HouseOverTheWire(Bot):
    max_matches = 4

    def __init__(self, strategy: str = "heuristic") -> None:
        self.strategy = strategy
        self.players: dict[str, Any] = {}

    def on_match_start(self, match: Match) -> None:
        name = self.strategy if self.strategy in house.bot_names(match.game) else "random"
        self.players[match.match_id] = house.house_bot(match.game, name, match.seat, hash(match.match_id))

    def act(self, turn: Turn) -> str:
        player = self.players[turn.match.match_id]
        return str(player.act(turn.observation, turn.legal_actions))

    def on_match_end(self, result: MatchResult) -> None:
        self.players.pop(result.match.match_id, None)


if __name__ == "__main__":
    strategy = "heuristic"
    if "--strategy" in sys.argv:
        at = sys.argv.index("--strategy")
        strategy = sys.argv[at + 1]
        del sys.argv[at:at + 2]
    main(HouseOverTheWire(strategy), "A house bot of the arena, over gRPC.")
