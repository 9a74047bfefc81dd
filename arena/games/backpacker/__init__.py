"""Backpacker (rules/backpacker.txt): the basic and advanced card game for 2-6 players."""

from arena.games import register, register_bot

from .bots import BackpackerHeuristic
from .game import Backpacker
from .searching import BackpackerSearch

register(Backpacker())
register_bot("backpacker", "heuristic", BackpackerHeuristic)
# After register(), which gives every game the generic search: Backpacker's counts the trips.
register_bot("backpacker", "search", BackpackerSearch)
