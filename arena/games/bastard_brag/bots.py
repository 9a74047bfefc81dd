"""The Bastard Brag house bot: a plain good player that sees only its observation."""

from __future__ import annotations

from typing import Any

from arena.games import HouseBot, cards

from .rules import VALUE, beats, direction_after


def unseen(observation: dict[str, Any]) -> list[str]:
    """Cards this seat has not seen: the packs minus the discard pile and its own hand."""
    copies = 1 if observation["num_players"] <= 6 else 2
    pool = cards.deck(jokers=2, copies=copies)
    for card in observation["pile"] + observation["hand"]:
        pool.remove(card)
    return pool


def follows(card: str, top: str, direction: str) -> bool:
    """Could ``card`` go on ``top`` (not a joker) while bidding goes ``direction``?"""
    if cards.is_joker(card):
        return True
    return cards.colour(card) != cards.colour(top) and beats(card[0], top[0], direction)


class BastardBragHeuristic(HouseBot):
    """Sheds as many cards as it can; counts cards to guess whether the next player can
    follow; likes to leave a card others cannot beat when it can follow it itself, and fears
    it when it cannot (the bastard rule, 5.4); keeps jokers for emergencies."""

    SHED = 10.0  # per card played
    JOKER = 12.0  # cost of spending a joker
    BLOCK = 3.0  # leaving a card the next player likely cannot follow, while we can
    STUCK = 8.0  # ... while we cannot (the bastard rule)
    CLIMB = 1.0  # cost per rank step away from the gentlest play

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if observation["phase"] == "gift":
            return self._gift(observation, legal_actions)
        plays = [a for a in legal_actions if a != "pass"]
        if not plays:
            return "pass"
        pool = unseen(observation)
        return max(plays, key=lambda a: self._score(observation, a.split()[1:], pool))

    def _gift(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        hand = observation["hand"]

        def worth(action: str) -> float:
            card = action.split()[1]
            if cards.is_joker(card):
                return 100.0
            twins = sum(1 for c in hand if c[0] == card[0])
            # Aces and 2s turn the bidding; pairs shed two cards at once: keep those.
            return 5.0 * twins + (8.0 if card[0] in "A2" else 0.0) - abs(VALUE[card[0]] - 8)

        return min(legal_actions, key=worth)

    def _score(self, observation: dict[str, Any], run: list[str], pool: list[str]) -> float:
        hand = list(observation["hand"])
        for card in run:
            hand.remove(card)
        if not hand:
            return 1000.0  # out
        last = run[-1]
        score = self.SHED * len(run)
        if cards.is_joker(last):
            return score - self.JOKER
        direction = direction_after(last, observation["direction"])
        # The chance the next player holds nothing to follow with.
        nxt = (observation["seat"] + 1) % observation["num_players"]
        while nxt in observation["out"]:
            nxt = (nxt + 1) % observation["num_players"]
        beaters = sum(1 for c in pool if follows(c, last, direction))
        share = beaters / len(pool) if pool else 0.0
        blocked = (1.0 - share) ** observation["hand_counts"][nxt]
        if any(follows(c, last, direction) for c in hand):
            score += self.BLOCK * blocked
        else:
            score -= self.STUCK * blocked
        step = VALUE[last[0]] if observation["direction"] == "up" else 16 - VALUE[last[0]]
        score -= self.CLIMB * step
        if last[0] in "A2" and len(run) == 1:
            score -= 1.0  # a reversal is worth more later
        return score
