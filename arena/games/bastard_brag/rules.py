"""Bastard Brag card rules that do not depend on the match (Backpacker's Playing Cards,
section 5): which runs of one rank may go on the top card, and what they do to the
direction of bidding."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games import cards

HAND_SIZE = 7  # bastard brag 5.2
VALUE = cards.RANK_VALUE  # 5.2: 2-10, Jack, Queen, King, Ace


def beats(rank: str, top: str, direction: str) -> bool:
    """5.3: higher than the top card while overbidding, lower after an ace reversal."""
    if direction == "up":
        return VALUE[rank] > VALUE[top]
    return VALUE[rank] < VALUE[top]


def direction_after(card: str, direction: str) -> str:
    """5.3: an ace turns bidding down, a 2 turns it up again, a joker resets it to up."""
    if cards.is_joker(card) or card[0] == "2":
        return "up"
    if card[0] == "A":
        return "down"
    return direction


def alternating_runs(group: Sequence[str], first_colour: str | None) -> list[tuple[str, ...]]:
    """Every order of cards from one rank group whose colours alternate red/black (5.3:
    ♠9-♥9-♣9 on a red 8, never ♥9-♠9), starting with ``first_colour`` (None: either)."""
    reds = sorted(c for c in group if cards.colour(c) == "red")
    blacks = sorted(c for c in group if cards.colour(c) == "black")
    runs: set[tuple[str, ...]] = set()

    def extend(run: tuple[str, ...], colour: str, left: dict[str, list[str]]) -> None:
        for i, card in enumerate(left[colour]):
            if card in left[colour][:i]:
                continue  # the same card twice (two packs): one choice is enough
            nxt = tuple([*run, card])
            runs.add(nxt)
            rest = dict(left)
            rest[colour] = left[colour][:i] + left[colour][i + 1 :]
            extend(nxt, "black" if colour == "red" else "red", rest)

    starts = [first_colour] if first_colour else ["red", "black"]
    for colour in starts:
        extend((), colour, {"red": reds, "black": blacks})
    return sorted(runs)


def opposite(colour: str) -> str:
    return "black" if colour == "red" else "red"
