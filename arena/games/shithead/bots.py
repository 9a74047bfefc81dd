"""The Shithead house bot: a plain good player that sees only its observation."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot

from .rules import VALUE

# How much a card is worth keeping for later: the functional cards 10, 2 and 3 get a player
# out of trouble whatever lies on the pile, so they go face up and are played last.
KEEP = {"T": 20, "2": 19, "3": 17}


def keep_value(card: str) -> int:
    rank = card[0]
    return KEEP.get(rank, VALUE[rank])


class ShitheadHeuristic(HouseBot):
    """Puts its strongest cards face up, gets rid of its lowest ordinary cards first (all
    copies at once), saves 10s, 2s and 3s for when nothing else fits, burns when it can."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if observation["phase"] == "swap":
            return self._swap(legal_actions)
        if observation["cut_window"] is not None:
            return self._cut(observation, legal_actions)
        plays = [a for a in legal_actions if a.startswith("play ") and not a.startswith("play down")]
        if not plays:
            return legal_actions[0]  # take, or a blind face-down card
        return max(plays, key=lambda a: self._score(observation, a))

    def _swap(self, legal_actions: list[str]) -> str:
        best, gain = "ready", 0
        for action in legal_actions:
            if action.startswith("swap "):
                _, up, held = action.split()
                g = keep_value(held) - keep_value(up)
                if g > gain:
                    best, gain = action, g
        return best

    def _cut(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        cuts = [a for a in legal_actions if a != "pass"]
        if not cuts:
            return "pass"
        best = max(cuts, key=lambda a: len(a.split()))
        rank = best.split()[-1][0]
        if rank in KEEP and not self._burns(observation, best):
            return "pass"
        return best

    @staticmethod
    def _cards(action: str) -> list[str]:
        return [w for w in action.split()[1:] if w != "up"]

    def _burns(self, observation: dict[str, Any], action: str) -> bool:
        played = self._cards(action)
        rank = played[0][0]
        run = 0
        for card in reversed(observation["pile"]):
            if card[0] != rank:
                break
            run += 1
        return run + len(played) >= 4 and rank != "3"

    def _score(self, observation: dict[str, Any], action: str) -> float:
        played = self._cards(action)
        rank = played[0][0]
        score = -3.0 * keep_value(played[0]) + 2.0 * len(played)
        if self._burns(observation, action):
            score += 40
        if rank == "T":
            # A 10 is worth spending on a big pile it would otherwise have to pick up.
            score += 2 * len(observation["pile"])
        # Near the end, block a neighbour about to finish with a 7 or high cards.
        nxt = (observation["seat"] + 1) % observation["num_players"]
        counts = observation["hand_counts"]
        if observation["pack_count"] == 0 and observation["sources"][nxt] != "hand" and counts[nxt] == 0:
            score += VALUE[rank] if rank not in KEEP else 0
        return score
