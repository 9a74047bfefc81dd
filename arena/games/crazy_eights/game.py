"""Crazy 8s: the game object, its options and player counts."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import CrazyEightsHeuristic
from .searching import CrazyEightsSearch
from .state import TURN_CAP, CrazyEightsState


class CrazyEights(Game):
    """Backpacker's Playing Cards section 4, with the functional cards of DATA.md 5.4."""

    name = "crazy_eights"
    title = "Crazy 8s"
    version = "1"
    min_players = 2
    # The count the default options allow (one pack); player_counts(options) gives the rest.
    max_players = 6
    turn_cap = TURN_CAP
    state_class = CrazyEightsState
    options: ClassVar[dict[str, Option]] = {
        "decks": Option(
            1, (1, 2), "packs of 52 shuffled together; 2 allows up to 10 players (crazy_eights 4.1)"
        ),
        "draw_two": Option(
            True, (True, False), "a 2 makes the next player draw 2 and miss the turn unless they "
            "stack a 2 of their own (DATA 5.4)"
        ),
        "queen_skip": Option(True, (True, False), "a queen skips the next player (DATA 5.4)"),
        "ace_reverse": Option(
            True, (True, False), "an ace reverses the direction; with two players the same player "
            "plays again (DATA 5.4)"
        ),
        "queen_of_spades": Option(
            False, (True, False), "the queen of spades makes the next player draw 5 and miss the turn (DATA 5.4)"
        ),
        "black_jack": Option(
            False, (True, False), "a black jack makes the next player draw 5 and miss the turn unless "
            "they play a red jack, which cancels it (DATA 5.4)"
        ),
        "fastplay": Option(
            False, (True, False), "a card drawn because the player could not play may be played at once "
            "(crazy_eights 4.3)"
        ),
        "reshuffle": Option(
            False, (True, False), "when the draw pile is empty, the discard pile but its top card is "
            "shuffled into a new one; otherwise play goes on without drawing (crazy_eights 4.2)"
        ),
        "last_card": Option(
            False, (True, False), "a player left with one card must call \"Last card!\" or draw 2 "
            "penalty cards (crazy_eights 4.3)"
        ),
        "target_score": Option(
            0, (0, 50, 100, 200), "0: one hand is the match; otherwise hands are dealt until a player "
            "has this many penalty points, fewest points wins (crazy_eights 4.2)"
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"fastplay": True, "last_card": True, "reshuffle": True, "queen_of_spades": True},
        {"decks": 2, "black_jack": True, "draw_two": False, "queen_skip": False, "ace_reverse": False},
        {"target_score": 50},
    ]
    heuristic = CrazyEightsHeuristic
    search = CrazyEightsSearch  # worlds that agree with the other player's plays
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 1024, "depth": None, "halving": True}

    def player_counts(self, options: dict[str, Any] | None = None) -> range:
        """2-6 players with one pack; a second pack allows more (crazy_eights 4.1)."""
        decks = (options or {}).get("decks", 1)
        return range(2, 7 if decks == 1 else 11)
