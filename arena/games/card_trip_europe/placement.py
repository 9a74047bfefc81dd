"""The placement rules (card-trip-europe "Placement Rules" and "Energy").

A card trip is one line of card numbers, left to right; a card placed campsite side up is
stored as its negative number. The rulebook's two rows of 8 are only a way to save table
space ("the last card of the top row and the first card of the bottom row ... count as
connected"), so a single list is the whole layout.
"""

from __future__ import annotations

from .locations import ENERGY, TYPE, WEEK_ENERGY


def week_energy(trip: list[int]) -> int:
    """Energy already spent in the open week (the cards after the last campsite)."""
    spent = 0
    for entry in reversed(trip):
        if entry < 0:
            break
        spent += ENERGY[entry]
    return spent


def can_place(trip: list[int], number: int) -> bool:
    """May location ``number`` be placed, location side up, at the end of ``trip``?

    card-trip-europe "Placement Rules": a new week (trip start or after a campsite) ignores
    the previous cards; otherwise the number must be higher than the last location's, the
    type different, and the week's energy may not exceed 7."""
    if not trip or trip[-1] < 0:
        return ENERGY[number] <= WEEK_ENERGY
    last = trip[-1]
    if number <= last or TYPE[number] == TYPE[last]:
        return False
    return week_energy(trip) + ENERGY[number] <= WEEK_ENERGY


def can_camp(trip: list[int]) -> bool:
    """May a card be placed campsite side up at the end of ``trip``?

    Any card may rest as a campsite, but "2 campsites cannot be adjacent to each other"."""
    return not trip or trip[-1] > 0
