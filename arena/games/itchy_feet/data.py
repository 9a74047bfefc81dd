"""The Itchy Feet card lists, loaded once from ``cards.json`` inside the package.

The lists are a reconstruction (rules/DATA.md 1.4); the published ones can replace the JSON
file without code changes as long as the ids stay the keys. Everything here is immutable
module data so that states stay small and cheap to clone.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

_RAW: dict[str, Any] = json.loads(
    resources.files(__package__).joinpath("cards.json").read_text(encoding="utf-8")
)

ITEMS: tuple[str, ...] = tuple(_RAW["items"])
ITEM_COPIES: dict[str, int] = {k: v["copies"] for k, v in _RAW["items"].items()}
COUNTRIES: tuple[str, ...] = tuple(_RAW["countries"])
REQUIRES: dict[str, tuple[str, ...]] = {k: tuple(v["items"]) for k, v in _RAW["countries"].items()}
PASSPORTS: tuple[str, ...] = tuple(_RAW["passports"])
EVENTS: tuple[str, ...] = tuple(_RAW["events"])
SPECIALS: tuple[str, ...] = tuple(_RAW["specials"])
FORBIDDEN: tuple[str, ...] = tuple(_RAW["forbidden"])
POSTCARDS: tuple[str, ...] = tuple(_RAW["postcards"])
CHARACTERS: tuple[str, ...] = tuple(_RAW["characters"])

NAMES: dict[str, str] = {
    card: info["name"]
    for section in ("items", "countries", "passports", "events", "specials", "forbidden",
                    "postcards", "characters")
    for card, info in _RAW[section].items()
}

# What a proposer can name in a trade offer: the card's kind. Items, specials and forbidden
# items are their own kind; every passport is a "passport" and every postcard a "postcard".
KIND: dict[str, str] = {c: c for c in (*ITEMS, *SPECIALS, *FORBIDDEN, *EVENTS)}
KIND.update({c: "passport" for c in PASSPORTS})
KIND.update({c: "postcard" for c in POSTCARDS})
# How many cards of each kind the game has: a trade never asks for more than that.
KIND_COUNT: dict[str, int] = {
    kind: sum(ITEM_COPIES.get(card, 1) for card, k in KIND.items() if k == kind)
    for kind in set(KIND.values())
}

ITEM_SET = frozenset(ITEMS)
PASSPORT_SET = frozenset(PASSPORTS)
FORBIDDEN_SET = frozenset(FORBIDDEN)
POSTCARD_SET = frozenset(POSTCARDS)
EVENT_SET = frozenset(EVENTS)

_EARTH_KM = 6371.0


def _where(card: str) -> tuple[float, float]:
    section = _RAW["countries"] if card in _RAW["countries"] else _RAW["passports"]
    return section[card]["lat"], section[card]["lon"]


def distance_km(a: str, b: str) -> float:
    """Great-circle distance between two countries (or passports' countries), haversine."""
    lat1, lon1 = (math.radians(x) for x in _where(a))
    lat2, lon2 = (math.radians(x) for x in _where(b))
    h = (math.sin((lat2 - lat1) / 2) ** 2
         + math.cos(lat1) * math.cos(lat2) * math.sin((lon2 - lon1) / 2) ** 2)
    return 2 * _EARTH_KM * math.asin(math.sqrt(h))


def item_deck() -> list[str]:
    """The 32 item cards (4 copies of each of the 8 types), unshuffled."""
    return [item for item in ITEMS for _ in range(ITEM_COPIES[item])]
