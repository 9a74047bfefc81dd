"""Yaniv (Backpacker's Playing Cards, section 2): shed points, call "Yaniv" at 7 or fewer,
beware "Assaf". Registers the game ``yaniv``, its ``heuristic`` house bot and its ``search``
(the shared search with cheaper playouts)."""

from __future__ import annotations

from arena.games import register, register_bot

from .bots import YanivHeuristic
from .game import Yaniv, YanivState
from .searching import YanivSearch

__all__ = ["Yaniv", "YanivHeuristic", "YanivSearch", "YanivState"]

register(Yaniv())
register_bot("yaniv", "heuristic", YanivHeuristic)
# After register(), which registers the shared search for every game: the later one stands.
register_bot("yaniv", "search", lambda seat, seed: YanivSearch("yaniv", seat, seed))
