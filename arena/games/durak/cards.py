"""Durak's cards: the short pack, the rank order and which card beats which (durak 3.4.3)."""

from __future__ import annotations

from itertools import combinations

from arena.games import cards

SHORT_RANKS = "6789TJQKA"  # durak 4.2 Preparation: 36 cards, 6 to ace
SUIT_ORDER = {s: i for i, s in enumerate(cards.SUITS)}
VALUE = cards.RANK_VALUE  # ace high, the same order in both packs


def pack(size: int) -> list[str]:
    """The ordered 36-card pack, or the full 52-card pack (durak 3.7 Playing with 52 cards)."""
    return cards.deck(ranks=SHORT_RANKS if size == 36 else cards.RANKS)


def value(card: str) -> int:
    return VALUE[card[0]]


def beats(defence: str, attack: str, trump: str) -> bool:
    """durak 3.4.3: a higher card of the same suit, or any trump on a non-trump;
    a trump is beaten only by a higher trump."""
    if defence[1] == attack[1]:
        return VALUE[defence[0]] > VALUE[attack[0]]
    return defence[1] == trump


def in_order(group: list[str] | tuple[str, ...]) -> list[str]:
    """Cards in the canonical order used inside action ids: by rank, then suit C, D, H, S."""
    return sorted(group, key=lambda c: (VALUE[c[0]], SUIT_ORDER[c[1]]))


def groups(same_rank: list[str], most: int) -> list[str]:
    """Every non-empty choice of up to ``most`` cards among ``same_rank``, each written as
    the cards joined by spaces in canonical order."""
    if most <= 0:
        return []
    if len(same_rank) == 1:
        return list(same_rank)  # the common case, kept cheap for fast playouts
    ordered = in_order(same_rank)
    if most == 1:
        return ordered
    out: list[str] = []
    for size in range(1, min(most, len(ordered)) + 1):
        out.extend(" ".join(c) for c in combinations(ordered, size))
    return out
