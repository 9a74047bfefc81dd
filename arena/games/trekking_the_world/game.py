"""Trekking the World: metadata, options and the state factory."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, Option, State
from .bots import TrekkingTheWorldHeuristic
from .state import TrekkingState


class TrekkingTheWorld(Game):
    """Trekking the World (Underdog Games, 2020) for 2-5 players, on the reconstructed map
    and cards of DATA.md section 2 (see ``data/``)."""

    name = "trekking_the_world"
    title = "Trekking the World"
    version = "2"  # 2: moves longer than the map's diameter when the cards pay for them
    min_players = 2
    max_players = 5
    turn_cap = 4000
    options: ClassVar[dict[str, Option]] = {
        # trekking setup 9: first game A: Exchange Rate + B: Catch Me If You Can
        "journeys": Option(
            "first_game",
            ("first_game", "random"),
            "first_game: A Exchange Rate and B Catch Me If You Can; random: one random A and B card",
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [{"journeys": "random"}]
    state_class: ClassVar[type[State]] = TrekkingState
    heuristic = TrekkingTheWorldHeuristic
    # The standings only move when a tour is scored: a playout runs to the next one.
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 12, "depth": 40, "min_worlds": 3, "until_scored": True}
