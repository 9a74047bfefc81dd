"""The Crazy 8s heuristic house bot."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot


class CrazyEightsHeuristic(HouseBot):
    """Placeholder: first legal action."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return legal_actions[0]
