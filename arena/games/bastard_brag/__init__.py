"""Bastard Brag, Backpacker's Playing Cards section 5 (see docs/games/bastard_brag.md)."""

from .bots import BastardBragHeuristic
from .game import BastardBrag
from .state import BastardBragState

__all__ = ["BastardBrag", "BastardBragHeuristic", "BastardBragState"]
