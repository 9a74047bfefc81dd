"""Yaniv (Backpacker's Playing Cards, section 2): shed points, call "Yaniv" at 7 or fewer,
beware "Assaf". Registers the game ``yaniv`` and its ``heuristic`` house bot."""

from __future__ import annotations

from arena.games import register, register_bot

from .bots import YanivHeuristic
from .game import Yaniv, YanivState

__all__ = ["Yaniv", "YanivHeuristic", "YanivState"]

register(Yaniv())
register_bot("yaniv", "heuristic", YanivHeuristic)
