"""Card Trip Europe (``rules/card-trip-europe.txt``): draft location cards two at a time and
lay them out as a card trip of weeks, each week ended by a campsite."""

from .bots import CardTripEuropeHeuristic
from .game import CardTripEurope

__all__ = ["CardTripEurope", "CardTripEuropeHeuristic"]
