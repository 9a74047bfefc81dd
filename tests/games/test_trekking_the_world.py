"""Scenario tests for Trekking the World, each citing the rulebook section it checks.

Sections are the rulebook's headings (trekking-the-world.txt): Setup, Start of Turn - Fly,
Move, Choose (Draw two / Take a Tour / Journey), End of the Game, Final Scoring. Map and
cards are the reconstruction in DATA.md section 2 (``arena/games/trekking_the_world/data``).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction
from arena.games.trekking_the_world import routes, trek
from arena.games.trekking_the_world.data import (
    AIRPORTS,
    BONUS_TOKENS,
    DESTINATIONS,
    JOURNEY_DECK,
    LOCATION_INDEX,
    LOCATIONS,
    MIN_PLAYERS_FOR_CUBE,
    REGION_LOCATIONS,
)
from arena.games.trekking_the_world.state import TrekkingState

GAME = games.get("trekking_the_world")


def placed(n: int = 2, seed: int = 1, options: dict[str, Any] | None = None) -> TrekkingState:
    """A state after setup: seat s placed its trekker on the s-th airport."""
    state = GAME.new_state(n, seed, options)
    for seat in range(n):
        state.apply(seat, f"start {AIRPORTS[seat]}")
    assert isinstance(state, TrekkingState)
    return state


def position(
    n: int = 2,
    *,
    seat: int = 0,
    phase: str = "move",
    positions: list[str] | None = None,
    hands: list[list[str]] | None = None,
    cubes: dict[str, str] | None = None,
    **attrs: Any,
) -> TrekkingState:
    """A hand-built position: ``seat`` to act in ``phase``; attributes set directly."""
    state = placed(n)
    state.current = seat
    state.phase = phase
    state.can_fly = False
    if positions is not None:
        state.positions = list(positions)
    if hands is not None:
        state.hands = [sorted(h) for h in hands]
        state.known = [[] for _ in range(n)]
    if cubes is not None:
        state.cubes = dict(cubes)
    for key, value in attrs.items():
        setattr(state, key, value)
    state._legal = {}
    return state


def moves_to(state: TrekkingState) -> set[str]:
    return {a.split()[1] for a in state.legal_actions(state.current) if a.startswith("move ")}


# ----- Setup -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("n", "cubes", "per_colour"),
    [
        # setup 2: 2p returns three of each colour; 3p two red, two blue, three yellow and white
        (2, 36, {"white": 9, "yellow": 9, "red": 9, "blue": 9}),
        (3, 38, {"white": 9, "yellow": 9, "red": 10, "blue": 10}),
        (4, 48, {"white": 12, "yellow": 12, "red": 12, "blue": 12}),
        (5, 48, {"white": 12, "yellow": 12, "red": 12, "blue": 12}),
    ],
)
def test_setup_cubes_by_player_count(n: int, cubes: int, per_colour: dict[str, int]) -> None:
    state = placed(n, seed=n)
    assert len(state.cubes) == cubes
    assert Counter(state.cubes.values()) == per_colour
    for loc in state.cubes:
        # no cube on airports nor on locations marked for more players (setup 2)
        assert loc not in AIRPORTS and MIN_PLAYERS_FOR_CUBE[loc] <= n


def test_setup_components() -> None:
    state = placed(4, seed=9)
    assert sorted(p for p in state.positions if p) == sorted(AIRPORTS[:4])  # setup 1
    assert len(state.dest_row) == 4 and len(state.dest_deck) == 44  # setup 5
    assert all(len(h) == 3 for h in state.hands) and len(state.face_up) == 4  # setup 7
    assert len(state.trek_deck) == 75 - 12 - 4
    values = [v for v in state.region_bonus.values() if v is not None]
    assert len(values) == 6  # setup 4: six of ten tokens, face down
    assert Counter(values) + Counter(state.unused_bonus) == Counter(BONUS_TOKENS)
    assert state.journeys == ["Exchange_Rate", "Catch_Me_If_You_Can"]  # setup 9 first game
    assert state.must_see_rewards() == [0, 0, 3, 5]  # setup 8
    obs = state.observation(1)
    assert obs["hand"] == state.hands[1] and "region_bonus" not in obs


def test_setup_airports_are_distinct_and_chosen_in_turn() -> None:
    state = GAME.new_state(3, 4)
    state.apply(0, "start Europe_Airport")
    assert state.to_act() == (1,)
    assert "start Europe_Airport" not in state.legal_actions(1)
    with pytest.raises(IllegalAction):
        state.apply(1, "start Europe_Airport")


def test_setup_random_journeys_option() -> None:
    seen = {tuple(placed(2, seed, {"journeys": "random"}).journeys) for seed in range(30)}
    assert len(seen) > 3
    for a, b in seen:
        assert a in JOURNEY_DECK["A"] and b in JOURNEY_DECK["B"]


# ----- Move ------------------------------------------------------------------------------------
def test_move_to_old_havana_collects_its_cube() -> None:
    """Move, rulebook example: George moves to Old Havana and collects the yellow cube."""
    state = position(
        positions=["Statue_of_Liberty", "Europe_Airport"],
        hands=[["2C", "1M", "3P"], ["1B"]],
        cubes={"Old_Havana": "yellow", "Banff": "red"},
    )
    assert "move Old_Havana" in state.legal_actions(0)
    state.apply(0, "move Old_Havana")
    # 1 connection, or 3 by the airport and Chichen Itza; no trail of exactly 2
    assert state.legal_actions(0) == ["pay 1M", "pay 3P"]
    state.apply(0, "pay 1M")
    assert state.positions[0] == "Old_Havana"
    assert state.suitcases[0]["yellow"] == 1 and "Old_Havana" not in state.cubes
    assert state.hands[0] == ["2C", "3P"] and state.discard[-1] == "1M"
    assert state.phase == "action"


def test_move_is_blocked_by_another_trekker() -> None:
    """Move: Tim can't reach Ha Long Bay because Sheila blocks his path (no passing
    through or landing on an occupied location)."""
    free = position(positions=["Terracotta_Army", "Europe_Airport"], hands=[["2C"], ["1B"]])
    assert "Ha_Long_Bay" in moves_to(free)
    blocked = position(positions=["Terracotta_Army", "Angkor_Wat"], hands=[["2C"], ["1B"]])
    assert "Ha_Long_Bay" not in moves_to(blocked)
    assert "Angkor_Wat" not in moves_to(blocked)  # landing on her is not allowed either


@pytest.mark.parametrize(
    ("start", "end", "lengths"),
    [
        ("Old_Havana", "Chichen_Itza", {1, 3, 4, 5}),  # 4: round the Grand Canyon triangle
        ("Old_Havana", "Statue_of_Liberty", {1, 3, 4, 5}),
        # Banff again at 3 only by going back along a used connection: not allowed
        ("Denali", "Banff", {1, 5}),
        ("Avenue_of_the_Baobabs", "Table_Mountain", {1, 2}),  # next loop back is 6 long
    ],
)
def test_move_by_exact_distance_without_reusing_a_connection(
    start: str, end: str, lengths: set[int]
) -> None:
    """Move: the cards must EXACTLY equal the connections; a connection may not be used
    twice in a move (loops that reuse none are fine)."""
    mask = routes.reach(start, 0, 5)[end]
    assert {d for d in range(1, 6) if mask >> d & 1} == lengths


def _trail_lengths(start: str, blocked: set[str], max_len: int) -> dict[str, set[int]]:
    """Reference: enumerate every trail naively."""
    edges = [tuple(sorted((a, b))) for a in LOCATIONS for b in routes.neighbours(a)]
    out: dict[str, set[int]] = {}

    def walk(node: str, used: frozenset[tuple[str, ...]], depth: int) -> None:
        for nb in routes.neighbours(node):
            edge = tuple(sorted((node, nb)))
            if edge in used or nb in blocked:
                continue
            if nb != start:
                out.setdefault(nb, set()).add(depth + 1)
            if depth + 1 < max_len:
                walk(nb, used | {edge}, depth + 1)

    assert edges
    walk(start, frozenset(), 0)
    return out


def test_move_routes_match_a_naive_trail_search() -> None:
    rng = random.Random(5)
    for _ in range(40):
        start = rng.choice(LOCATIONS)
        blocked = set(rng.sample([x for x in LOCATIONS if x != start], rng.randrange(5)))
        max_len = rng.randrange(1, 7)
        mask = routes.blocked_mask(sorted(blocked))
        got = routes.reach(start, mask, max_len)
        want = _trail_lengths(start, blocked, max_len)
        assert {k: {d for d in range(1, 11) if v >> d & 1} for k, v in got.items()} == want
        for end in set(LOCATIONS) - {start}:  # the one-location search of longer moves
            found = {k for k in range(1, max_len + 1) if routes._trail_exists(
                LOCATION_INDEX[start], routes._closed(mask), LOCATION_INDEX[end], k)}
            assert found == want.get(end, set())


def test_a_long_move_is_bounded_by_the_cards_not_the_map() -> None:
    """Move step 2: "Play one or more Trek cards from your hand with a combined value that
    EXACTLY equals the number of connections separating you from the location you are
    moving to." Nothing caps that number but the cards: with Sheila at Christ the Redeemer,
    Torres del Paine is 11 connections from the Acropolis, and a hand worth 11 gets there."""
    state = position(positions=["Acropolis", "Christ_the_Redeemer"],
                     hands=[["2B", "3C", "3M", "3P"], ["1N"]])
    assert "Torres_del_Paine" in moves_to(state)
    blocked = routes.blocked_mask(["Christ_the_Redeemer"])
    assert not any(routes.trail_exists("Acropolis", blocked, "Torres_del_Paine", k)
                   for k in range(1, 11))
    state.apply(0, "move Torres_del_Paine")
    assert state.legal_actions(0) == ["pay 2B,3C,3M,3P"]
    state.apply(0, "pay 2B,3C,3M,3P")
    assert state.positions[0] == "Torres_del_Paine" and state.hands[0] == []
    short = position(positions=["Acropolis", "Christ_the_Redeemer"], hands=[["3C", "3M", "3P"], ["1N"]])
    assert "Torres_del_Paine" not in moves_to(short)  # worth 9: not enough


def test_pay_needs_exact_sum() -> None:
    """Move step 2, rulebook: a distance of 2 takes a "2" or two "1s", never a "3".
    Statue of Liberty to Eiffel Tower is 2 (by Stonehenge); the next trail is 5 long."""
    state = position(positions=["Statue_of_Liberty", "Europe_Airport"], hands=[["1C", "1M", "2B", "3P"], []])
    state.apply(0, "move Eiffel_Tower")
    assert state.legal_actions(0) == ["pay 1C,1M", "pay 2B"]


@pytest.mark.parametrize(
    ("hand", "pays"),
    [
        # Golden Gate Bridge to Grand Canyon: trails of 1, 3, 4 and 5 connections
        (["1C", "1M", "2B", "3P"], ["pay 1C", "pay 1M", "pay 3P"]),
        (["2B", "2M"], ["pay 2B,2M"]),  # 4: round Banff, the airport and Chichen Itza
        (["1N", "2B", "2M"], ["pay 1N", "pay 2B,2M"]),
    ],
)
def test_pay_offers_no_needless_extra_cards(hand: list[str], pays: list[str]) -> None:
    """A payment holding a smaller valid payment (1C+2B when 1C alone reaches Grand
    Canyon) only discards cards for nothing and is not offered (docs: engine decisions)."""
    state = position(positions=["Golden_Gate_Bridge", "Europe_Airport"], hands=[hand, []])
    state.apply(0, "move Grand_Canyon")
    assert state.legal_actions(0) == pays


def test_move_is_mandatory_when_possible() -> None:
    state = position(positions=["Banff", "Europe_Airport"], hands=[["1C"], []])
    legal = state.legal_actions(0)
    assert legal and all(a.startswith("move ") for a in legal)


def test_move_is_skipped_without_cards_or_when_surrounded() -> None:
    """Move: with no trek cards, or blocked from moving anywhere, skip the phase."""
    state = position(positions=["Banff", "Europe_Airport"], hands=[[], ["1B"]], phase="action")
    state.current = 1
    state.phase = "draw"
    state._legal = {}
    state.apply(1, "draw deck")  # ends seat 1's turn; seat 0 has no cards
    assert state.current == 0 and state.phase == "action"
    # Denali's only neighbours, Banff and Mount Fuji, are occupied: no route at all
    walled = position(3, seat=2, phase="draw", positions=["Denali", "Banff", "Mount_Fuji"],
                      hands=[["1C", "3P"], [], []])
    walled.apply(2, "draw deck")
    assert walled.current == 0 and walled.phase == "action"


def test_fly_from_an_airport_then_move() -> None:
    """Start of Turn - Fly: from an airport to any unoccupied airport; the move follows."""
    state = position(positions=["Asia_Airport", "Europe_Airport"], hands=[["1C"], []])
    state.can_fly = True
    legal = state.legal_actions(0)
    assert "fly Oceania_Airport" in legal and "fly Europe_Airport" not in legal
    state.apply(0, "fly Oceania_Airport")
    assert state.positions[0] == "Oceania_Airport" and state.phase == "move"
    assert not any(a.startswith("fly") for a in state.legal_actions(0))
    assert "move Uluru" in state.legal_actions(0)


def test_fly_or_stay_when_no_move_is_possible() -> None:
    state = position(positions=["Asia_Airport", "Europe_Airport"], hands=[[], []])
    state.can_fly = True
    assert "no_move" in state.legal_actions(0)
    state.apply(0, "no_move")
    assert state.phase == "action"


# ----- Most Souvenirs, region bonus ------------------------------------------------------------
def test_most_crafts_changes_hands_at_three_against_two() -> None:
    """Claiming a Most Souvenirs tile: George takes Most Crafts with his second yellow;
    Liz takes it from him with her third."""
    state = position(
        positions=["Statue_of_Liberty", "Chichen_Itza"],
        hands=[["1C"], ["1C"]],
        cubes={"Old_Havana": "yellow", "Grand_Canyon": "yellow"},
    )
    state.suitcases[0]["yellow"] = 1
    state.suitcases[1]["yellow"] = 1
    # George collects his second yellow: at least 2 and nobody holds the tile
    state.apply(0, "move Old_Havana")
    state.apply(0, "pay 1C")
    assert state.tiles["yellow"] == 0
    # Liz, with two already (a tie does not take it), collects her third
    state.suitcases[1]["yellow"] = 2
    state.current, state.phase, state._legal = 1, "move", {}
    state.apply(1, "move Grand_Canyon")
    state.apply(1, "pay 1C")
    assert state.suitcases[1]["yellow"] == 3 and state.tiles["yellow"] == 1


@pytest.mark.parametrize(
    ("mine", "holder_count", "holder", "expected"),
    [
        (1, 0, None, None),  # at least 2 cubes are needed
        (2, 0, None, 0),
        (2, 2, 1, 1),  # a tie does not take the tile
        (3, 2, 1, 0),  # strictly more does
    ],
)
def test_most_souvenirs_claim_table(mine: int, holder_count: int, holder: int | None, expected: int | None) -> None:
    state = position()
    state.suitcases[0]["red"] = mine
    state.suitcases[1]["red"] = holder_count
    state.tiles["red"] = holder
    state._check_tile(0, "red")
    assert state.tiles["red"] == expected


def test_last_north_american_cube_claims_the_region_bonus() -> None:
    """Collecting a Region Bonus: George picks up the last North American souvenir."""
    state = position(
        positions=["Statue_of_Liberty", "Europe_Airport"],
        hands=[["1C"], []],
        cubes={"Old_Havana": "blue", "Angel_Falls": "red"},
    )
    state.region_bonus["North_America"] = 6
    state.apply(0, "move Old_Havana")
    state.apply(0, "pay 1C")
    assert state.bonus_tokens[0] == [6] and state.region_bonus["North_America"] is None
    obs0, obs1 = state.observation(0), state.observation(1)
    assert obs0["my_bonus_tokens"] == [6] and obs1["my_bonus_tokens"] == []
    assert obs1["bonus_token_counts"] == [1, 0] and "North_America" not in obs1["region_bonus_left"]


# ----- Draw two ---------------------------------------------------------------------------------
def test_draw_two_face_up_refills_and_is_public() -> None:
    state = position(phase="action", hands=[["1C"], ["1B"]])
    state.face_up = ["3M", "1P", "2B", "1C"]
    state.trek_deck = ["2N", "3C"]
    state.apply(0, "draw 3M")
    assert state.face_up == ["3C", "1P", "2B", "1C"] and state.phase == "draw"
    assert state.observation(1)["known_cards"][0] == ["3M"]
    state.apply(0, "draw deck")
    assert state.hands[0] == ["1C", "2N", "3M"] and state.current == 1


def test_draw_reshuffles_the_discards() -> None:
    state = position(phase="action", hands=[["1C"], ["1B"]])
    state.trek_deck = []
    state.discard = ["1N", "2N"]
    state.apply(0, "draw deck")
    assert sorted(state.hands[0] + state.trek_deck) == ["1C", "1N", "2N"] and state.discard == []


# ----- Take a Tour -------------------------------------------------------------------------------
def _at_row(dest: str, row_slot: int, hand: list[str]) -> TrekkingState:
    state = position(phase="action", positions=[dest, "Europe_Airport"], hands=[hand, []])
    row = [d for d in DESTINATIONS if d != dest][:3]
    row.insert(row_slot, dest)
    state.dest_row = row
    state.dest_deck = ["Uluru", "Kakadu"]
    return state


@pytest.mark.parametrize(("slot", "token"), [(3, 5), (2, 3), (1, None), (0, None)])
def test_tour_must_see_tokens(slot: int, token: int | None) -> None:
    """Take a Tour: icons match (numbers don't); the rightmost card gives a 5 VP token, the
    second rightmost a 3 VP token; the row slides right and the deck refills the left."""
    state = _at_row("Old_Havana", slot, ["3C", "2M", "1N"])  # needs Compass + Camera
    assert state.legal_actions(0).count("tour Old_Havana cards=2M,3C") == 1
    before = list(state.dest_row)
    state.apply(0, "tour Old_Havana cards=2M,3C")
    assert state.toured[0] == ["Old_Havana"]
    assert state.vp_tokens[0] == ([token] if token else [])
    assert state.dest_row == ["Kakadu"] + [d for d in before if d != "Old_Havana"]
    assert state.points(0) == 10 + (token or 0)


def test_tour_needs_the_icons() -> None:
    state = _at_row("Old_Havana", 3, ["3C", "2C", "1N"])
    assert not any(a.startswith("tour") for a in state.legal_actions(0))


def test_tour_when_the_five_vp_tokens_run_out() -> None:
    state = _at_row("Old_Havana", 3, ["3C", "2M"])
    state.vp5_left = 0
    assert state.must_see_rewards() == [0, 0, 0, 3]  # the 3s moved over the rightmost card
    state.apply(0, "tour Old_Havana cards=2M,3C")
    assert state.vp_tokens[0] == [3]
    state.vp3_left = 0
    assert state.must_see_rewards() == [0, 0, 0, 0]


# ----- Journey ------------------------------------------------------------------------------------
def test_journey_paid_with_two_camera_cards() -> None:
    """Journey, rulebook example: Liz discards a pair of camera cards for Catch Me If You
    Can (swap with a trekker, then draw 1)."""
    state = position(
        phase="action", positions=["Banff", "Uluru"], hands=[["1C", "3C", "2M"], []]
    )
    legal = state.legal_actions(0)
    assert "journey Catch_Me_If_You_Can cards=1C,3C" in legal
    assert not any("cards=1C,2M" in a for a in legal)  # the pair must share an icon
    state.apply(0, "journey Catch_Me_If_You_Can cards=1C,3C")
    assert state.hands[0] == ["2M"] and state.phase == "journey"
    assert state.legal_actions(0) == ["skip", "swap 1"]
    state.apply(0, "swap 1")
    assert state.positions == ["Uluru", "Banff"]
    assert state.legal_actions(0) == ["draw_deck 1", "skip"]
    state.apply(0, "draw_deck 1")
    assert len(state.hands[0]) == 2 and state.current == 1


def journey_position(name: str, **kw: Any) -> TrekkingState:
    state = position(phase="journey", **kw)
    state.journey = name
    state.journey_step = 0
    state._legal = {}
    return state


@pytest.mark.parametrize(
    ("journey", "setup", "action", "check"),
    [
        # Draw X cards from the deck
        ("Exchange_Rate", {}, "draw_deck 3", lambda s: len(s.hands[0]) == 4),
        # Move to any Airport (Layover), then draw 1
        ("Layover", {}, "goto Africa_Airport", lambda s: s.positions[0] == "Africa_Airport" and s.phase == "journey"),
        # Gain a 3 VP token
        ("Travel_Blog", {}, "gain_vp", lambda s: s.vp_tokens[0] == [3] and s.vp3_left == 17),
        # Move up to X without cards, collecting where you land
        ("Scenic_Route", {"cubes": {"Angel_Falls": "red"}}, "goto Angel_Falls",
         lambda s: s.suitcases[0]["red"] == 1 and s.hands[0] == ["1P"]),
        # Take one cube from your current region
        ("Market_Day", {"cubes": {"Chichen_Itza": "white", "Uluru": "red"}}, "take_cube Chichen_Itza",
         lambda s: s.suitcases[0]["white"] == 1 and s.positions[0] == "Old_Havana"),
    ],
)
def test_every_journey_action(journey: str, setup: dict[str, Any], action: str, check: Any) -> None:
    state = journey_position(
        journey, positions=["Old_Havana", "Europe_Airport"], hands=[["1P"], []], **setup
    )
    assert action in state.legal_actions(0) and "skip" in state.legal_actions(0)
    state.apply(0, action)
    assert check(state)


def test_journey_scenic_route_moves_up_to_three() -> None:
    state = journey_position("Scenic_Route", positions=["Old_Havana", "Europe_Airport"], hands=[["1P"], []])
    targets = {a.split()[1] for a in state.legal_actions(0) if a.startswith("goto")}
    assert "Chichen_Itza" in targets and "Banff" in targets  # 1 and 3 connections away
    assert "Denali" not in targets  # 4 away
    state.apply(0, "skip")  # "or choose not to move at all"
    assert state.positions[0] == "Old_Havana" and state.legal_actions(0) == ["draw_deck 1", "skip"]


def test_journey_take_a_tour_for_one_less() -> None:
    state = journey_position("Guided_Tour", positions=["Banff", "Europe_Airport"], hands=[["1M", "2N"], []])
    state.dest_row = ["Uluru", "Kakadu", "Petra", "Banff"]  # Banff: 2 Compass + 1 Binoculars
    legal = state.legal_actions(0)
    assert "tour Banff cards=1M,2N" in legal and "skip" in legal
    state.apply(0, "tour Banff cards=1M,2N")
    assert state.toured[0] == ["Banff"] and state.vp_tokens[0] == [5] and state.current == 1


def test_journey_a_bumpy_ride_recolours_a_cube() -> None:
    """A Bumpy Ride: the cube moves to another colour's row and counts only as that colour
    (here it also gives its mover Most Figurines)."""
    state = journey_position("A_Bumpy_Ride", positions=["Banff", "Europe_Airport"], hands=[["1C"], []])
    state.suitcases[0] = {"white": 0, "yellow": 0, "red": 2, "blue": 1}
    state.suitcases[1] = {"white": 0, "yellow": 0, "red": 0, "blue": 1}
    state._legal = {}
    assert "recolour red blue" in state.legal_actions(0)
    assert not any(a.startswith("recolour white") for a in state.legal_actions(0))
    state.apply(0, "recolour red blue")
    assert state.suitcases[0] == {"white": 0, "yellow": 0, "red": 1, "blue": 2}
    assert state.tiles["blue"] == 0


def test_journey_actions_may_all_be_skipped() -> None:
    state = journey_position("Catch_Me_If_You_Can", positions=["Banff", "Europe_Airport"], hands=[["1C"], []])
    state.apply(0, "skip")
    state.apply(0, "skip")
    assert state.current == 1 and state.hands[0] == ["1C"] and state.positions[0] == "Banff"


# ----- End of the game and scoring ------------------------------------------------------------
def test_fifth_destination_ends_the_game_after_the_turn() -> None:
    state = _at_row("Old_Havana", 0, ["3C", "2M"])
    state.toured[0] = ["Uluru", "Kakadu", "Petra", "Banff"]
    state.apply(0, "tour Old_Havana cards=2M,3C")
    assert state.is_terminal() and state.to_act() == ()


def test_fifth_region_bonus_ends_the_game_after_the_turn() -> None:
    state = position(positions=["Statue_of_Liberty", "Europe_Airport"], hands=[["1C"], []], cubes={"Old_Havana": "red"})
    state.region_bonus = {"North_America": 4, "South_America": None, "Europe": None, "Africa": None,
                          "Asia": None, "Oceania": 2}
    state.apply(0, "move Old_Havana")
    state.apply(0, "pay 1C")
    assert not state.is_terminal()  # the triggering player finishes the turn
    assert state.phase == "action"
    state.apply(0, "draw deck")
    assert not state.is_terminal()
    state.apply(0, "draw deck")
    assert state.is_terminal()


@pytest.mark.parametrize(
    ("counts", "vp"),
    [
        ({"white": 3, "yellow": 3, "red": 3, "blue": 3}, 17),  # Sheila's three sets: 17
        ({"white": 5, "yellow": 3, "red": 4, "blue": 3}, 17),  # extra cubes do not count
        ({"white": 1, "yellow": 1, "red": 1, "blue": 1}, 5),
        ({"white": 2, "yellow": 2, "red": 2, "blue": 2}, 10),
        ({"white": 4, "yellow": 4, "red": 4, "blue": 6}, 25),
        ({"white": 4, "yellow": 4, "red": 4, "blue": 0}, 0),
    ],
)
def test_souvenir_sets_score_the_rightmost_full_set(counts: dict[str, int], vp: int) -> None:
    """Final Scoring: only the value under the rightmost full set counts."""
    state = position()
    state.suitcases[0] = counts
    state.tiles = {c: None for c in counts}
    assert state.points(0) == vp


def test_final_scoring_adds_everything() -> None:
    state = position(3)
    state.tiles = {"white": 0, "yellow": 1, "red": None, "blue": 0}
    state.bonus_tokens[0] = [6, 2]
    state.vp_tokens[0] = [5, 3]
    state.toured[0] = ["Old_Havana", "Taj_Mahal"]  # 10 + 20
    state.suitcases[0] = {"white": 2, "yellow": 1, "red": 1, "blue": 3}
    # tiles 9 + 12 (3-5 player side), bonus 8, tokens 8, destinations 30, one set 5
    assert state.points(0) == 9 + 12 + 8 + 8 + 30 + 5
    assert state.observation(1)["public_points"][0] == state.points(0) - 8


def test_ties_go_to_most_souvenirs_then_are_shared() -> None:
    state = position()
    state.toured = [["Old_Havana"], ["Chichen_Itza"]]  # 10 VP each
    state.suitcases[0] = {"white": 0, "yellow": 0, "red": 0, "blue": 0}
    state.suitcases[1] = {"white": 0, "yellow": 0, "red": 0, "blue": 2}
    state.tiles = {"white": None, "yellow": None, "red": None, "blue": None}
    assert state.outcome().ranks == [2, 1]
    state.suitcases[0]["red"] = 2
    assert state.outcome().ranks == [1, 1]


# ----- Hidden information --------------------------------------------------------------------
def test_resample_keeps_public_cards_and_own_tokens() -> None:
    state = position(3, phase="action", hands=[["1C"], ["3M", "1N", "2P"], ["2B"]])
    state.known[1] = ["3M"]
    state.bonus_tokens = [[6], [3], []]
    state.region_bonus["Europe"] = None
    state.region_bonus["Asia"] = None
    for k in range(20):
        other = state.resample_hidden(0, random.Random(k))
        assert "3M" in other.hands[1] and len(other.hands[1]) == 3
        assert other.bonus_tokens[0] == [6] and other.hands[0] == ["1C"]
        assert len(other.bonus_tokens[1]) == 1 and other.face_up == state.face_up
        unseen = Counter(other.hands[1] + other.hands[2] + other.trek_deck)
        assert unseen == Counter(state.hands[1] + state.hands[2] + state.trek_deck)


def test_every_location_is_named_in_the_data() -> None:
    for region, locs in REGION_LOCATIONS.items():
        assert len(locs) == 9, region
    assert len(LOCATIONS) == 54 and len(DESTINATIONS) == 48
    assert sorted(trek.payments(["1C", "1C", "2M"], lambda total: total == 2)) == [
        ("1C", "1C"), ("2M",)]


def test_resample_keeps_the_player_to_act_able_to_pay() -> None:
    """A seat saw the other announce a move of exactly 3: every resampled hand can pay it."""
    state = position(seat=1, phase="pay", positions=["Europe_Airport", "Old_Havana"],
                     hands=[["1C"], ["3P", "1B"]])
    state.target = "Banff"  # 3 away from Old Havana
    for k in range(20):
        other = state.resample_hidden(0, random.Random(k))
        assert other.legal_actions(1), other.hands[1]
        assert sum(len(h) for h in other.hands) + len(other.trek_deck) == sum(
            len(h) for h in state.hands
        ) + len(state.trek_deck)
