"""Shithead, Backpacker's Playing Cards section 1 (see docs/games/shithead.md)."""

from arena.games import register, register_bot

from .bots import ShitheadHeuristic
from .game import Shithead
from .state import ShitheadState

__all__ = ["Shithead", "ShitheadHeuristic", "ShitheadState"]

register(Shithead())
register_bot("shithead", "heuristic", ShitheadHeuristic)
