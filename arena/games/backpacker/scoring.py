"""Scoring a trip when a player goes home (backpacker 7, 9.1, 9.6 Video Camera).

A trip is the list of countries on a played pile, bottom first; each entry is a dict
``{"country": id, "bonuses": [ids], "boost": n}`` where ``boost`` counts the cards of that
entry (the country and its bonuses) placed after a Video Camera on the same pile.
"""

from __future__ import annotations

from typing import Any

from .deck import COUNTRIES

FIVE_CONTINENT_BONUS = 200  # backpacker 6 rule 13, 7.6
CAMERA_BONUS = 20  # backpacker 9.6 Video Camera: 20 extra points per card played after it


def continents(trip: list[dict[str, Any]]) -> set[str]:
    """Continents photographed on a trip."""
    return {COUNTRIES[e["country"]].continent for e in trip}


def score_trip(trip: list[dict[str, Any]], bad_advice: bool) -> tuple[int, list[str]]:
    """Points for going home with ``trip`` and the reasons, one line per scoring item.

    backpacker 7.4: with Bad Advice on the pile the top country and its bonuses do not
    score and do not count towards the 5 continents. 9.1: a bonus scores its country's
    points. 7.6: 200 for 5 different continents, Antarctica counting as one (backpacker 4)."""
    counted = trip[:-1] if bad_advice and trip else trip
    total = 0
    reasons: list[str] = []
    if bad_advice and trip:
        reasons.append(f"{trip[-1]['country']} 0 (bad advice)")
    for entry in counted:
        country = COUNTRIES[entry["country"]]
        total += country.points
        reasons.append(f"{country.id} {country.points}")
        for bonus in entry["bonuses"]:
            total += country.points
            reasons.append(f"{bonus} on {country.id} {country.points}")
        if entry["boost"]:
            extra = CAMERA_BONUS * entry["boost"]
            total += extra
            reasons.append(f"video_camera x{entry['boost']} {extra}")
    if len(continents(counted)) >= 5:
        total += FIVE_CONTINENT_BONUS
        reasons.append(f"five continents {FIVE_CONTINENT_BONUS}")
    return total, reasons
