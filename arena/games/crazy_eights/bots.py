"""The Crazy 8s heuristic house bot: it sees only the observation and the legal action ids."""

from __future__ import annotations

from collections import Counter
from typing import Any

from arena.games import HouseBot

from .actions import PARSE
from .state import POINTS


class CrazyEightsHeuristic(HouseBot):
    """Plays like a careful club player:

    - keeps its eights for when nothing else fits (or to go out), and then wishes for the
      suit it holds most of;
    - otherwise plays the card after which it can still follow most of its own hand,
      shedding high penalty cards first;
    - uses twos, queens and aces hard against a player close to going out;
    - stacks a two on a two rather than drawing, always calls "Last card!", and plays a
      card drawn under Fastplay.
    """

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        plays = [a for a in legal_actions if a in PARSE]
        if not plays:
            return legal_actions[0]
        # "Last card!" costs nothing to call and two cards to forget.
        called = [a for a in plays if PARSE[a][2]]
        if called:
            plays = called
        return max(plays, key=lambda a: self._value(a, observation))

    def _value(self, action: str, obs: dict[str, Any]) -> float:
        card, wish, _ = PARSE[action]
        hand: list[str] = list(obs["hand"])
        hand.remove(card)
        if not hand:
            return 1000.0  # going out wins the hand
        n = obs["num_players"]
        seat = obs["seat"]
        step = obs["direction"]
        nxt = (seat + step) % n
        threat = obs["hand_sizes"][nxt] <= 2
        rest = [c for c in hand if c[0] != "8"]
        suits = Counter(c[1] for c in rest)
        if card[0] == "8":
            # An eight is the one card that always fits: spend it last, and wish well.
            score = -20.0 + 3.0 * suits.get(wish, 0)
            if not rest:
                score += 15.0
            return score
        follow = sum(1 for c in hand if c[0] == "8" or c[0] == card[0] or c[1] == card[1])
        score = 2.0 * follow + POINTS[card] / 2.0
        rank = card[0]
        options = obs["options"]
        if (rank == "2" and options["draw_two"]) or (rank == "Q" and options["queen_skip"]) or (
            rank == "A" and options["ace_reverse"]
        ):
            # Action cards: strongest against a player about to go out.
            # With two players each of them gives the same player another turn.
            score += 8.0 if (threat or n == 2) else 1.0
        return score
