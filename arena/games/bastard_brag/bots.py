"""The Bastard Brag house bot."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot


class BastardBragHeuristic(HouseBot):
    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        return legal_actions[0]
