"""The heuristic house bot: plan a route to an affordable tour, grab must-see bonuses and
souvenir cubes on the way.

It sees only its observation and the legal action ids, plus the printed (public) map and
cards from ``data/``. The plan, in the rulebook's spirit ("visit places shown on
Destination cards and then Take a Tour"):

1. Target: the face-up destination worth most (card VP + must-see token) for the fewest
   connections away and icons still missing from the hand.
2. Move: land where a tour is affordable right away; otherwise on a cube that helps a
   souvenir set, a Most Souvenirs tile or a region bonus, as close to the target as possible.
3. Pay with the cards whose icons the target does not need.
4. Action: tour when possible; else draw the face-up cards with the missing icons (or the
   deck); spend a spare pair on Exchange Rate (three cards for two).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..base import HouseBot
from . import trek
from .data import (
    AIRPORTS,
    COLOURS,
    DESTINATION_ICONS,
    DESTINATION_VP,
    JOURNEY_ACTIONS,
    LOCATION_INDEX,
    REGION_LOCATIONS,
    REGION_OF,
    SET_VP,
    SINGLE_SLOTS,
)
from .routes import DISTANCE

# Weights found by playing against the random bot; see tests/games/test_trekking_the_world_bot.py
STEP_COST = 2.0  # VP a connection of distance to a target is worth
MISSING_ICON_COST = 4.0  # VP an icon still missing from the hand is worth
CUBE_VALUE = 2.0


def _dist(a: str, b: str) -> int:
    return DISTANCE[LOCATION_INDEX[a]][LOCATION_INDEX[b]]


# icons each destination needs, as counts
_NEED: dict[str, dict[str, int]] = {d: dict(Counter(icons)) for d, icons in DESTINATION_ICONS.items()}


def _icons(cards: list[str] | tuple[str, ...]) -> dict[str, int]:
    out: dict[str, int] = {}
    for card in cards:
        out[card[1]] = out.get(card[1], 0) + 1
    return out


def _missing(have: dict[str, int], dest: str) -> int:
    """Icons of ``dest`` the hand (icon counts ``have``) cannot pay."""
    return sum(max(0, k - have.get(ic, 0)) for ic, k in _NEED[dest].items())


class TrekkingTheWorldHeuristic(HouseBot):
    """Route planning toward affordable tours (see the module docstring)."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        self.obs = observation
        self.here: str = observation["positions"][self.seat]
        self.hand: list[str] = observation["hand"]
        self.have = _icons(self.hand)
        self.rewards = self._rewards()
        self.target = self._target(self.have, self.here)
        self.need = _NEED[self.target] if self.target else {}
        self.pays: dict[int, tuple[str, ...] | None] = {}
        best = max(legal_actions, key=lambda a: (self._score(a), a))
        return best

    # ----- planning -------------------------------------------------------------------------
    def _rewards(self) -> dict[str, int]:
        row = self.obs["destination_row"]
        return {d: DESTINATION_VP[d] + self.obs["must_see"][i] for i, d in enumerate(row)}

    def _target(self, have: dict[str, int], here: str | None) -> str | None:
        if here is None:
            return None
        best, best_value = None, -1e9
        for dest, value in self.rewards.items():
            if dest in self.obs["positions"] and dest != here:
                value -= 3  # someone stands there: it may be toured first
            score = value - STEP_COST * _dist(here, dest) - MISSING_ICON_COST * _missing(have, dest)
            if score > best_value:
                best, best_value = dest, score
        return best

    def _keep_value(self, cards: list[str] | tuple[str, ...]) -> float:
        """How much losing ``cards`` from the hand hurts: icons the target needs hurt most."""
        need = self.need
        have = self.have
        loss = 0.0
        for ic, k in _icons(cards).items():
            spare = max(0, have.get(ic, 0) - need.get(ic, 0))
            loss += 3.0 * max(0, k - spare)
        return loss + 0.6 * len(cards) + 0.05 * sum(trek.number(c) for c in cards)

    def _cube_value(self, location: str) -> float:
        colour = self.obs["cubes"].get(location)
        if colour is None:
            return 0.0
        case = self.obs["suitcases"][self.seat]
        value = CUBE_VALUE
        sets = min(min(case[c], SINGLE_SLOTS) for c in COLOURS)
        if case[colour] < SINGLE_SLOTS and case[colour] == sets:
            value += (SET_VP[sets + 1] - SET_VP[sets]) / 2  # completes progress toward a set
        holder = self.obs["tiles"][colour]
        if holder != self.seat:
            best = case[colour] + 1
            if best >= 2 and (holder is None or best > self.obs["suitcases"][holder][colour]):
                value += self.obs["tile_vp"][colour]
        region = REGION_OF[location]
        if region in self.obs["region_bonus_left"]:
            left = sum(1 for loc in REGION_LOCATIONS[region] if loc in self.obs["cubes"])
            if left == 1:
                value += 4.0
        return value

    def _place_value(self, location: str, have: dict[str, int]) -> float:
        """Standing on ``location`` holding icons ``have``: a tour ready, a cube, the target."""
        value = self._cube_value(location)
        rewards = self.rewards
        if location in rewards and _missing(have, location) == 0:
            value += rewards[location] + 5
        target = self._target(have, location)
        if target is not None:
            value -= (
                STEP_COST * _dist(location, target)
                + MISSING_ICON_COST * _missing(have, target)
                - rewards[target] * 0.1
            )
        return value

    def _cheapest_pay(self, length: int) -> tuple[str, ...] | None:
        if length not in self.pays:
            ways = trek.payments(self.hand, length.__eq__) if length > 0 else []
            self.pays[length] = min(ways, key=lambda w: (self._keep_value(w), w)) if ways else None
        return self.pays[length]

    # ----- scoring each action ---------------------------------------------------------------
    def _score(self, action: str) -> float:
        verb, _, rest = action.partition(" ")
        if verb == "start":
            return -min(_dist(rest, d) for d in self.obs["destination_row"]) if self.obs[
                "destination_row"
            ] else 0.0
        if verb == "move":
            pay = self._cheapest_pay(_dist(self.here, rest))
            after = dict(self.have)
            if pay is not None:
                for card in pay:
                    after[card[1]] -= 1
                cost = self._keep_value(pay)
            else:
                cost = 3.0
            return self._place_value(rest, after) - cost
        if verb == "fly":
            return self._place_value(rest, self.have) + 0.5
        if verb == "no_move":
            return self._place_value(self.here, self.have)
        if verb == "pay":
            return -self._keep_value(rest.split(","))
        if verb == "tour":
            dest, _, cards = rest.partition(" cards=")
            return 100.0 - self._keep_value(cards.split(","))
        if verb == "draw":
            return self._draw_value(rest)
        if verb == "journey":
            return self._journey_value(rest)
        if verb == "pass":
            return 0.0
        return self._step_value(verb, rest)

    def _draw_value(self, what: str) -> float:
        if what == "deck":
            return 1.0
        ic = trek.icon(what)
        value = 0.5 + 0.1 * trek.number(what)
        if self.need.get(ic, 0) > self.have.get(ic, 0):
            value += 2.0
        return value

    def _journey_value(self, rest: str) -> float:
        name, _, cards = rest.partition(" cards=")
        pay = cards.split(",")
        loss = self._keep_value(pay)
        gain = 0.0
        for step in JOURNEY_ACTIONS[name]:
            kind = step["kind"]
            if kind == "draw":
                gain += 1.2 * step["count"]
            elif kind == "gain_vp" and self.obs["vp_stacks"]["3"]:
                gain += 3.0
            elif kind == "tour_less":
                gain += 2.0 if self.here in self.obs["destination_row"] else 0.0
            elif kind == "region_cube":
                region = REGION_OF[self.here]
                gain += max(
                    (self._cube_value(loc) for loc in REGION_LOCATIONS[region] if loc in self.obs["cubes"]),
                    default=0.0,
                )
        # drawing two is worth about 2; a journey must beat it
        return gain - loss + 0.2

    def _step_value(self, verb: str, rest: str) -> float:
        if verb == "skip":
            return 0.0
        if verb in ("draw_deck", "gain_vp"):
            return 5.0
        if verb == "goto":
            return self._place_value(rest, self.have) - self._place_value(self.here, self.have)
        if verb == "take_cube":
            return self._cube_value(rest)
        if verb == "swap":
            there = self.obs["positions"][int(rest)]
            return self._place_value(there, self.have) - self._place_value(self.here, self.have)
        if verb == "recolour":
            old, new = rest.split()
            case = dict(self.obs["suitcases"][self.seat])
            before = min(min(case[c], SINGLE_SLOTS) for c in COLOURS)
            case[old] -= 1
            case[new] += 1
            after = min(min(case[c], SINGLE_SLOTS) for c in COLOURS)
            return SET_VP[after] - SET_VP[before] - 0.5
        return 0.0


__all__ = ["AIRPORTS", "TrekkingTheWorldHeuristic"]
