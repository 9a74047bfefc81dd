"""The heuristic house bot for Card Trip Europe.

It sees only its observation and legal actions. For every pair it could play it tries every
placement order (location or campsite side), scores the resulting trip with the rulebook's
scoring plus an estimate of what the rest of the trip will add, and keeps the best. The
estimate follows the rulebook's own advice: "Alternate your locations and take plenty of time
to rest at the campsite" (campsites multiply attractions), and it weighs the cards it passes
on ("be especially careful not to give your opponents any good locations").
"""

from __future__ import annotations

from functools import cache
from itertools import permutations
from typing import Any

from arena.games import HouseBot

from .locations import (
    ATTRACTION,
    BONUS_CARDS,
    CAMPSITE,
    CITY,
    ENERGY,
    EVENT,
    LOCATION_TYPES,
    NUMBERS,
    PARK,
    TYPE,
    WEEK_ENERGY,
)
from .placement import can_camp, can_place, week_energy
from .scoring import NEGATIVE, PARK_POINTS, POSITIVE, WEEK_SET_POINTS, city_points, type_counts, weeks
from .state import TRIP_LENGTH

# Share of the cards still to place expected to become attractions / campsites.
FUTURE_ATTRACTIONS = 0.2
FUTURE_CAMPSITES = 0.25
# Worth of starting a fresh week (its future set points), for a trip ending on a campsite.
FRESH_WEEK = 3.0
# Weight of the best card the next player could take from the cards passed on.
DENIAL = 0.25
_ALL_TYPES = frozenset(LOCATION_TYPES)


def _entry(item: dict[str, Any]) -> int:
    return -item["card"] if item["type"] == CAMPSITE else item["card"]


def _park_value(parks: float) -> float:
    """Park points, interpolated for a projected (fractional) park count."""
    whole = min(int(parks), len(PARK_POINTS) - 1)
    if whole >= len(PARK_POINTS) - 1:
        return PARK_POINTS[-1]
    return PARK_POINTS[whole] + (parks - whole) * (PARK_POINTS[whole + 1] - PARK_POINTS[whole])


@cache
def _extension_chance(last: int, left: int, missing: frozenset[str]) -> float:
    """Share of all location cards that could still extend the open week with a new type:
    numbered above ``last``, of a ``missing`` type, costing at most ``left`` energy."""
    fits = sum(1 for n in NUMBERS if n > last and TYPE[n] in missing and ENERGY[n] <= left)
    return fits / len(NUMBERS)


def trip_value(trip: list[int], others: list[dict[str, int]], sides: list[str]) -> float:
    """The trip's points so far plus an estimate of what the cards still to come will add."""
    to_come = TRIP_LENGTH - len(trip)
    counts = type_counts(trip)
    value = 0.0
    all_weeks = weeks(trip)
    for week in all_weeks[:-1]:
        value += WEEK_SET_POINTS.get(len({TYPE[n] for n in week}), 0)
    open_week = all_weeks[-1] if trip and trip[-1] > 0 else []
    have = {TYPE[n] for n in open_week}
    value += WEEK_SET_POINTS.get(len(have), 0)
    if to_come:
        if not open_week:
            value += FRESH_WEEK
        elif len(have) < 4:
            gain = WEEK_SET_POINTS.get(len(have) + 1, 0) - WEEK_SET_POINTS.get(len(have), 0)
            left = WEEK_ENERGY - week_energy(trip)
            chance = _extension_chance(trip[-1], left, _ALL_TYPES - have)
            value += gain * min(1.0, chance * to_come)
        # A city or an attraction at the end of the trip may still get its neighbour.
        if trip and trip[-1] > 0 and TYPE[trip[-1]] in (CITY, ATTRACTION):
            value += 1.0
    value += city_points(trip)
    value += sum(ENERGY[n] for n in trip if n > 0 and TYPE[n] == EVENT)
    value += _park_value(counts[PARK] + 0.15 * to_come)
    value += (counts[ATTRACTION] + FUTURE_ATTRACTIONS * to_come) * (
        counts[CAMPSITE] + FUTURE_CAMPSITES * to_come
    )
    for card, side in zip(BONUS_CARDS, sides, strict=True):
        mine = counts[card.counts]
        theirs = [o[card.counts] for o in others]
        if side == POSITIVE:
            if mine > max(theirs):
                value += card.most
            elif mine == max(theirs):
                value += card.most_tie
        elif side == NEGATIVE:
            if mine < min(theirs):
                value += card.fewest
            elif mine == min(theirs):
                value += card.fewest_tie
    return value


