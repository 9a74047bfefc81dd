"""The 104 location cards and the 5 bonus cards, loaded from the JSON files beside this module.

The card lists are a reconstruction (see ``rules/DATA.md`` section 4): replacing
``locations.json`` and ``bonus_cards.json`` with the published lists needs no code change.
Lookups are tuples indexed by card number so the rules stay fast.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

CITY = "city"
PARK = "park"
ATTRACTION = "attraction"
EVENT = "event"
CAMPSITE = "campsite"
LOCATION_TYPES = (CITY, PARK, ATTRACTION, EVENT)

# card-trip-europe "Energy": 7 energy to spend per week.
WEEK_ENERGY = 7


@dataclass(frozen=True)
class Location:
    """One location card: its number, type, energy cost (stars) and name."""

    number: int
    type: str
    energy: int
    name: str


@dataclass(frozen=True)
class BonusCard:
    """One double-sided bonus card: which cards it counts and the points on each side."""

    id: str
    name: str
    counts: str  # a location type, or "campsite"
    most: int  # positive side: the single player with the most cards
    most_tie: int  # positive side: each of the tied players with the most
    fewest: int  # negative side: the single player with the fewest cards
    fewest_tie: int  # negative side: each of the tied players with the fewest


def _load(name: str) -> Any:
    return json.loads(resources.files(__package__).joinpath(name).read_text("utf-8"))


def _load_locations() -> dict[int, Location]:
    cards: dict[int, Location] = {}
    for row in _load("locations.json")["locations"]:
        card = Location(int(row["number"]), str(row["type"]), int(row["energy"]), str(row["name"]))
        if card.number in cards or card.number < 1:
            raise ValueError(f"locations.json: card number {card.number} repeated or not positive")
        if card.type not in LOCATION_TYPES or not 1 <= card.energy <= WEEK_ENERGY:
            raise ValueError(f"locations.json: bad type or energy on card {card.number}")
        cards[card.number] = card
    return cards


def _load_bonus_cards() -> tuple[BonusCard, ...]:
    out = []
    for row in _load("bonus_cards.json")["bonus_cards"]:
        if row["counts"] not in (*LOCATION_TYPES, CAMPSITE):
            raise ValueError(f"bonus_cards.json: {row['id']} counts unknown {row['counts']!r}")
        out.append(
            BonusCard(
                id=row["id"],
                name=row["name"],
                counts=row["counts"],
                most=int(row["positive"]["most"]),
                most_tie=int(row["positive"]["tie"]),
                fewest=int(row["negative"]["fewest"]),
                fewest_tie=int(row["negative"]["tie"]),
            )
        )
    return tuple(out)


LOCATIONS: dict[int, Location] = _load_locations()
NUMBERS: tuple[int, ...] = tuple(sorted(LOCATIONS))
BONUS_CARDS: tuple[BonusCard, ...] = _load_bonus_cards()

# Fast lookups by card number (index 0 and gaps unused).
TYPE: tuple[str, ...] = tuple(LOCATIONS[n].type if n in LOCATIONS else "" for n in range(max(NUMBERS) + 1))
ENERGY: tuple[int, ...] = tuple(LOCATIONS[n].energy if n in LOCATIONS else 0 for n in range(max(NUMBERS) + 1))
