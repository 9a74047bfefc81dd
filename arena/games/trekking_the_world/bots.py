"""The heuristic house bot (placeholder: first legal action)."""

from __future__ import annotations

from typing import Any

from ..house import HouseBot


class TrekkingHeuristic(HouseBot):
    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return self.random.choice(legal_actions)