def placements(trip: list[int], cards: list[int]) -> list[list[int]]:
    """Every legal way to place ``cards`` in some order: the trip entries added."""
    out: list[list[int]] = []
    for order in permutations(cards):
        _extend(trip, list(order), [], out)
    return out


def _extend(trip: list[int], cards: list[int], added: list[int], out: list[list[int]]) -> None:
    if not cards:
        out.append(added)
        return
    number, rest = cards[0], cards[1:]
    if can_place(trip, number):
        _extend([*trip, number], rest, [*added, number], out)
    if can_camp(trip):
        _extend([*trip, -number], rest, [*added, -number], out)


class CardTripEuropeHeuristic(HouseBot):
    """Greedy drafter: best pair and placement for its own trip, minus what it passes on."""

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        if len(legal_actions) == 1:
            return legal_actions[0]
        seat = observation["seat"]
        trip = [_entry(e) for e in observation["trips"][seat]]
        others = [c for t, c in enumerate(observation["type_counts"]) if t != seat]
        sides = [b["side"] for b in observation["bonus_cards"]]
        if observation["phase"] == "place":
            return self._place(trip, observation["revealed"][seat], others, sides, legal_actions)
        return self._choose(observation, trip, others, sides, legal_actions)

    def _best(
        self, trip: list[int], cards: list[int], others: list[dict[str, int]], sides: list[str]
    ) -> tuple[float, list[int]]:
        best = -1e9, [0]
        for added in placements(trip, cards):
            score = trip_value(trip + added, others, sides)
            if score > best[0]:
                best = score, added
        return best

    def _place(
        self,
        trip: list[int],
        revealed: list[int],
        others: list[dict[str, int]],
        sides: list[str],
        legal: list[str],
    ) -> str:
        _, added = self._best(trip, revealed, others, sides)
        first = added[0]
        action = f"place {first}" if first > 0 else f"camp {-first}"
        return action if action in legal else legal[0]

    def _choose(
        self,
        observation: dict[str, Any],
        trip: list[int],
        others: list[dict[str, int]],
        sides: list[str],
        legal: list[str],
    ) -> str:
        seat = observation["seat"]
        n = observation["num_players"]
        left = (seat + 1) % n
        left_trip = [_entry(e) for e in observation["trips"][left]]
        left_others = [c for t, c in enumerate(observation["type_counts"]) if t != left]
        hand = observation["hand"]
        gifts = {c: self._gift(left_trip, c, left_others, sides) for c in hand} if DENIAL else {}
        best_action, best_score = legal[0], -1e9
        for action in legal:
            pair = [int(x) for x in action.split()[1:]]
            score, _ = self._best(trip, pair, others, sides)
            rest = [c for c in hand if c not in pair]
            if DENIAL and len(rest) >= 2:
                score -= DENIAL * max(gifts[c] for c in rest)
            score += self.random.random() * 1e-6
            if score > best_score:
                best_action, best_score = action, score
        return best_action

    def _gift(self, trip: list[int], number: int, others: list[dict[str, int]], sides: list[str]) -> float:
        """How much the next player would gain from card ``number`` if we passed it on."""
        base = trip_value(trip, others, sides)
        gain = 0.0
        for added in placements(trip, [number]):
            gain = max(gain, trip_value(trip + added, others, sides) - base)
        return gain
