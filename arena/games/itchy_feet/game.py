"""Itchy Feet: The Travel Game — the ``Game`` object: metadata and options."""

from __future__ import annotations

from typing import Any, ClassVar

from ..base import Game, Option
from .bots import ItchyFeetHeuristic
from .state import ItchyFeetState

_ON_OFF = (False, True)


class ItchyFeet(Game):
    """Race to visit your own country, then the centre one (rules/itchy-feet.ru.txt)."""

    name = "itchy_feet"
    title = "Itchy Feet: The Travel Game"
    version = "2"  # 2: trades of any number of cards; Lost Luggage, Free Wi-Fi, Local Guide
    min_players = 2
    max_players = 6
    turn_cap = 20_000  # room for the longest stall bound at six players
    state_class = ItchyFeetState
    # "We recommend playing the first game without them": every expansion is off by default.
    options: ClassVar[dict[str, Option]] = {
        "variant": Option("classic", ("classic", "bucket_list"),
                          "classic race, or the Bucket List alternative rules (most countries)"),
        "events": Option(False, _ON_OFF, "shuffle the 4 events into the deck"),
        "specials": Option(False, _ON_OFF, "shuffle the 9 special items into the deck"),
        "forbidden": Option(False, _ON_OFF, "shuffle the 3 forbidden items into the deck"),
        "postcards": Option(False, _ON_OFF, "shuffle the 6 postcards into the deck (4 win)"),
        "characters": Option(False, _ON_OFF, "one character card per player (not in bucket list)"),
        # Not in the rulebook: the arena's end to a trip nobody can finish (see core).
        "stall_rounds": Option(40, (20, 40, 80, 160),
                               "end the trip, ranked by progress, after this many rounds without a trip"),
    }
    test_option_sets: ClassVar[list[dict[str, Any]]] = [
        {"events": True, "specials": True, "forbidden": True, "postcards": True,
         "characters": True},
        {"variant": "bucket_list", "events": True, "specials": True, "forbidden": True,
         "postcards": True},
    ]
    heuristic = ItchyFeetHeuristic
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 12, "depth": 20}
