"""Card Trip Europe (``rules/card-trip-europe.txt``): draft location cards two at a time and
lay them out as a card trip of weeks, each week ended by a campsite."""

from arena.games import register, register_bot

from .bots import HeuristicBot
from .game import CardTripEurope

register(CardTripEurope())
register_bot("card_trip_europe", "heuristic", HeuristicBot)

__all__ = ["CardTripEurope", "HeuristicBot"]
