"""Standard playing cards, written rank + suit: ``TS``, ``8H``, ``AC``; jokers ``RJ``, ``BJ``.

Ranks ``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; suits ``C``, ``D``, ``H``, ``S``.
With two decks the same id appears twice: cards are values, not objects.
"""

from __future__ import annotations

import random

RANKS = "23456789TJQKA"
SUITS = "CDHS"
JOKERS = ("BJ", "RJ")
RED_SUITS = frozenset("DH")

# Ace high: 2 -> 2 ... A -> 14. Games with other orders build their own table from RANKS.
RANK_VALUE = {r: i + 2 for i, r in enumerate(RANKS)}


def deck(*, ranks: str = RANKS, jokers: int = 0, copies: int = 1) -> list[str]:
    """A fresh, ordered deck: every suit of ``ranks``, plus up to two jokers per copy."""
    one = [r + s for s in SUITS for r in ranks] + list(JOKERS[:jokers])
    return one * copies


def shuffled(cards: list[str], rng: random.Random) -> list[str]:
    """A new list with ``cards`` in a seeded random order."""
    out = list(cards)
    rng.shuffle(out)
    return out


def rank(card: str) -> str:
    """``'T'`` for ``'TS'``; ``'J'`` for either joker is never returned: jokers have rank ``''``."""
    return "" if is_joker(card) else card[0]


def suit(card: str) -> str:
    """``'S'`` for ``'TS'``; ``''`` for a joker."""
    return "" if is_joker(card) else card[1]


def is_joker(card: str) -> bool:
    return card in JOKERS


def colour(card: str) -> str:
    """``'red'`` or ``'black'``; the red joker is red, the black joker black."""
    if card == "RJ":
        return "red"
    if card == "BJ":
        return "black"
    return "red" if card[1] in RED_SUITS else "black"


def deal(pile: list[str], hands: list[list[str]], count: int) -> None:
    """Deal ``count`` cards to each hand, one at a time clockwise, from the end of ``pile``
    (the top of the face-down pack is the end of the list)."""
    for _ in range(count):
        for hand in hands:
            if pile:
                hand.append(pile.pop())


def sort_cards(cards: list[str], order: dict[str, int] = RANK_VALUE) -> list[str]:
    """Cards by rank (``order``), then suit; jokers last."""
    return sorted(cards, key=lambda c: (order.get(rank(c), 99), suit(c), c))
