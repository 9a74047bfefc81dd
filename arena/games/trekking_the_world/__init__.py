"""Trekking the World: race around a world map, collect souvenirs and tour destinations.

Rules in ``state.py`` (turn structure), ``routes.py`` (exact-length moves) and ``trek.py``
(paying with trek cards); printed data in ``data/*.json``; the house bot in ``bots.py``.
Bot authors: ``docs/games/trekking_the_world.md``.
"""

from .bots import TrekkingTheWorldHeuristic
from .game import TrekkingTheWorld

__all__ = ["TrekkingTheWorld", "TrekkingTheWorldHeuristic"]
