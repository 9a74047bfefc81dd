"""Durak's metadata and options (rulebook section 3)."""

from __future__ import annotations

from typing import Any, ClassVar

from arena.games import Game, Option

from .bots import DurakHeuristic
from .state import DurakState


class Durak(Game):
    """Durak: attack and defend; whoever is left holding cards is the Durak (the fool)."""

    name = "durak"
    title = "Durak"
    version = "2"  # 2: attackers join in while the defence is under way (throw_in_timing)
    min_players = 2
    max_players = 6
    turn_cap = 5000
    state_class = DurakState
    options = {
        "pack": Option(36, (36, 52), "36 cards, six each; or 52 cards, nine each (3.7)"),
        "redeal": Option(
            True, (True, False),
            "a player with five or more of one suit and no trump may insist on a redeal (4.2)",
        ),
        "throw_ins": Option(
            "neighbour", ("neighbour", "clockwise", "any"),
            "who may add cards: the main attacker and the defender's left neighbour; or "
            "every other player asked clockwise; or every other player in a random order (3.4.2)",
        ),
        "throw_in_timing": Option(
            "during", ("during", "after"),
            "when the attackers may add cards: also while the defence is under way, together "
            "with the defender's every step; or only once every card on the table is beaten (3.4.2)",
        ),
        "attack_limits": Option(
            "standard", ("standard", "5/6", "5/7"),
            "cards per bout: as many as the defender holds up to 6 (9 with 52 cards); or at "
            "most 5 in the first bout and 6 or 7 later (3.4.2)",
        ),
        "shoving": Option(
            "off", ("off", "on", "match"),
            "pass the attack on with cards of the attacked rank: off; any number; as many as "
            "lie on the table (3.7 Shoving)",
        ),
        "shove_direction": Option(
            False, (False, True), "a shover may reverse the direction of play (3.7 Shoving)"
        ),
        "trump_change": Option(
            False, (False, True),
            "a face-down card under the trump card names a new trump when drawn (3.7)",
        ),
        "teams": Option(
            False, (False, True), "two teams, seats alternating, 2 v 2 or 3 v 3 (3.7 Team game)"
        ),
        "later_game": Option(
            "no", ("no", "durak_deals", "durak_attacked"),
            "first game (lowest trump starts); or a later game where seat 0 was the Durak: "
            "seat 0 deals and seat 1 starts, or seat 0 is attacked first (3.4.1)",
        ),
    }
    test_option_sets = [
        {"pack": 52, "throw_ins": "clockwise", "attack_limits": "5/7", "later_game": "durak_attacked"},
        {"throw_in_timing": "after", "throw_ins": "clockwise"},
        {"shoving": "on", "shove_direction": True, "trump_change": True, "throw_ins": "any"},
        {"teams": True, "shoving": "match", "later_game": "durak_deals", "redeal": False},
    ]
    heuristic = DurakHeuristic
    search_budget: ClassVar[dict[str, Any]] = {"iterations": 16, "depth": None}

    def player_counts(self, options: dict[str, Any] | None = None) -> range:
        """2-6 with 36 cards, 2-5 with 52 (nine each); teams need 4 or 6 players."""
        resolved = self.resolve_options(options)
        top = 6 if resolved["pack"] == 36 else 5
        if resolved["teams"]:
            return range(4, top + 1, 2)
        return range(2, top + 1)
