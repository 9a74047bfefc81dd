"""Yaniv card values and the discards a hand allows (yaniv 2.3, 2.4.1).

A discard is a tuple of cards in the order laid on the pile; the next player may take only
its first or its last card. Three shapes are legal:

- a single card of any kind;
- a set: two or more cards of one rank (jokers do not join sets);
- a run: three or more cards of one suit in sequence, the ace always low (A-2-3, never
  Q-K-A), a joker standing for any card of it. Runs are laid from low to high.

Each discard has exactly one id: a set lists its two outer cards in card order with the
inner cards sorted between them; jokers fill a run's gaps in the order ``BJ`` then ``RJ``.
"""

from __future__ import annotations

from itertools import combinations

from arena.games import cards

JOKERS = frozenset(cards.JOKERS)

# yaniv 2.3: number cards at face value, ace 1, jokers 0, jack, queen and king 10.
VALUE = {c: (1 if c[0] == "A" else 10 if c[0] in "TJQK" else int(c[0])) for c in cards.deck()}
VALUE.update({j: 0 for j in cards.JOKERS})

# Position in a run: the ace is 1, before the 2 (yaniv 2.4.1).
RUN_RANK = {r: i + 1 for i, r in enumerate("A23456789TJQK")}
RUN_BIT = {r + s: 1 << (i + 1) for i, r in enumerate("A23456789TJQK") for s in cards.SUITS}
RUN_CARD = {(i + 1, s): r + s for i, r in enumerate("A23456789TJQK") for s in cards.SUITS}


# Ace low, then suit; jokers last. The same order as cards.sort_cards with RUN_RANK, as a
# table: observations sort every hand, and this is measurably cheaper.
_HAND_ORDER = {c: i for i, c in enumerate(cards.sort_cards(cards.deck(jokers=2), RUN_RANK))}


def in_hand_order(hand: list[str]) -> list[str]:
    """``hand`` sorted for display: ace low, then suit; jokers last."""
    return sorted(hand, key=_HAND_ORDER.__getitem__)


def hand_value(hand: list[str]) -> int:
    """Points in a hand (yaniv 2.3)."""
    return sum(VALUE[c] for c in hand)


def _sets(hand: list[str]) -> list[tuple[str, ...]]:
    ranks = [c[0] for c in hand if c not in JOKERS]
    if len(set(ranks)) == len(ranks):
        return []
    by_rank: dict[str, list[str]] = {}
    for c in hand:
        if c not in JOKERS:
            by_rank.setdefault(c[0], []).append(c)
    out: list[tuple[str, ...]] = []
    for group in by_rank.values():
        if len(group) < 2:
            continue
        group.sort()
        for size in range(2, len(group) + 1):
            for combo in combinations(group, size):
                if size == 2:
                    out.append(combo)
                    continue
                # Which two cards lie outside (takeable) is the only order that matters.
                for i, j in combinations(range(size), 2):
                    inner = [combo[k] for k in range(size) if k != i and k != j]
                    out.append((combo[i], *inner, combo[j]))
    return out


def _runs(hand: list[str]) -> list[tuple[str, ...]]:
    jokers = sorted(c for c in hand if c in JOKERS)
    spare_jokers = len(jokers)
    masks: dict[str, int] = {}  # suit -> bit r set for each run rank r held
    for c in hand:
        bit = RUN_BIT.get(c)
        if bit is not None:
            masks[c[1]] = masks.get(c[1], 0) | bit
    out: list[tuple[str, ...]] = []
    for suit, mask in masks.items():
        if mask.bit_count() + spare_jokers < 3:
            continue
        held = {r for r in range(1, 14) if mask >> r & 1}
        for low in range(max(1, min(held) - spare_jokers), min(11, max(held)) + 1):
            missing = 0
            present: list[int] = []
            for high in range(low, 14):
                if high in held:
                    present.append(high)
                else:
                    missing += 1
                    if missing > spare_jokers:
                        break  # longer runs from this low card miss even more
                if high - low < 2 or not present:
                    continue
                span = range(low, high + 1)
                if not spare_jokers:
                    out.append(tuple(RUN_CARD[(r, suit)] for r in span))
                    continue
                # A joker may also stand in for a card the player keeps.
                for extra in range(0, min(spare_jokers - missing, len(present) - 1) + 1):
                    for kept in combinations(present, extra):
                        used = iter(jokers[: missing + extra])
                        out.append(
                            tuple(
                                RUN_CARD[(r, suit)] if (r in held and r not in kept) else next(used)
                                for r in span
                            )
                        )
    return out


def discards(hand: list[str]) -> list[tuple[str, ...]]:
    """Every legal discard from ``hand``, each once."""
    out: list[tuple[str, ...]] = [(c,) for c in hand]
    if len(hand) >= 2:
        out += _sets(hand)
    if len(hand) >= 3:
        out += _runs(hand)
    return list(dict.fromkeys(out))
