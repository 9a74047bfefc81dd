"""Yaniv (Backpacker's Playing Cards, section 2): shed points, call "Yaniv" at 7 or fewer,
beware "Assaf". Its own ``search`` (``searching``) deals the opponents low cards and plays
cheaper playouts."""

from __future__ import annotations

from .bots import YanivHeuristic
from .game import Yaniv, YanivState
from .searching import YanivSearch

__all__ = ["Yaniv", "YanivHeuristic", "YanivSearch", "YanivState"]
