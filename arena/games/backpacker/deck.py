"""Backpacker card data: the 38 countries and the 68 event cards, loaded from the JSON files
in ``data/`` so that published card data can replace the reconstruction without code changes.

Card ids are lower-case words joined by ``_``: ``kenya``, ``easter_island``, ``sickness``,
``bad_timing``, ``internet_cafe``. Cards are values: the four Sicknesses are four ``sickness``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_DATA = Path(__file__).with_name("data")


@dataclass(frozen=True)
class Country:
    """A country card (backpacker 4): continent colour, camera points, bonus symbols."""

    id: str
    name: str
    continent: str
    points: int
    bonuses: frozenset[str]


@dataclass(frozen=True)
class Event:
    """An event card (backpacker 5, 9): its colour decides how it is played."""

    id: str
    name: str
    colour: str
    count: int
    section: str
    text: str = ""  # what the card does, summarised from its rulebook section


def _load() -> tuple[dict[str, Country], dict[str, Event]]:
    raw_countries = json.loads((_DATA / "countries.json").read_text())["countries"]
    raw_events = json.loads((_DATA / "events.json").read_text())["events"]
    countries = {
        c["id"]: Country(c["id"], c["name"], c["continent"], int(c["points"]), frozenset(c["bonuses"]))
        for c in raw_countries
    }
    events = {
        e["id"]: Event(e["id"], e["name"], e["colour"], int(e["count"]), e["section"], e.get("text", "")) for e in raw_events
    }
    return countries, events


COUNTRIES, EVENTS = _load()

# backpacker 4: six continents; Antarctica is the wildcard towards the 5-continent bonus.
CONTINENTS = ("africa", "americas", "antarctica", "asia", "europe", "oceania")
BONUS_CARDS = frozenset(e.id for e in EVENTS.values() if e.colour == "blue")
GREY = frozenset(e.id for e in EVENTS.values() if e.colour == "grey")
BAD_ADVICE = frozenset(e.id for e in EVENTS.values() if e.colour == "red")
GOOD_ADVICE = frozenset(e.id for e in EVENTS.values() if e.colour == "green")
PINK = frozenset(e.id for e in EVENTS.values() if e.colour == "pink")
YELLOW = frozenset(e.id for e in EVENTS.values() if e.colour == "yellow")
# Cards a player may add one by one to a basic game (rulebook, Information For Beginners).
EXTRA_CARDS = YELLOW | PINK

# Card sets by game level (Information For Beginners: the three learning hands, then the
# Basic game without yellow and pink, and the Advanced game with every card).
LEVEL_COLOURS = {
    "learning1": ("grey", "blue"),
    "learning2": ("grey", "blue", "red", "green"),
    "learning3": ("grey", "blue", "red", "green", "orange"),  # the 3rd hand is the Basic game
    "basic": ("grey", "blue", "red", "green", "orange"),
    "advanced": ("grey", "blue", "red", "green", "orange", "yellow", "pink"),
}


def build_deck(level: str, extra: tuple[str, ...] = ()) -> list[str]:
    """The card ids of the pack for a game level plus extra yellow/pink cards, in a fixed
    order (shuffle it with the match's rng)."""
    colours = LEVEL_COLOURS[level]
    cards = list(COUNTRIES)
    for event in EVENTS.values():
        if event.colour in colours or event.id in extra:
            cards.extend([event.id] * event.count)
    return cards


def extra_cards(options: dict[str, Any]) -> tuple[str, ...]:
    """The yellow/pink cards added one by one to a smaller game (option ``extra_cards``)."""
    return parse_extra(options.get("extra_cards", ""))


def parse_extra(text: str) -> tuple[str, ...]:
    """The ``extra_cards`` option: comma-separated yellow/pink card ids; ValueError if unknown."""
    names = tuple(sorted({part.strip() for part in text.split(",") if part.strip()}))
    unknown = [n for n in names if n not in EXTRA_CARDS]
    if unknown:
        raise ValueError(f"extra_cards: {unknown} are not yellow or pink cards; known: {sorted(EXTRA_CARDS)}")
    return names


def points(card: str) -> int:
    """Camera points of a country card."""
    return COUNTRIES[card].points


def continent(card: str) -> str:
    """Continent of a country card."""
    return COUNTRIES[card].continent

