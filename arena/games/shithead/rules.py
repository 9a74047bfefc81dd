"""Shithead card rules that do not depend on the match: which rank may go on the pile,
what a play burns, which seats a play skips.

Functional cards follow the standard table of DATA.md §5.2 (the booklet's own table is lost);
each one is a toggle in the options.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from arena.games import cards

# shithead 1.2: the rank order is 2 to Ace.
VALUE = cards.RANK_VALUE

# shithead 1.4: "A player who has a 4 ... If no one has a 4, a player with a 5 starts, etc."
# 2 and 3 are functional cards, so they come last when looking for the opener.
OPENING_ORDER = "456789TJQKA23"

HAND_SIZE = 3  # shithead 1.3 / 1.4.2: three face down, three face up, three in hand
SWAPS = 3  # three swaps reach any arrangement of the six cards before play


def is_invisible(rank: str, options: dict[str, Any]) -> bool:
    """DATA 5.2: the 3 is invisible (the next player beats the card under it)."""
    return rank == "3" and bool(options["three_invisible"])


def to_beat(pile: Sequence[str], options: dict[str, Any]) -> str | None:
    """The rank the next card must match or beat: the top card, looking through 3s.

    None when the pile is empty (or only invisible 3s): any card may open it."""
    for card in reversed(pile):
        if not is_invisible(card[0], options):
            return card[0]
    return None


def can_play(rank: str, pile: Sequence[str], options: dict[str, Any]) -> bool:
    """May a card of ``rank`` go on ``pile``? (shithead 1.4.1 and DATA 5.2)."""
    if rank == "2" and options["two_reset"]:
        return True
    if is_invisible(rank, options):
        return True
    top = to_beat(pile, options)
    if top is None:
        return True
    seven = top == "7" and options["seven_lower"]
    if rank == "T" and options["ten_burn"]:
        # DATA 5.2 default: the burning 10 goes on anything except a 7.
        return not (top == "7" and not options["ten_on_seven"])
    if seven:
        # DATA 5.2: after a 7 the next player must play a 7 or lower.
        return VALUE[rank] <= 7
    return VALUE[rank] >= VALUE[top]


def burns(pile: Sequence[str], played: Sequence[str], options: dict[str, Any]) -> bool:
    """Does the pile burn once ``played`` lies on top of it?

    shithead 1.4.1.2: four of a kind lying directly on top of each other (an invisible 3
    between them breaks the row: 9-9-3-9 does not burn); DATA 5.2: a 10 burns."""
    if options["ten_burn"] and any(c[0] == "T" for c in played):
        return True
    if not options["four_burn"] or len(pile) < 4:
        return False
    top = pile[-1][0]
    if is_invisible(top, options):
        return False
    return all(c[0] == top for c in pile[-4:])


def skips(played: Sequence[str], options: dict[str, Any]) -> int:
    """DATA 5.2: each 8 played skips one player."""
    if not options["eight_skip"]:
        return 0
    return sum(1 for c in played if c[0] == "8")


def same_rank_groups(held: Sequence[str]) -> dict[str, list[str]]:
    """Cards grouped by rank, each group sorted."""
    groups: dict[str, list[str]] = {}
    for card in sorted(held):
        groups.setdefault(card[0], []).append(card)
    return groups


def multiples(group: Sequence[str]) -> list[tuple[str, ...]]:
    """Every non-empty choice of cards from one rank group (shithead 1.4.1.1: one or more
    cards of the same face value). Suits do not matter to the rules, so when a group is
    larger than one pack's four cards only one choice per count is offered."""
    if len(group) > 4:
        return [tuple(group[:k]) for k in range(1, len(group) + 1)]
    out: set[tuple[str, ...]] = set()
    for k in range(1, len(group) + 1):
        out.update(combinations(group, k))
    return sorted(out)


def remove_cards(held: list[str], gone: Sequence[str]) -> None:
    """Remove each card of ``gone`` once from ``held`` (cards are values; two packs repeat)."""
    for card in gone:
        held.remove(card)


def discard_known(known: list[str], gone: Sequence[str]) -> list[str]:
    """Forget publicly known cards that were just played from that hand; returns the played
    cards nobody knew were there."""
    unknown = []
    for card in gone:
        if card in known:
            known.remove(card)
        else:
            unknown.append(card)
    return unknown
