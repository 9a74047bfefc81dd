"""The Shithead game object: metadata, options and player counts."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import ShitheadHeuristic
from .state import ShitheadState


class Shithead(Game):
    """Shithead (Backpacker's Playing Cards, section 1): get rid of your hand, then your face-up
    and finally your face-down cards; the last player holding cards is the Shithead."""

    name = "shithead"
    title = "Shithead"
    version = "1"
    min_players = 2
    max_players = 5
    turn_cap = 30_000
    state_class = ShitheadState
    options: ClassVar[dict[str, Option]] = {
        "two_reset": Option(
            True, (True, False), "2 resets: it goes on anything and anything goes on it (DATA 5.2)."
        ),
        "three_invisible": Option(
            True,
            (True, False),
            "3 is invisible: the next player beats the card under it; it breaks a four-of-a-kind row.",
        ),
        "seven_lower": Option(True, (True, False), "After a 7 the next player must play a 7 or lower."),
        "eight_skip": Option(True, (True, False), "Each 8 played skips the next player."),
        "ten_burn": Option(True, (True, False), "10 burns the pile; the same player opens a new one."),
        "ten_on_seven": Option(False, (False, True), "The burning 10 may also go on a 7."),
        "four_burn": Option(
            True, (True, False), "Four of a kind in a row burns the pile (shithead 1.4.1.2)."
        ),
        "cutting_in": Option(
            False,
            (False, True),
            "Optional rule 1.5 (DATA 5.3): a player holding the rank just played may play it out of turn.",
        ),
        "decks": Option(
            1, (1, 2), "Packs shuffled together; the second pack allows more players (shithead 1.1)."
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"cutting_in": True},
        {"decks": 2, "ten_on_seven": True},
    ]
    heuristic = ShitheadHeuristic
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 16, "depth": 20}

    def player_counts(self, options: dict[str, Any] | None = None) -> range:
        """Nine cards a player: one pack seats 2-5; the second pack is for more players
        (shithead 1.1), 6-10."""
        decks = (options or {}).get("decks", 1)
        return range(2, 6) if decks == 1 else range(6, 11)
