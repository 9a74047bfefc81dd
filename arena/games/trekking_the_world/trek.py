"""Trek cards: ids, and the ways a hand can pay for a move, a tour or a journey.

A card is its number then its icon letter: ``3C`` is a Camera worth 3 connections. The deck
holds 7 "1s", 5 "2s" and 3 "3s" of each of the five icons (trekking "Game Components"), so
equal ids are equal cards. Payments are multisets, written sorted (``1C,2M``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from itertools import product


def number(card: str) -> int:
    """The movement value of a trek card."""
    return int(card[0])


def icon(card: str) -> str:
    """The icon letter of a trek card (C, B, M, N, P)."""
    return card[1]


def sums_mask(hand: list[str], cap: int) -> int:
    """Bit mask of the totals (1 to ``cap``) that some cards of ``hand`` add up to."""
    return _sums(tuple(hand), cap)


@lru_cache(maxsize=1 << 16)
def _sums(hand: tuple[str, ...], cap: int) -> int:
    mask = 1
    full = (1 << (cap + 1)) - 1
    for card in hand:
        mask = (mask | mask << int(card[0])) & full
    return mask & ~1


def payments(hand: list[str], fits: Callable[[int], bool]) -> list[tuple[str, ...]]:
    """Every distinct multiset of cards from ``hand`` whose total is a length that ``fits``
    (trekking Move step 2: the numbers must EXACTLY equal the distance), leaving out those
    that contain a smaller such multiset: the extra cards would be discarded for nothing
    (there is no hand limit), so such a payment is never better. ``fits`` is asked only
    about totals that some such multiset could have, each once."""
    kinds = sorted(Counter(hand).items())
    answers: dict[int, bool] = {}

    def hits(sums: int) -> int:
        """The totals in the bit mask ``sums`` that fit."""
        out = 0
        rest = sums & ~1
        while rest:
            low = rest & -rest
            total = low.bit_length() - 1
            if total not in answers:
                answers[total] = fits(total)
            if answers[total]:
                out |= low
            rest ^= low
        return out

    out: list[tuple[str, ...]] = []
    chosen: list[str] = []

    def pick(i: int, total: int, sums: int) -> None:
        # sums: bit mask of the totals of every sub-multiset of chosen (0 included)
        if i == len(kinds):
            if hits(sums) == 1 << total and total:
                out.append(tuple(chosen))
            return
        card, copies = kinds[i]
        value = number(card)
        pick(i + 1, total, sums)
        taken = 0
        while taken < copies and not hits(sums):
            taken += 1
            chosen.append(card)
            total += value
            sums |= sums << value
            pick(i + 1, total, sums)
        del chosen[len(chosen) - taken :]

    pick(0, 0, 1)
    return out


def _choose(cards: list[str], k: int) -> list[tuple[str, ...]]:
    """Distinct multisets of ``k`` cards from ``cards`` (all of one icon)."""
    kinds = sorted(Counter(cards).items())
    out: list[tuple[str, ...]] = []

    def pick(i: int, left: int, chosen: tuple[str, ...]) -> None:
        if left == 0:
            out.append(chosen)
            return
        if i == len(kinds):
            return
        card, copies = kinds[i]
        for take in range(min(copies, left), -1, -1):
            pick(i + 1, left - take, chosen + (card,) * take)

    pick(0, k, ())
    return out


def icon_payments(hand: list[str], icons: tuple[str, ...] | list[str]) -> list[tuple[str, ...]]:
    """Every distinct way to pay the icons ``icons`` (a multiset of icon letters) from
    ``hand``; numbers do not matter (trekking "Take a Tour")."""
    need = Counter(icons)
    by_icon: dict[str, list[str]] = {}
    for card in hand:
        by_icon.setdefault(icon(card), []).append(card)
    options = []
    for ic, k in sorted(need.items()):
        ways = _choose(by_icon.get(ic, []), k)
        if not ways:
            return []
        options.append(ways)
    return [tuple(sorted(sum(combo, ()))) for combo in product(*options)]


def pairs(hand: list[str]) -> list[tuple[str, ...]]:
    """Every distinct pair of one icon in ``hand`` (trekking "Journey": two of the same
    icon; their numbers do not matter)."""
    out: list[tuple[str, ...]] = []
    for ic in sorted({icon(c) for c in hand}):
        out.extend(_choose([c for c in hand if icon(c) == ic], 2))
    return out


def reduced_requirements(icons: tuple[str, ...], less: int) -> list[tuple[str, ...]]:
    """The distinct requirements left after ignoring ``less`` icons of one's choice
    (journey "Take a Tour for X less")."""
    if less <= 0:
        return [icons]
    out = {icons}
    for _ in range(less):
        out = {req[:i] + req[i + 1 :] for req in out for i in range(len(req))}
    return sorted(out)


def fmt(cards: tuple[str, ...] | list[str]) -> str:
    """``1C,2M``: a payment as written in action ids."""
    return ",".join(sorted(cards))
