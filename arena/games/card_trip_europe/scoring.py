"""Final scoring (card-trip-europe "Scoring" and "Bonus Cards").

Trips are lists of card numbers, a campsite stored as the negative number (see
``placement``)."""

from __future__ import annotations

from dataclasses import dataclass

from .locations import ATTRACTION, BONUS_CARDS, CAMPSITE, CITY, ENERGY, EVENT, PARK, TYPE, WEEK_ENERGY
from .placement import week_energy

# card-trip-europe "National parks": 1, 2, 3, 4, 5+ parks.
PARK_POINTS = (0, 1, 3, 6, 10, 15)
# card-trip-europe "Scores per Week": a set of 3 / 4 different types.
WEEK_SET_POINTS = {3: 5, 4: 8}
CITY_POINTS_PER_ATTRACTION = 4

POSITIVE = "positive"
NEGATIVE = "negative"


def weeks(trip: list[int]) -> list[list[int]]:
    """The trip's weeks: the locations of each sequence ending with a campsite, and the
    open sequence after the last campsite (the rulebook's example scores it as a week)."""
    out: list[list[int]] = [[]]
    for entry in trip:
        if entry < 0:
            out.append([])
        else:
            out[-1].append(entry)
    if not out[-1] and len(out) > 1:
        out.pop()  # a trip ending on a campsite has no open week
    return out


def week_points(week: list[int]) -> int:
    """5 points for 3 different location types in the week, 8 for all 4."""
    return WEEK_SET_POINTS.get(len({TYPE[n] for n in week}), 0)


def type_counts(trip: list[int]) -> dict[str, int]:
    """How many cities, parks, attractions, events and campsites the trip holds."""
    counts = {CITY: 0, PARK: 0, ATTRACTION: 0, EVENT: 0, CAMPSITE: 0}
    for entry in trip:
        counts[CAMPSITE if entry < 0 else TYPE[entry]] += 1
    return counts


def city_points(trip: list[int]) -> int:
    """4 points per attraction next to a city, on either side (a city can score twice)."""
    points = 0
    last = len(trip) - 1
    for i, entry in enumerate(trip):
        if entry > 0 and TYPE[entry] == CITY:
            if i > 0 and trip[i - 1] > 0 and TYPE[trip[i - 1]] == ATTRACTION:
                points += CITY_POINTS_PER_ATTRACTION
            if i < last and trip[i + 1] > 0 and TYPE[trip[i + 1]] == ATTRACTION:
                points += CITY_POINTS_PER_ATTRACTION
    return points


def breakdown(trip: list[int]) -> dict[str, int]:
    """The trip's points by scoring rule (bonus cards excluded: they compare players)."""
    counts = type_counts(trip)
    parts = {
        "weeks": sum(week_points(w) for w in weeks(trip)),
        "cities": city_points(trip),
        "parks": PARK_POINTS[min(counts[PARK], len(PARK_POINTS) - 1)],
        # "Each attraction ... is worth as many points as the number of campsites".
        "attractions": counts[ATTRACTION] * counts[CAMPSITE],
        # "An event card scores points equal to the energy cost of that event".
        "events": sum(ENERGY[n] for n in trip if n > 0 and TYPE[n] == EVENT),
    }
    parts["total"] = sum(parts.values())
    return parts


def trip_points(trip: list[int]) -> int:
    """The trip's points without the bonus cards."""
    return breakdown(trip)["total"]


def bonus_points(trips: list[list[int]], sides: list[str]) -> list[list[int]]:
    """Points each bonus card gives each seat: ``result[card_index][seat]``.

    Positive side: 6 to the single player with the most cards of the type, 3 to each tied
    player. Negative side: -4 to the single player with the fewest, -2 to each tied player."""
    return bonus_from_counts([type_counts(trip) for trip in trips], sides)


def bonus_from_counts(counts: list[dict[str, int]], sides: list[str]) -> list[list[int]]:
    """``bonus_points`` from each seat's ``type_counts``."""
    out = []
    for card, side in zip(BONUS_CARDS, sides, strict=True):
        kind = card.counts
        have = [c[kind] for c in counts]
        if side == POSITIVE:
            target = max(have)
            each = card.most if have.count(target) == 1 else card.most_tie
        else:
            target = min(have)
            each = card.fewest if have.count(target) == 1 else card.fewest_tie
        out.append([each if h == target else 0 for h in have])
    return out


def total_points(trips: list[list[int]], sides: list[str]) -> list[int]:
    """Each seat's points: its trip plus its bonus cards."""
    bonus = bonus_points(trips, sides)
    return [trip_points(trip) + sum(b[seat] for b in bonus) for seat, trip in enumerate(trips)]


@dataclass(frozen=True)
class Scored:
    """What a seat's observation tells of one trip, worked out once per trip (``scored``).
    Shared between calls: hand out copies, never these."""

    entries: tuple[dict[str, object], ...]  # each card as the observation shows it
    week_energy_left: int
    counts: dict[str, int]  # type_counts
    points: dict[str, int]  # breakdown
    bonus_counts: tuple[int, ...]  # the count each bonus card compares, in BONUS_CARDS order


_SCORED: dict[tuple[int, ...], Scored] = {}
SCORED_KEPT = 65_536  # trips whose scoring is kept; a match shows a few dozen


def scored(trip: tuple[int, ...]) -> Scored:
    """The scoring of ``trip`` (a trip as a tuple), made once: an observation shows every
    trip again at each decision, and a trip changes only when its owner places a card."""
    found = _SCORED.get(trip)
    if found is None:
        listed = list(trip)
        entries = tuple({"card": -e, "type": CAMPSITE, "energy": 0} if e < 0
                        else {"card": e, "type": TYPE[e], "energy": ENERGY[e]} for e in trip)
        counts = type_counts(listed)
        found = Scored(entries, WEEK_ENERGY - week_energy(listed), counts, breakdown(listed),
                       tuple(counts[card.counts] for card in BONUS_CARDS))
        if len(_SCORED) >= SCORED_KEPT:
            _SCORED.clear()  # a bound on memory; the trips of the matches at hand come back soon
        _SCORED[trip] = found
    return found


_BONUS: dict[tuple[tuple[tuple[int, ...], ...], tuple[str, ...]], list[list[int]]] = {}


def scored_bonus(scores: list[Scored], sides: tuple[str, ...]) -> list[list[int]]:
    """``bonus_points`` of the trips of ``scores``, made once per set of counts and sides:
    a card's points follow from the counts it compares alone. Shared: hand out copies."""
    key = (tuple(s.bonus_counts for s in scores), sides)
    found = _BONUS.get(key)
    if found is None:
        found = bonus_from_counts([s.counts for s in scores], list(sides))
        if len(_BONUS) >= SCORED_KEPT:
            _BONUS.clear()
        _BONUS[key] = found
    return found
