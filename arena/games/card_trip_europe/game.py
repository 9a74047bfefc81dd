"""Card Trip Europe: the game's metadata and options."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import CardTripEuropeHeuristic
from .state import TRIP_LENGTH, CardTripState


class CardTripEurope(Game):
    """Card Trip Europe: draft 16 location cards into a card trip of weeks and campsites.

    The rulebook gives no player count; 104 cards and 16-card trips allow 2 to 6 players
    (6 x 16 = 96 cards)."""

    name = "card_trip_europe"
    title = "Card Trip Europe"
    version = "2"  # 2: placements of a step are shown together
    min_players = 2
    max_players = 6
    # 6 seats x 8 rounds x (1 choice + 2 placements) = 144 decisions; the cap is far above.
    turn_cap = 6 * TRIP_LENGTH * 3
    options: ClassVar[dict[str, Option]] = {
        "bonus_sides": Option(
            "positive",
            ("positive", "negative", "mixed"),
            "Bonus card sides: 'positive' (the rulebook's first game: +6 for the most, +3 each on "
            "a tie), 'negative' (-4 for the fewest, -2 each on a tie) or 'mixed' (each card's "
            "side drawn at random at setup, shown to everyone).",
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"bonus_sides": "negative"},
        {"bonus_sides": "mixed"},
    ]
    state_class = CardTripState
    heuristic = CardTripEuropeHeuristic
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 12, "depth": 12, "min_worlds": 3}
