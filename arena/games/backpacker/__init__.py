"""Backpacker (rules/backpacker.txt): the basic and advanced card game for 2-6 players."""

from arena.games import register, register_bot

from .bots import BackpackerHeuristic
from .game import Backpacker

register(Backpacker())
register_bot("backpacker", "heuristic", BackpackerHeuristic)
