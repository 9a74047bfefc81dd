"""The Backpacker heuristic house bot (filled in below)."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot


class BackpackerHeuristic(HouseBot):
    """Plays like the rulebook's strategy tips."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return self.random.choice(legal_actions)
