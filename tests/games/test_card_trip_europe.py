"""Scenario tests for Card Trip Europe, each citing the passage of
``rules/card-trip-europe.txt`` it checks; the rulebook's own examples come first.

Positions are built with ``new_state`` and then by setting attributes directly. Trips are
lists of card numbers, a campsite written as the negative number. Cards are picked from the
data file by their properties (type, energy), so these tests hold for the published card list
as well as for the reconstruction."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from arena import games
from arena.games import BadOptions, IllegalAction
from arena.games.card_trip_europe.locations import (
    ATTRACTION,
    CITY,
    ENERGY,
    EVENT,
    LOCATIONS,
    NUMBERS,
    PARK,
    TYPE,
)
from arena.games.card_trip_europe.placement import can_camp, can_place
from arena.games.card_trip_europe.scoring import bonus_points, breakdown, weeks
from arena.games.card_trip_europe.state import CardTripState

GAME = games.get("card_trip_europe")


def new(num_players: int = 2, seed: int = 1, **options: Any) -> CardTripState:
    state = GAME.new_state(num_players, seed, options)
    assert isinstance(state, CardTripState)
    return state


def pick(kind: str, energy: int | None = None, above: int = 0, avoid: set[int] | None = None) -> int:
    """The lowest card of type ``kind`` (and ``energy``) numbered above ``above``."""
    for n in NUMBERS:
        if n > above and TYPE[n] == kind and (energy is None or ENERGY[n] == energy):
            if not avoid or n not in avoid:
                return n
    raise LookupError(f"no {kind} with energy {energy} above {above}")


def build_week(spec: list[tuple[str, int | None]], used: set[int]) -> list[int]:
    """Cards for one week, in increasing numbers, from (type, energy) wishes."""
    week: list[int] = []
    for kind, energy in spec:
        number = pick(kind, energy, week[-1] if week else 0, used)
        used.add(number)
        week.append(number)
    return week


def place_all(trip_plan: list[int]) -> list[int]:
    """Lay ``trip_plan`` out card by card, checking every placement is legal."""
    trip: list[int] = []
    for entry in trip_plan:
        if entry < 0:
            assert can_camp(trip), f"campsite not allowed after {trip}"
        else:
            assert can_place(trip, entry), f"#{entry} may not follow {trip}"
        trip.append(entry)
    return trip


# ----- the rulebook's examples ---------------------------------------------------------------


def scoring_example_trip() -> list[int]:
    """The "Final Score Example" trip: 4 weeks (5+5+0+8), events 2+1+2+1, four parks, two
    cities with one attraction beside each, three attractions and three campsites."""
    used: set[int] = set()
    week1 = build_week([(PARK, 1), (EVENT, 2), (ATTRACTION, 1)], used)
    week2 = build_week([(CITY, 1), (ATTRACTION, 1), (PARK, 1)], used)
    week3 = build_week([(EVENT, 1), (PARK, 1)], used)
    week4 = build_week([(EVENT, 2), (CITY, 1), (ATTRACTION, 1), (PARK, 1), (EVENT, 1)], used)
    # Any card may rest as a campsite; take ones not used above.
    camps = [-n for n in NUMBERS if n not in used][:3]
    plan = [*week1, camps[0], *week2, camps[1], *week3, camps[2], *week4]
    assert len(plan) == 16
    return place_all(plan)


def test_rulebook_final_score_example_is_51_points() -> None:
    # card-trip-europe "Final Score Example": "This card trip will score 51 points."
    trip = scoring_example_trip()
    assert [sum(1 for _ in w) for w in weeks(trip)] == [3, 3, 2, 5]
    parts = breakdown(trip)
    assert parts == {
        "weeks": 5 + 5 + 0 + 8,
        "events": 6,  # "4 events score 6 points (2+1+2+1)"
        "parks": 10,  # "four in total, so 10 points"
        "cities": 8,  # "2 cities with one adjacent attraction = 8 points (2x4)"
        "attractions": 9,  # "3 attractions and 3 campsites, so 9 points (3x3)"
        "total": 51,
    }


def test_rulebook_final_score_example_through_the_state() -> None:
    # The same trip in a finished two-player match: the scores add the bonus cards and the
    # campsite tie-break (hundredths) on top of the trip's 51 points.
    state = new(2)
    trip = scoring_example_trip()
    state.trips = [trip, list(trip)]
    state.hands = [[], []]
    state.phase = "over"
    assert state.is_terminal()
    # Equal trips: every positive bonus card is a tie, 3 points each, 5 cards.
    assert state.outcome().scores == [51 + 15 + 0.03, 51 + 15 + 0.03]
    assert state.outcome().ranks == [1, 1]


def test_rulebook_placement_example_linda_plays_40_then_camps_38() -> None:
    # card-trip-europe "Examples": "#38 can't be next to #22 (same type), but #40 can.
    # Therefore, she plays #40 first. Because #38 is lower, it can't follow and is used as
    # a campsite."
    assert TYPE[22] == TYPE[38] != TYPE[40]
    state = new(2)
    state.phase = "place"
    state.trips = [[22], []]
    state.revealed = [[38, 40], []]
    state.hands = [[], []]
    state._legal = {}
    assert state.legal_actions(0) == ["camp 38", "camp 40", "place 40"]
    state.apply(0, "place 40")
    assert state.legal_actions(0) == ["camp 38"]
    state.apply(0, "camp 38")
    assert state.trips[0] == [22, 40, -38]


# ----- placement rules -------------------------------------------------------------------------


def _low(kind: str, above: int = 0, energy: int | None = None) -> int:
    return pick(kind, energy, above)


def placement_cases() -> list[Any]:
    city = _low(CITY, above=30, energy=1)
    park_before = max(n for n in NUMBERS if n < city and TYPE[n] == PARK)
    park_after = _low(PARK, above=city, energy=1)
    city_after = _low(CITY, above=city)
    # A 4-star and a 3-star location fill a week's 7 energy.
    four = _low(ATTRACTION, energy=4)
    three = _low(EVENT, above=four, energy=3)
    one_more = next(n for n in NUMBERS if n > three and TYPE[n] != EVENT)
    three_after_four = next(n for n in NUMBERS if n > four and TYPE[n] != ATTRACTION and ENERGY[n] == 3)
    return [
        # "Each new card is placed to the right": the first card starts the first week.
        pytest.param([], city, True, id="first-card-free"),
        # "The number on your location card must be higher than that of the last location
        # card in the same week."
        pytest.param([city], park_after, True, id="higher-number"),
        # "Incorrect placement (Number): This card has a lower number than the previous card".
        pytest.param([city], park_before, False, id="lower-number"),
        # "The type of your location card must be different from the last location card".
        pytest.param([city], city_after, False, id="same-type"),
        # "Correct placement: The campsite indicates a new week. So you don't need to look at
        # the number, type, or energy of the previous location card(s)."
        pytest.param([city, -park_after], park_before, True, id="new-week-ignores-past"),
        pytest.param([four, three, -one_more], city, True, id="new-week-new-energy"),
        # "Incorrect placement (Energy): Placing this card brings the energy total to 8".
        pytest.param([four, three], one_more, False, id="energy-over-7"),
        # "You do not need to use all your energy", but you may use all 7.
        pytest.param([four], three_after_four, True, id="energy-exactly-7"),
    ]


@pytest.mark.parametrize(("trip", "number", "expected"), placement_cases())
def test_placement_rules(trip: list[int], number: int, expected: bool) -> None:
    # card-trip-europe "Placement Rules" and "Energy".
    assert can_place(trip, number) is expected


@pytest.mark.parametrize(
    ("trip", "expected"),
    [
        ([], True),  # any card may be placed as a campsite
        ([5], True),  # "you can place it as a campsite card to rest and start a new week"
        ([5, -6], False),  # "2 campsites cannot be adjacent to each other"
        ([5, -6, 7], True),
    ],
)
def test_campsite_rules(trip: list[int], expected: bool) -> None:
    # card-trip-europe "Placement Rules": a campsite completes the week; never two in a row.
    assert can_camp(trip) is expected


def test_campsite_is_legal_even_when_the_card_fits() -> None:
    # "If you cannot or do not want to place a location card, place ... the campsite side".
    state = new(2)
    first = _low(CITY, energy=1)
    second = _low(PARK, above=first, energy=1)
    state.phase, state.trips, state.revealed = "place", [[first], []], [[second], []]
    assert state.legal_actions(0) == [f"camp {second}", f"place {second}"]


def test_two_campsites_never_adjacent_in_play() -> None:
    # "Therefore, 2 campsites cannot be adjacent to each other": after a campsite both
    # revealed cards can only go location side up.
    state = new(2)
    state.phase, state.trips, state.revealed = "place", [[3, -5], []], [[60, 61], []]
    assert state.legal_actions(0) == ["place 60", "place 61"]


def test_week_energy_runs_out_so_the_card_must_camp() -> None:
    # "If you exceed the 7 energy limit by placing a card in that week, you may not play
    # that card. Instead, you can place it as a campsite card".
    a = _low(ATTRACTION, energy=4)
    e = _low(EVENT, above=a, energy=3)
    nxt = next(n for n in NUMBERS if n > e and TYPE[n] in (CITY, PARK))
    state = new(2)
    state.phase, state.trips, state.revealed = "place", [[a, e], []], [[nxt], []]
    assert state.legal_actions(0) == [f"camp {nxt}"]


# ----- scoring -------------------------------------------------------------------------------


def test_week_sets() -> None:
    # card-trip-europe "Scores per Week": 5 points for 3 different types, 8 for 4.
    used: set[int] = set()
    two = build_week([(CITY, None), (PARK, None)], used)
    three = build_week([(CITY, None), (PARK, None), (EVENT, 1)], used)
    four = build_week([(CITY, None), (PARK, None), (EVENT, 1), (ATTRACTION, None)], used)
    assert breakdown(two)["weeks"] == 0
    assert breakdown(three)["weeks"] == 5
    assert breakdown(four)["weeks"] == 8
    # Weeks are separated by campsites, each scored on its own.
    camp = next(n for n in NUMBERS if n not in used)
    assert breakdown([*three, -camp, *four])["weeks"] == 13


def test_repeated_types_in_a_week_count_once() -> None:
    # A week C P C holds 2 different types: no set.
    c1 = _low(CITY)
    p = _low(PARK, above=c1)
    c2 = _low(CITY, above=p)
    assert breakdown([c1, p, c2])["weeks"] == 0


def test_city_scores_4_per_adjacent_attraction_on_both_sides() -> None:
    # card-trip-europe "Cities": "1 City can score 4 points twice if it has an attraction on
    # both sides."
    a1 = _low(ATTRACTION)
    c = _low(CITY, above=a1)
    a2 = _low(ATTRACTION, above=c)
    assert breakdown([a1, c, a2])["cities"] == 8
    assert breakdown([a1, c])["cities"] == 4
    # A campsite is not an attraction, whatever its front shows.
    assert breakdown([c, -a2])["cities"] == 0


def test_two_rows_count_as_one_line() -> None:
    # card-trip-europe "TIP": "The last card of the top row and the first card of the bottom
    # row will then simply count as connected": the 8th and 9th cards are neighbours.
    events = [n for n in NUMBERS if TYPE[n] == EVENT]
    c = _low(CITY)
    a = _low(ATTRACTION, above=c)
    top_row = [events[0], -events[1], events[2], -events[3], events[4], -events[5], events[6], c]
    assert breakdown([*top_row, a])["cities"] == 4


@pytest.mark.parametrize(("parks", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 15)])
def test_national_parks(parks: int, points: int) -> None:
    # card-trip-europe "National parks": 1/3/6/10/15, "More than 5 parks do not earn extra".
    park_numbers = [n for n in NUMBERS if TYPE[n] == PARK][:parks]
    camps = [n for n in NUMBERS if TYPE[n] == CITY]
    trip: list[int] = []
    for park, camp in zip(park_numbers, camps, strict=False):
        trip += [park, -camp]  # one park per week
    assert breakdown(trip)["parks"] == points


def test_attractions_times_campsites() -> None:
    # card-trip-europe "Attractions": "If you have 2 campsites and 3 attractions, each
    # attraction is worth 2 points. So you get 6 points."
    attractions = [n for n in NUMBERS if TYPE[n] == ATTRACTION][:3]
    trip = [attractions[0], -1, attractions[1], -2, attractions[2]]
    assert breakdown(trip)["attractions"] == 6
    assert breakdown(attractions[:1])["attractions"] == 0


def test_events_score_their_energy() -> None:
    # card-trip-europe "Events": "An event card scores points equal to the energy cost".
    two = _low(EVENT, energy=2)
    assert breakdown([two])["events"] == 2
    assert breakdown([-two])["events"] == 0  # a campsite is not an event


def test_bonus_cards_positive_side() -> None:
    # card-trip-europe "Positive Points Side": 6 to the most; tied players 3 each.
    cities = [n for n in NUMBERS if TYPE[n] == CITY]
    trips = [[cities[0], -1, cities[1]], [cities[2]], [cities[3]]]
    city_card = bonus_points(trips, ["positive"] * 5)[0]
    assert city_card == [6, 0, 0]
    trips[1].extend([-2, cities[4]])
    assert bonus_points(trips, ["positive"] * 5)[0] == [3, 3, 0]


def test_bonus_cards_negative_side() -> None:
    # card-trip-europe "Negative Points Side": -4 to the fewest; tied players -2 each.
    parks = [n for n in NUMBERS if TYPE[n] == PARK]
    camps = [n for n in NUMBERS if TYPE[n] == EVENT]
    trips = [[parks[0], -camps[0], parks[1]], [parks[2]], [parks[3], -camps[1], parks[4]]]
    assert bonus_points(trips, ["negative"] * 5)[1] == [0, -4, 0]
    trips[0] = [parks[0]]
    assert bonus_points(trips, ["negative"] * 5)[1] == [-2, -2, 0]


def test_campsite_bonus_card() -> None:
    # DATA.md 4.2 (reconstruction): the fifth bonus card counts campsites.
    trips = [[1, -2, 3, -4], [5, -6, 7]]
    assert bonus_points(trips, ["positive"] * 5)[4] == [6, 0]
    assert bonus_points(trips, ["negative"] * 5)[4] == [0, -4]


def test_points_tie_goes_to_more_campsites() -> None:
    # card-trip-europe "End of the Game": "If there's a tie, the player with the most
    # campsites wins." Seat 0 has 2 one-star events and a campsite; seat 1 two four-star
    # events (a scoring-only line) and no campsite: 20 points each with the positive sides.
    ones = [n for n in NUMBERS if TYPE[n] == EVENT and ENERGY[n] == 1]
    fours = [n for n in NUMBERS if TYPE[n] == EVENT and ENERGY[n] == 4]
    state = new(2)
    state.trips = [[ones[0], -ones[1], ones[2]], fours[:2]]
    state.phase = "over"
    bonus = bonus_points(state.trips, state.bonus_sides)
    points = [breakdown(t)["total"] + sum(b[s] for b in bonus) for s, t in enumerate(state.trips)]
    assert points == [20, 20]
    assert state.outcome().ranks == [1, 2]


def test_full_tie_is_shared() -> None:
    # "Still a tie? Then the players share the win."
    state = new(3)
    trip = scoring_example_trip()
    state.trips = [list(trip), list(trip), trip[:-1]]
    state.phase = "over"
    assert state.outcome().ranks == [1, 1, 3]


# ----- turn structure ------------------------------------------------------------------------


def test_setup_deals_8_and_keeps_the_rest_face_down() -> None:
    # card-trip-europe "Game Setup": deal each player 8; the rest is a face-down pile.
    for n in range(2, 7):
        state = new(n)
        assert [len(h) for h in state.hands] == [8] * n
        assert len(state.pile) == len(NUMBERS) - 8 * n
        assert len(NUMBERS) == 104 and len(set(LOCATIONS)) == 104


def test_player_counts() -> None:
    # 104 cards, 16 per trip: 2 to 6 players.
    assert list(GAME.player_counts()) == [2, 3, 4, 5, 6]
    with pytest.raises(BadOptions):
        GAME.new_state(7, 1)


def test_play_two_face_down_simultaneously() -> None:
    # card-trip-europe "Step 1": "Play 2 location cards ... Once everyone has done this, turn
    # the cards over". Every seat chooses at once and nobody sees another's pair early.
    state = new(3)
    assert state.to_act() == (0, 1, 2)
    assert len(state.legal_actions(0)) == 28  # 8 choose 2
    pair = state.legal_actions(1)[5]
    state.apply(1, pair)
    assert state.to_act() == (0, 2)
    for seat in (0, 2):
        obs = state.observation(seat)
        assert obs["chosen"] == [False, True, False]
        assert obs["revealed"] == [[], [], []]
        assert obs["face_down"] is None
        assert obs["hand_counts"] == [8, 6, 8]
    mine = state.observation(1)
    assert mine["face_down"] == [int(x) for x in pair.split()[1:]]
    assert len(mine["hand"]) == 6
    with pytest.raises(IllegalAction):
        state.apply(1, state.legal_actions(0)[0])
    state.apply(0, state.legal_actions(0)[0])
    state.apply(2, state.legal_actions(2)[0])
    # Revealed: now every seat places its two cards, all at once.
    assert state.phase == "place"
    assert state.to_act() == (0, 1, 2)
    assert state.observation(0)["revealed"][1] == [int(x) for x in pair.split()[1:]]


def test_placements_are_revealed_together() -> None:
    # card-trip-europe "Step 1": "You decide the order in which you place the cards, as long as
    # you follow the placement rules ... All players do this simultaneously." Nobody sees how
    # another seat placed its cards until every seat has placed both.
    state = new(3, seed=5)
    for seat in (0, 1, 2):
        state.apply(seat, state.legal_actions(seat)[0])
    assert state.phase == "place"
    before = [state.observation(s) for s in range(3)]
    pairs = [list(r) for r in state.revealed]
    rng = random.Random(3)
    for _ in range(2):
        state.apply(0, rng.choice(state.legal_actions(0)))
        for seat in (1, 2):
            seen = state.observation(seat)
            assert seen["revealed"][0] == pairs[0]
            for field in ("trips", "week_energy_left", "type_counts", "points", "bonus_cards"):
                assert seen[field] == before[seat][field], field
    assert state.to_act() == (1, 2)
    mine = state.observation(0)
    assert mine["revealed"][0] == [] and len(mine["trips"][0]) == 2
    state.apply(1, rng.choice(state.legal_actions(1)))
    state.apply(1, rng.choice(state.legal_actions(1)))
    assert state.observation(2)["trips"][1] == before[2]["trips"][1]
    state.apply(2, rng.choice(state.legal_actions(2)))
    state.apply(2, rng.choice(state.legal_actions(2)))
    # Everyone has placed: the trips are shown together, and the next step begins.
    assert state.phase == "choose"
    for seat in range(3):
        seen = state.observation(seat)
        assert [len(t) for t in seen["trips"]] == [2, 2, 2]
        assert [sorted(e["card"] for e in t) for t in seen["trips"]] == [sorted(p) for p in pairs]


def test_resample_replaces_placements_not_yet_shown() -> None:
    # Another seat's placements of this step are hidden: a resampled world may place them
    # otherwise, but keeps the seat's own placements and who still has to place.
    state = new(2, seed=8)
    for seat in (0, 1):
        state.apply(seat, state.legal_actions(seat)[0])
    state.apply(0, state.legal_actions(0)[-1])
    state.apply(1, state.legal_actions(1)[0])
    state.apply(1, state.legal_actions(1)[0])
    worlds = [state.resample_hidden(0, random.Random(k)) for k in range(40)]
    assert all(w.trips[0] == state.trips[0] and w.to_act() == (0,) for w in worlds)
    assert all(sorted(abs(e) for e in w.trips[1]) == sorted(abs(e) for e in state.trips[1]) for w in worlds)
    assert len({tuple(w.trips[1]) for w in worlds}) > 1
    for w in worlds:
        w.apply(0, w.legal_actions(0)[0])
        assert w.phase == "choose"


def play_round(state: CardTripState, rng: random.Random) -> None:
    start = state.passes, state.deal
    while (state.passes, state.deal) == start and not state.is_terminal():
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_pass_the_rest_to_the_left() -> None:
    # card-trip-europe "Step 2": "pass your remaining cards to the player on your left".
    state = new(3)
    rng = random.Random(4)
    before = [list(h) for h in state.hands]
    play_round(state, rng)
    played = [[abs(e) for e in t] for t in state.trips]
    for seat in range(3):
        giver = (seat - 1) % 3
        assert state.hands[seat] == sorted(set(before[giver]) - set(played[giver]))
        assert len(state.hands[seat]) == 6


def test_deal_again_and_16_cards_per_trip() -> None:
    # "Deal 8 new location cards to each player again ... Your card trip will then consist
    # of 16 cards." The game ends when every trip has 16 cards.
    state = new(4)
    rng = random.Random(2)
    for _ in range(4):
        play_round(state, rng)
    assert state.deal == 2 and [len(h) for h in state.hands] == [8] * 4
    assert [len(t) for t in state.trips] == [8] * 4
    while not state.is_terminal():
        play_round(state, rng)
    assert [len(t) for t in state.trips] == [16] * 4
    assert not state.capped()
    assert len(state.pile) == 104 - 16 * 4


def test_known_cards_of_hands_passed_on() -> None:
    # A player knows the hand it passed to its left neighbour (minus what was played, which
    # is revealed); in a 3-player game the hand coming from the right is still unknown.
    state = new(3)
    play_round(state, random.Random(9))
    obs = state.observation(0)
    assert obs["known_cards"][1] == state.hands[1]
    assert obs["known_cards"][2] == []
    # Two players: after one pass each seat knows the other's whole hand.
    duo = new(2)
    play_round(duo, random.Random(9))
    assert duo.observation(0)["known_cards"][1] == duo.hands[1]


def test_resample_keeps_what_the_seat_knows() -> None:
    state = new(3)
    play_round(state, random.Random(9))
    other = state.resample_hidden(0, random.Random(1))
    assert other.hands[1] == state.hands[1]  # known: passed by seat 0
    assert other.hands[0] == state.hands[0]
    assert other.hands[2] != state.hands[2] or other.pile != state.pile


def test_observations_share_nothing_a_caller_may_change() -> None:
    # A trip's scoring is worked out once and kept (scoring.scored): every observation gets
    # its own copies, so a caller changing one observation changes no later one.
    state = new(2, seed=4)
    rng = random.Random(4)
    for _ in range(20):
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    obs = state.observation(0)
    before = [json.loads(json.dumps(state.observation(seat))) for seat in (0, 1)]
    assert any(obs["trips"])
    for trip in obs["trips"]:
        for entry in trip:
            entry["type"] = "changed"
    for per_seat in (obs["type_counts"], obs["points"]):
        for counts in per_seat:
            counts.update(dict.fromkeys(counts, 99))
    for bonus in obs["bonus_cards"]:
        bonus["points"][0] = 99
    for card in obs["cards"].values():
        card["name"] = "changed"
    assert [state.observation(seat) for seat in (0, 1)] == before


# ----- options -------------------------------------------------------------------------------


def test_bonus_side_options() -> None:
    # card-trip-europe "Bonus Cards": "If you're playing for the first time, use the positive
    # side. In later games, you can flip the cards or mix positive and negative points."
    assert GAME.options["bonus_sides"].default == "positive"
    assert new(2).bonus_sides == ["positive"] * 5
    assert new(2, bonus_sides="negative").bonus_sides == ["negative"] * 5
    mixes = {tuple(new(2, seed, bonus_sides="mixed").bonus_sides) for seed in range(20)}
    assert len(mixes) > 1
    assert new(2, 3, bonus_sides="mixed").bonus_sides == new(2, 3, bonus_sides="mixed").bonus_sides
    obs = new(2, 3, bonus_sides="mixed").observation(0)
    assert [b["side"] for b in obs["bonus_cards"]] == new(2, 3, bonus_sides="mixed").bonus_sides


# ----- the house bot -------------------------------------------------------------------------

# Measured: 99.x % over 1000 two-player matches (see docs/games/card_trip_europe.md).
HEURISTIC_FLOOR = 0.94


def test_heuristic_beats_random() -> None:
    from arena.games.house import evaluate

    result = evaluate("card_trip_europe", "heuristic", "random", 2, 150, first_seed=5000)
    assert result["win_rate"] >= HEURISTIC_FLOOR
