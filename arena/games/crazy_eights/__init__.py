"""Crazy 8s (Backpacker's Playing Cards, section 4): match the suit or rank of the top card,
eights are wild. Its own ``search`` (``searching``) deals worlds that agree with the other
player's plays."""

from __future__ import annotations

from .bots import CrazyEightsHeuristic
from .game import CrazyEights, CrazyEightsState
from .searching import CrazyEightsSearch

__all__ = ["CrazyEights", "CrazyEightsHeuristic", "CrazyEightsSearch", "CrazyEightsState"]
