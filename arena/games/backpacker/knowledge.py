"""Who knows which cards are in whose hand (backpacker 6 rule 12, 9.5, 9.6).

``known[viewer][holder]`` is a multiset (list) of cards that ``viewer`` knows ``holder``
holds: shown when going home, seen with Everest, Seek Guidance, Grapevine or Under the
Influence, passed by the viewer, announced in an Internet Cafe exchange, handed over with a
Near Miss or Grapevine. It is always a sub-multiset of the holder's hand: when a holder loses
a card the viewer did not see leave, the viewer's knowledge of that hand is dropped.

``resample_hidden`` keeps these cards where they are and re-deals only the rest.
"""

from __future__ import annotations

from collections.abc import Iterable


def empty(num_players: int) -> list[list[list[str]]]:
    """Nobody knows anything about anybody's hand."""
    return [[[] for _ in range(num_players)] for _ in range(num_players)]


def _discard_one(cards: list[str], card: str) -> None:
    if card in cards:
        cards.remove(card)


def public_loss(known: list[list[list[str]]], holder: int, card: str) -> None:
    """``holder`` played or discarded ``card`` face up: nobody thinks it is still there."""
    for row in known:
        _discard_one(row[holder], card)


def public_gain(known: list[list[list[str]]], holder: int, card: str) -> None:
    """Everybody saw ``card`` go into ``holder``'s hand (Near Miss, Grapevine, a known draw)."""
    for viewer, row in enumerate(known):
        if viewer != holder:
            row[holder].append(card)


def shown(known: list[list[list[str]]], holder: int, card: str) -> None:
    """``holder`` showed ``card`` (Insurance, Credit Card): everybody knows one copy is there."""
    for viewer, row in enumerate(known):
        if viewer != holder and card not in row[holder]:
            row[holder].append(card)


def transfer(known: list[list[list[str]]], src: int, dst: int, card: str, witnesses: Iterable[int]) -> None:
    """``card`` moved from ``src``'s hand to ``dst``'s; only ``witnesses`` know which card."""
    seen = set(witnesses) | {src, dst}
    for viewer, row in enumerate(known):
        if viewer in seen:
            _discard_one(row[src], card)
            if viewer != dst:
                row[dst].append(card)
        else:
            # An unseen card left src: whatever this viewer knew of src may be gone.
            row[src] = []


def reveal(known: list[list[list[str]]], holder: int, hand: list[str], viewers: Iterable[int]) -> None:
    """``viewers`` see ``holder``'s whole hand."""
    for viewer in viewers:
        if viewer != holder:
            known[viewer][holder] = list(hand)


def swap_hands(known: list[list[list[str]]], a: int, b: int, hand_a: list[str], hand_b: list[str]) -> None:
    """Wrong Backpack: ``a`` and ``b`` swapped whole hands (``hand_a``/``hand_b`` before the
    swap). Each knows what the other now holds; everybody else swaps what they knew."""
    for viewer, row in enumerate(known):
        if viewer == a:
            row[b] = list(hand_a)
        elif viewer == b:
            row[a] = list(hand_b)
        else:
            row[a], row[b] = row[b], row[a]


def keep_of(hand: list[str], known_cards: list[str]) -> list[str]:
    """The known cards that are really in ``hand`` (multiset intersection)."""
    rest = list(hand)
    keep = []
    for card in known_cards:
        if card in rest:
            rest.remove(card)
            keep.append(card)
    return keep
