"""Yaniv: the game object, its options and player counts."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import YanivHeuristic
from .searching import YanivSearch
from .state import YanivState


class Yaniv(Game):
    """Backpacker's Playing Cards section 2; the recommended (unbracketed) rules by default."""

    name = "yaniv"
    title = "Yaniv"
    version = "1"
    min_players = 2
    # The count the default options allow (one pack); player_counts(options) gives the rest.
    max_players = 5
    turn_cap = 20_000
    state_class = YanivState
    options: ClassVar[dict[str, Option]] = {
        "decks": Option(
            1, (1, 2), "packs of 52 + 2 jokers shuffled together; the second pack allows 6-8 "
            "players (yaniv 2.1)"
        ),
        "hand_size": Option(5, (5, 6, 7), "cards dealt to each player (yaniv 2.2)"),
        "call_limit": Option(7, (7, 6, 5), "most points in hand that allow calling Yaniv (yaniv 2.3)"),
        "assaf_penalty": Option(20, (20, 30), "penalty points for a caller beaten by Assaf (yaniv 2.4.2)"),
        "end_score": Option(100, (100, 200), "a player above this score ends the game (yaniv 2.1)"),
        "ending": Option(
            "lowest", ("lowest", "elimination"), "lowest: the game ends when a player passes the end "
            "score, fewest points wins; elimination: that player drops out, the last one left wins "
            "(yaniv 2.1)"
        ),
        "ninety_rule": Option(
            False, (True, False), "a player who lands on exactly 90 may draw a card: a ten-valued card "
            "takes the score to 70, any other adds its value (yaniv 2.5)"
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"decks": 2, "hand_size": 7, "call_limit": 5, "assaf_penalty": 30, "ninety_rule": True},
        {"ending": "elimination", "hand_size": 6, "call_limit": 6},
    ]
    heuristic = YanivHeuristic
    search = YanivSearch  # worlds that deal the opponents low cards, cheaper playouts
    # The standings only move when a round is scored: a playout runs to the next one, and a
    # round is scored by its margin. The playouts are spent in rounds of halving: with a flat
    # share, 12 playouts over up to 8 candidates gave each one or two worlds, too few for any
    # verdict but the noise's.
    search_budget: ClassVar[dict[str, Any]] = {
        "iterations": 24, "depth": 80, "candidates": 6, "min_worlds": 4, "until_scored": True,
        "halving": True, "scale": 15.0,
    }

    def player_counts(self, options: dict[str, Any] | None = None) -> range:
        """2-5 players with one pack; 6-8 with the second pack (yaniv 2.1)."""
        decks = (options or {}).get("decks", 1)
        return range(2, 6 if decks == 1 else 9)
