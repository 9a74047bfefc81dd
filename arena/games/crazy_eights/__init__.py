"""Crazy 8s (Backpacker's Playing Cards, section 4): match the suit or rank of the top card,
eights are wild. Registers the game ``crazy_eights`` and its ``heuristic`` house bot."""

from __future__ import annotations

from arena.games import register, register_bot

from .bots import CrazyEightsHeuristic
from .game import CrazyEights, CrazyEightsState

__all__ = ["CrazyEights", "CrazyEightsHeuristic", "CrazyEightsState"]

register(CrazyEights())
register_bot("crazy_eights", "heuristic", CrazyEightsHeuristic)
