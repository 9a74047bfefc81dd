"""Backpacker (rules/backpacker.txt): the basic and advanced card game for 2-6 players."""

from .bots import BackpackerHeuristic
from .game import Backpacker
from .searching import BackpackerSearch

__all__ = ["Backpacker", "BackpackerHeuristic", "BackpackerSearch"]
