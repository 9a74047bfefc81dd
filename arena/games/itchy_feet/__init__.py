"""Itchy Feet: The Travel Game (rules/itchy-feet.ru.txt), with every expansion and the
Bucket List variant as options. Card lists are in ``cards.json`` (reconstructed)."""

from __future__ import annotations

from ... import games
from .bots import Traveller
from .game import ItchyFeet

games.register(ItchyFeet())
games.register_bot("itchy_feet", "heuristic", Traveller)
