"""The game's printed data, loaded once from the JSON files in ``data/``.

The rulebook lost its map, destination cards and journey texts; the files hold the
reconstruction of DATA.md section 2 so that the published data can replace it without code
changes. Everything here is immutable module data, never part of a state.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_DIR = Path(__file__).parent / "data"


def _load(name: str) -> dict[str, Any]:
    with open(_DIR / name, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


_MAP = _load("map.json")
_DESTINATIONS = _load("destinations.json")
_JOURNEYS = _load("journeys.json")
COMPONENTS = _load("components.json")

# ----- the map --------------------------------------------------------------------------
REGIONS: tuple[str, ...] = tuple(_MAP["regions"])
LOCATIONS: tuple[str, ...] = tuple(loc["id"] for loc in _MAP["locations"])
LOCATION_INDEX: dict[str, int] = {loc: i for i, loc in enumerate(LOCATIONS)}
LOCATION_NAME: dict[str, str] = {loc["id"]: loc["name"] for loc in _MAP["locations"]}
REGION_OF: dict[str, str] = {loc["id"]: loc["region"] for loc in _MAP["locations"]}
AIRPORTS: tuple[str, ...] = tuple(loc["id"] for loc in _MAP["locations"] if loc["kind"] == "airport")
# "3+" / "4+": no cube is placed there with fewer players (trekking setup 2).
MIN_PLAYERS_FOR_CUBE: dict[str, int] = {
    loc["id"]: int(loc["mark"].rstrip("+")) if loc["mark"] else 2 for loc in _MAP["locations"]
}
CONNECTIONS: tuple[tuple[str, str], ...] = tuple((a, b) for a, b in _MAP["connections"])
REGION_LOCATIONS: dict[str, tuple[str, ...]] = {
    region: tuple(loc for loc in LOCATIONS if REGION_OF[loc] == region) for region in REGIONS
}

# ----- destination cards ------------------------------------------------------------------
DESTINATION_ICONS: dict[str, tuple[str, ...]] = {
    d["id"]: tuple(sorted(d["icons"])) for d in _DESTINATIONS["destinations"]
}
DESTINATION_VP: dict[str, int] = {d["id"]: int(d["vp"]) for d in _DESTINATIONS["destinations"]}
DESTINATIONS: tuple[str, ...] = tuple(d["id"] for d in _DESTINATIONS["destinations"])

# ----- journey cards ----------------------------------------------------------------------
JOURNEY_ACTIONS: dict[str, tuple[dict[str, Any], ...]] = {
    j["id"]: tuple(j["actions"]) for j in _JOURNEYS["journeys"]
}
JOURNEY_NAME: dict[str, str] = {j["id"]: j["name"] for j in _JOURNEYS["journeys"]}
JOURNEY_DECK: dict[str, tuple[str, ...]] = {
    deck: tuple(j["id"] for j in _JOURNEYS["journeys"] if j["deck"] == deck) for deck in ("A", "B")
}
FIRST_GAME_JOURNEYS: tuple[str, str] = (_JOURNEYS["first_game"]["A"], _JOURNEYS["first_game"]["B"])

# ----- components ------------------------------------------------------------------------
ICONS: dict[str, str] = dict(COMPONENTS["icons"])
COLOURS: tuple[str, ...] = tuple(COMPONENTS["cube_colours"])
SINGLE_SLOTS: int = COMPONENTS["suitcase_single_slots"]
SET_VP: tuple[int, ...] = tuple(COMPONENTS["suitcase_set_vp"])
TILE_MINIMUM: int = COMPONENTS["most_souvenirs_minimum"]
BONUS_TOKENS: tuple[int, ...] = tuple(COMPONENTS["region_bonus_tokens"])
VP5_TOKENS: int = COMPONENTS["vp_tokens"]["5"]
VP3_TOKENS: int = COMPONENTS["vp_tokens"]["3"]
HAND_SIZE: int = COMPONENTS["hand_size"]
FACE_UP: int = COMPONENTS["face_up_trek"]
ROW_SIZE: int = COMPONENTS["destination_row"]
END_BONUSES: int = COMPONENTS["end_region_bonuses"]
END_DESTINATIONS: int = COMPONENTS["end_destinations"]
TREK_DECK: tuple[str, ...] = tuple(
    f"{number}{icon}"
    for icon in ICONS
    for number, copies in COMPONENTS["trek_numbers"].items()
    for _ in range(copies)
)


def tile_vp(colour: str, num_players: int) -> int:
    """A Most Souvenirs tile's value on the side for this player count (setup 3)."""
    return _TILE_VP[colour, num_players == 2]


_TILE_VP: dict[tuple[str, bool], int] = {
    (colour, two): int(tile["vp_2p"] if two else tile["vp"])
    for colour, tile in COMPONENTS["most_souvenirs"].items() for two in (False, True)
}


def cubes_in_bag(num_players: int) -> list[str]:
    """The souvenir cubes drawn onto the map (setup 2: some are returned by player count)."""
    returned = COMPONENTS["cubes_returned"][str(num_players)]
    per = COMPONENTS["cubes_per_colour"]
    return [colour for colour in COLOURS for _ in range(per - returned[colour])]
