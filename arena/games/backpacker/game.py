"""The Backpacker game object: metadata, options and player counts."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import BadOptions, Game, Option

from .bots import BackpackerHeuristic
from .deck import LEVEL_COLOURS, parse_extra
from .searching import BackpackerSearch
from .state import BackpackerState


class Backpacker(Game):
    """Backpacker: travel, photograph countries on 5 continents, get home safely."""

    name = "backpacker"
    title = "Backpacker"
    version = "2"  # 2: Broken Camera may be played on a pile carrying Bad Advice (9.3)
    min_players = 2
    max_players = 6
    turn_cap = 20_000
    state_class = BackpackerState
    options: ClassVar[dict[str, Option]] = {
        "cards": Option(
            "advanced",
            tuple(LEVEL_COLOURS),
            "advanced: all 106 cards (the best way to play); basic: no yellow or pink cards; "
            "learning1: countries, grey and blue; learning2: adds red and green; learning3: adds "
            "orange (the full Basic game)",
        ),
        "extra_cards": Option(
            "",
            (),
            "comma-separated yellow/pink card ids added to a basic or learning game, "
            "e.g. 'near_miss,credit_card'",
        ),
        "years": Option(1, (1, 2, 3, 4, 5), "the game lasts this many years (Future piles)"),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"cards": "basic"},
        {"cards": "learning1", "years": 2},
        {"cards": "basic", "extra_cards": "near_miss,travelling_companion,follow_the_trail"},
    ]
    # `make bench` measures the basic game beside the (default) advanced one.
    bench_option_sets: ClassVar[list[dict[str, Any]]] = [{"cards": "basic"}]
    heuristic = BackpackerHeuristic
    search = BackpackerSearch  # counts the trips on the table in an unfinished playout
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 48, "depth": 40, "min_worlds": 3, "halving": True}

    def resolve_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        resolved = super().resolve_options(options)
        try:
            parse_extra(resolved["extra_cards"])
        except ValueError as err:
            raise BadOptions(str(err)) from None
        return resolved
