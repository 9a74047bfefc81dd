"""Shithead, Backpacker's Playing Cards section 1 (see docs/games/shithead.md)."""

from .bots import ShitheadHeuristic
from .game import Shithead
from .state import ShitheadState

__all__ = ["Shithead", "ShitheadHeuristic", "ShitheadState"]
