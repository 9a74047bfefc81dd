"""Itchy Feet: The Travel Game (rules/itchy-feet.ru.txt), with every expansion and the
Bucket List variant as options. Card lists are in ``cards.json`` (reconstructed)."""

from __future__ import annotations

from .bots import ItchyFeetHeuristic
from .game import ItchyFeet

__all__ = ["ItchyFeet", "ItchyFeetHeuristic"]
