"""The Bastard Brag game object: metadata and options."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import BastardBragHeuristic
from .state import BastardBragState


class BastardBrag(Game):
    """Bastard Brag (Backpacker's Playing Cards, section 5): overbid in the other colour,
    underbid after an ace; whoever stops the flow is punished; the last holding cards is
    the bastard."""

    name = "bastard_brag"
    title = "Bastard Brag"
    version = "1"
    min_players = 2
    max_players = 10  # 5.2: above six players two packs are shuffled together
    turn_cap = 5000
    state_class = BastardBragState
    options: ClassVar[dict[str, Option]] = {
        "coloured_jokers": Option(
            False,
            (False, True),
            "5.3 alternative: the red joker only on a black card, the black joker only on a red one.",
        ),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [{"coloured_jokers": True}]
    heuristic = BastardBragHeuristic
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 32, "depth": None}
