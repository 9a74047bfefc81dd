"""Crazy 8s (Backpacker's Playing Cards, section 4): match the suit or rank of the top card,
eights are wild. Registers the game ``crazy_eights``, its ``heuristic`` house bot and its own
``search`` (``searching``: worlds that agree with the other player's plays)."""

from __future__ import annotations

from arena.games import register, register_bot

from . import searching
from .bots import CrazyEightsHeuristic
from .game import CrazyEights, CrazyEightsState
from .searching import CrazyEightsSearch

__all__ = ["CrazyEights", "CrazyEightsHeuristic", "CrazyEightsSearch", "CrazyEightsState"]

register(CrazyEights())
register_bot("crazy_eights", "heuristic", CrazyEightsHeuristic)
register_bot("crazy_eights", "search", searching.factory)  # after register(), which adds the plain one
