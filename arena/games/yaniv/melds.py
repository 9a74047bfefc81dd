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
RUN_VALUE = [0, *(min(r, 10) for r in range(1, 14))]  # run rank -> card value


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


# A hand as one integer: two bits per card of the double pack (a card is held at most twice),
# so the key of a hand is the sum of its cards' keys whatever their order, and laying or
# taking a card is a subtraction or an addition. Searches meet the same hands again and
# again; these keys let them remember what a hand allows without sorting it each time.
CARD_KEY = {c: 1 << (2 * i) for i, c in enumerate(cards.deck(jokers=2))}
_KEY_CARD = {(2 * i): c for i, c in enumerate(cards.deck(jokers=2))}


def hand_key(hand: list[str]) -> int:
    """The same integer for every ordering of the same cards."""
    return sum(map(CARD_KEY.__getitem__, hand))


# cards_of reads a key a byte at a time: byte i of a key -> the cards it holds.
_KEY_BYTES = [
    [
        [c for slot in range(4) for c in [_KEY_CARD.get(8 * i + 2 * slot, "")] * (b >> 2 * slot & 3) if c]
        for b in range(256)
    ]
    for i in range(len(CARD_KEY) // 4 + 1)
]


def cards_of(key: int) -> list[str]:
    """The cards of a ``hand_key``."""
    out: list[str] = []
    i = 0
    while key:
        b = key & 255
        if b:
            out += _KEY_BYTES[i][b]
        key >>= 8
        i += 1
    return out


_DISCARD_IDS: dict[int, list[str]] = {}  # hand_key -> sorted ``discard ...`` action ids


def discard_ids(hand: list[str]) -> list[str]:
    """The ``discard ...`` action ids of ``hand``, sorted (a new list each call). The set of
    discards does not depend on the order of the hand, so it is remembered per hand."""
    key = hand_key(hand)
    known = _DISCARD_IDS.get(key)
    if known is None:
        if len(_DISCARD_IDS) >= 200_000:
            _DISCARD_IDS.clear()
        known = _DISCARD_IDS[key] = sorted("discard " + " ".join(d) for d in discards(hand))
    return list(known)


def most_shed(hand: list[str]) -> int:
    """The most points one discard from ``hand`` sheds: ``max`` of the values of
    ``discards(hand)``, computed without listing them. A set sheds every card of its rank;
    a run sheds the cards it holds in its span, its gaps filled by jokers (worth 0)."""
    return shed_profile(hand)[2]


# card -> (value, rank, suit, run bit); None for a joker
_CARD_INFO = {c: (VALUE[c], c[0], c[1], RUN_BIT[c]) for c in cards.deck()}


def shed_profile(hand: list[str]) -> tuple[int, int, int]:
    """``hand_value(hand)``, the highest single card's value and ``most_shed(hand)``, in
    one pass over the hand."""
    total = 0
    single = 0
    best = 0
    jokers = 0
    by_rank: dict[str, int] = {}
    suits: dict[str, int] = {}  # suit -> bit r for each run rank r held
    for c in hand:
        info = _CARD_INFO.get(c)
        if info is None:
            jokers += 1
            continue
        value, rank, suit, bit = info
        total += value
        if value > single:
            single = value
        same = by_rank[rank] = by_rank.get(rank, 0) + 1  # a set sheds all of one rank
        if same * value > best:
            best = same * value
        suits[suit] = suits.get(suit, 0) | bit
    if single > best:
        best = single
    if len(hand) >= 3:
        for mask in suits.values():
            shed = _run_shed(mask, jokers)
            if shed > best:
                best = shed
    return total, single, best


_RUN_SHED: dict[tuple[int, int], int] = {}  # (ranks held in a suit, jokers) -> most a run sheds


def _run_shed(mask: int, jokers: int) -> int:
    """The most points a run of one suit sheds: the suit's cards held are the bits of
    ``mask`` (bit r for run rank r), ``jokers`` fill gaps."""
    known = _RUN_SHED.get((mask, jokers))
    if known is not None:
        return known
    best = 0
    if mask.bit_count() + jokers >= 3:
        for low in range(1, 12):
            missing = 0
            shed = 0
            present = False
            for high in range(low, 14):
                if mask >> high & 1:
                    shed += RUN_VALUE[high]
                    present = True
                else:
                    missing += 1
                    if missing > jokers:
                        break
                if high - low >= 2 and present and shed > best:
                    best = shed
    _RUN_SHED[(mask, jokers)] = best
    return best
