"""Scenario tests for Backpacker, each citing the section of ``rules/backpacker.txt`` it checks;
the rulebook's own example hand comes first.

Positions are built with ``new_state`` and then by setting attributes directly: ``hands``,
``future`` (top = end), ``past`` (top = end), ``trips`` (entries ``{"country", "bonuses",
"boost"}``), ``status`` (the one grey/red/pink card on a pile), ``current`` and ``phase``."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from arena import games
from arena.games import BadOptions, IllegalAction
from arena.games.backpacker import knowledge
from arena.games.backpacker.deck import COUNTRIES, EVENTS, build_deck
from arena.games.backpacker.scoring import score_trip
from arena.games.backpacker.state import BackpackerState

GAME = games.get("backpacker")
FILLER = "culture"  # a harmless card to fill the Future pile


def entry(country: str, *bonuses: str, boost: int = 0) -> dict[str, Any]:
    return {"country": country, "bonuses": list(bonuses), "boost": boost}


def position(
    hands: list[list[str]],
    *,
    current: int = 0,
    phase: str = "play",
    trips: list[list[dict[str, Any]]] | None = None,
    status: list[dict[str, Any] | None] | None = None,
    future: list[str] | None = None,
    past: list[str] | None = None,
    **options: Any,
) -> BackpackerState:
    """A state with exactly these hands and piles; the player ``current`` is in ``phase``."""
    n = len(hands)
    options.setdefault("cards", "basic")  # yellow/pink tests add their cards with extra_cards
    state = GAME.new_state(n, 1, options)
    assert isinstance(state, BackpackerState)
    state.hands = [list(h) for h in hands]
    state.trips = trips if trips is not None else [[] for _ in range(n)]
    state.status = status if status is not None else [None] * n
    state.cameras = [False] * n
    state.future = future if future is not None else [FILLER] * 30
    state.past = past if past is not None else []
    state.future_known = 0
    state.known = knowledge.empty(n)
    state.current = current
    state.phase = phase
    state.pending = {}
    state.extra_goes = 0
    state.go_start_version = state.past_version
    state._legal = {}
    return state


def legal(state: BackpackerState, seat: int | None = None) -> list[str]:
    return state.legal_actions(state.current if seat is None else seat)


def do(state: BackpackerState, *actions: str, seat: int | None = None) -> None:
    for action in actions:
        state.apply(state.current if seat is None else seat, action)


# ----- Example Hand: Scoring And Strategy (Information For Beginners) --------------------------
def test_example_hand_scores_380_0_540_200() -> None:
    """The rulebook's example hand, played out from Player 1's last move of the year: Sickness
    loses Germany and passes No Flight Available to Player 2; then everyone goes home."""
    trips = [
        # Player 1: Argentina, Kenya, Video Camera, Beach on Kenya, India, Tahiti, Germany.
        [entry("argentina"), entry("kenya", "beach", boost=1), entry("india", boost=1),
         entry("tahiti", boost=1), entry("germany", boost=1)],
        # Player 2: all 5 continents.
        [entry("mexico"), entry("kenya"), entry("china"), entry("italy"), entry("fiji")],
        # Player 3: Mongolia + Culture + Wildlife, UK, Peru + Trekking, Turkey by Credit Card.
        [entry("mongolia", "culture", "wildlife"), entry("uk"), entry("peru", "trekking"), entry("turkey")],
        # Player 4: USA, Antarctica, Russia, China, Egypt, with Bad Advice on the pile.
        [entry("usa"), entry("antarctica"), entry("russia"), entry("china"), entry("egypt")],
    ]
    hands = [
        ["sickness", "no_flight", "holland", "culture", "everest"],
        ["near_miss", "uk", "beach", "reunion", "japan"],
        ["credit_card", "ireland", "fiji", "money_talks", "love"],
        ["thailand", "zimbabwe", "good_timing", "fate", "internet_cafe"],
    ]
    state = position(
        hands, trips=copy.deepcopy(trips), phase="start", future=["zimbabwe"],
        status=[None, None, None, {"card": "bad_timing", "by": 0}],
    )
    state.cameras[0] = True
    do(state, "draw", "play sickness")  # the last card of the Future pile, then Sickness
    assert state.trips[0][-1]["country"] == "tahiti" and state.past[-1] == "germany"
    # Near Miss is no use against Sickness: only the passes follow.
    assert state.phase == "pass" and state.to_act() == (0, 1, 2, 3)
    assert "play near_miss" not in legal(state, 1)
    do(state, "pass no_flight", seat=0)
    do(state, "pass japan", seat=1)
    do(state, "pass ireland", seat=2)
    do(state, "pass thailand", seat=3)
    assert state.is_terminal()  # section 8: the year (and this one-year game) is over
    assert state.outcome().scores == [380.0, 0.0, 540.0, 200.0]
    assert state.outcome().ranks == [2, 4, 1, 3]

    p1, why1 = score_trip(trips[0][:4], bad_advice=False)
    assert p1 == 380 and "video_camera x1 20" in why1 and "beach on kenya 80" in why1
    p3, why3 = score_trip(trips[2], bad_advice=False)
    assert p3 == 540 and "turkey 60" in why3 and "five continents 200" not in why3
    p4, why4 = score_trip(trips[3], bad_advice=True)
    # Egypt counts neither as points nor towards the 5 continents (Antarctica is the 5th).
    assert p4 == 200 and "egypt 0 (bad advice)" in why4 and "five continents 200" not in why4
    assert score_trip(trips[3], bad_advice=False)[0] == 300 + 200


def test_example_hand_player_3_turkey_needs_the_credit_card() -> None:
    """Example hand, Player 3: Credit Card (9.6) allowed a second European country."""
    trip = [entry("mongolia", "culture", "wildlife"), entry("uk"), entry("peru", "trekking")]
    hands = [["turkey", "credit_card", "japan", "fiji", "holland", "ireland"], ["culture"] * 5]
    state = position(hands, trips=[trip, []])
    assert "play turkey" not in legal(state)
    assert "play turkey with=credit_card" in legal(state)
    do(state, "play turkey with=credit_card")
    assert [e["country"] for e in state.trips[0]] == ["mongolia", "uk", "peru", "turkey"]
    assert "credit_card" in state.hands[0]  # KEEP IN YOUR HAND TO REUSE
    assert "credit_card" in state.observation(1)["known_hands"]["0"]  # shown to the others
    # Only 2 countries of a colour: a third is refused even with the card.
    state.hands[0] += ["italy", "holland"]
    state.current, state.phase, state._legal = 0, "play", {}
    assert not any(a.startswith("play italy") or a.startswith("play holland") for a in legal(state))


# ----- 4, 5: the cards -------------------------------------------------------------------------
def test_country_and_event_counts() -> None:
    """4: 38 countries by continent and points; 5: 68 events by colour."""
    by_continent: dict[str, int] = {}
    by_points: dict[int, int] = {}
    for country in COUNTRIES.values():
        by_continent[country.continent] = by_continent.get(country.continent, 0) + 1
        by_points[country.points] = by_points.get(country.points, 0) + 1
    assert by_continent == {"asia": 9, "europe": 8, "africa": 7, "americas": 7, "oceania": 6, "antarctica": 1}
    assert by_points == {100: 3, 80: 6, 60: 9, 40: 9, 20: 11}
    by_colour: dict[str, int] = {}
    for event in EVENTS.values():
        by_colour[event.colour] = by_colour.get(event.colour, 0) + event.count
    assert by_colour == {"blue": 10, "grey": 9, "red": 6, "green": 12, "orange": 13, "yellow": 13, "pink": 5}
    assert EVENTS["wildlife"].count == 2  # DATA.md 3.2
    assert COUNTRIES["kenya"].bonuses >= {"beach"} and COUNTRIES["peru"].bonuses >= {"trekking"}


@pytest.mark.parametrize(
    ("options", "size"),
    [
        ({"cards": "learning1"}, 38 + 9 + 10),  # 1st hand: countries, grey, blue
        ({"cards": "learning2"}, 38 + 9 + 10 + 6 + 12),  # 2nd hand: + red, green
        ({"cards": "learning3"}, 88),  # 3rd hand: + orange, the full Basic game
        ({"cards": "basic"}, 88),
        ({"cards": "advanced"}, 106),
        ({"cards": "basic", "extra_cards": "near_miss, love"}, 90),  # added one by one
    ],
)
def test_game_levels(options: dict[str, Any], size: int) -> None:
    """Information For Beginners: the learning hands, Basic, Advanced, and adding extra cards."""
    state = GAME.new_state(3, 5, options)
    total = len(state.future) + sum(len(h) for h in state.hands)  # type: ignore[attr-defined]
    assert total == size
    if options.get("cards") == "basic" and "extra_cards" not in options:
        deck = build_deck("basic")
        assert not {c for c in deck if c in EVENTS and EVENTS[c].colour in ("yellow", "pink")}


def test_unknown_extra_card_is_rejected() -> None:
    with pytest.raises(BadOptions):
        GAME.new_state(2, 1, {"extra_cards": "sickness"})


# ----- 3: starting the game ---------------------------------------------------------------------
def test_deal_and_first_go() -> None:
    """3: 5 cards each, the rest is the Future pile, the player left of the dealer starts."""
    state = GAME.new_state(4, 9)
    assert isinstance(state, BackpackerState)
    assert [len(h) for h in state.hands] == [5, 5, 5, 5]
    assert len(state.future) == 106 - 20 and state.past == []
    assert state.to_act() == ((state.dealer + 1) % 4,) == (0,)
    assert state.legal_actions(0) == ["draw"]  # nothing to take home yet


# ----- 6: a go ----------------------------------------------------------------------------------
def test_a_go_draw_play_and_refill() -> None:
    """6 rules 1-3: draw, then play one card; everyone has 5 cards at the end of the go."""
    hands = [["kenya", "japan", "fiji", "uk", "peru"], ["culture"] * 4]  # seat 1 short of a card
    state = position(hands, phase="start", future=["beach", "holland", "mali"])
    do(state, "draw")
    assert "mali" in state.hands[0] and len(state.hands[0]) == 6
    do(state, "play kenya")
    assert [e["country"] for e in state.trips[0]] == ["kenya"]
    assert [len(h) for h in state.hands] == [5, 5]
    assert state.to_act() == (1,) and state.phase == "start"


@pytest.mark.parametrize(
    ("trip", "card", "allowed"),
    [
        ([], "mali", True),
        ([entry("kenya")], "mali", False),  # rule 5: one African country per trip
        ([entry("kenya")], "japan", True),
        ([entry("antarctica")], "mali", True),
    ],
)
def test_one_country_per_continent(trip: list[dict[str, Any]], card: str, allowed: bool) -> None:
    """6 rule 5."""
    state = position([[card, "fiji", "uk", "peru", "holland", "beach"], ["culture"] * 5], trips=[trip, []])
    assert (f"play {card}" in legal(state)) == allowed


def test_lost_country_frees_its_continent() -> None:
    """6 rule 5: after losing the African country, another African country may be played."""
    state = position(
        [["sickness", "mali", "uk", "peru", "holland", "beach"], ["culture"] * 5],
        trips=[[entry("kenya")], []],
    )
    assert "play mali" not in legal(state)
    do(state, "play sickness")
    do(state, "pass uk", seat=0)
    do(state, "pass culture", seat=1)
    assert state.trips[0] == [] and state.past[-1] == "kenya"
    state.current, state.phase, state._legal = 0, "play", {}
    state.hands[0].append("fiji")
    assert "play mali" in legal(state)


@pytest.mark.parametrize(
    ("top", "bonus", "allowed"),
    [("kenya", "beach", True), ("kenya", "trekking", False), ("japan", "culture", True),
     ("japan", "wildlife", False), ("antarctica", "wildlife", True)],
)
def test_bonus_needs_the_symbol_on_the_top_country(top: str, bonus: str, allowed: bool) -> None:
    """9.1: a Bonus card goes on the top country only if it shows the same symbol."""
    state = position([[bonus, "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], trips=[[entry(top)], []])
    assert (f"play {bonus}" in legal(state)) == allowed


def test_grey_cards_cannot_be_discarded() -> None:
    """6 rule 7: grey cards are never discarded (Insurance aside, 9.6)."""
    state = position([["sickness", "no_flight", "uk", "uk", "uk", "uk"], ["culture"] * 5])
    acts = legal(state)
    assert "discard sickness" not in acts and "discard no_flight" not in acts
    assert "play sickness" in acts and "discard uk" in acts


def test_one_bad_card_on_a_pile() -> None:
    """6 rule 8: one grey, red or pink card on a pile at a time."""
    hands = [["bad_timing", "love", "no_flight", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("kenya")]], status=[{"card": "love", "by": 1, "goes": 1}, None])
    acts = legal(state)
    assert "play bad_timing on=1" in acts and "play love on=1" in acts
    assert "play no_flight" not in acts  # Love is already on seat 0's pile
    state.status[1] = {"card": "bad_transport", "by": 0}
    state._legal = {}
    acts = legal(state)
    assert "play bad_timing on=1" not in acts and "play love on=1" not in acts


def test_going_home_only_at_the_start_and_without_grey_cards() -> None:
    """6 rules 10, 11."""
    trips = [[entry("kenya")], []]
    state = position([["uk"] * 5, ["culture"] * 5], phase="start", trips=trips)
    assert legal(state) == ["draw", "go_home"]
    state.hands[0][0] = "out_of_cash"
    state._legal = {}
    assert legal(state) == ["draw"]
    state.phase, state._legal = "play", {}
    state.hands[0].append("uk")
    assert "go_home" not in legal(state)


# ----- 7: going home ----------------------------------------------------------------------------
def test_going_home_scores_shows_the_hand_and_ends_the_go() -> None:
    """7.1-7.8: score the pile, show the hand, the pile goes to the Past pile."""
    trips = [[entry("kenya", "beach"), entry("japan")], []]
    state = position([["uk", "fiji", "mali", "beach", "reunion"], ["culture"] * 5], phase="start", trips=trips)
    do(state, "go_home")
    assert state.banked == [80 + 80 + 20, 0]
    assert state.trips[0] == [] and state.past == ["kenya", "beach", "japan"]
    assert state.observation(1)["known_hands"]["0"] == sorted(["uk", "fiji", "mali", "beach", "reunion"])
    assert state.to_act() == (1,) and len(state.hands[0]) == 5  # 7.8: a new trip next go


def test_five_continents_bonus_and_antarctica() -> None:
    """6 rule 13, 7.6 and 4 (Antarctica as the wildcard)."""
    five = [entry("kenya"), entry("japan"), entry("uk"), entry("usa"), entry("fiji")]
    assert score_trip(five, False)[0] == 80 + 20 + 20 + 20 + 20 + 200
    four_and_ice = [entry("antarctica"), entry("japan"), entry("uk"), entry("usa"), entry("fiji")]
    assert score_trip(four_and_ice, False)[0] == 40 + 80 + 200
    assert score_trip(five[:4], False)[0] == 140


def test_bad_advice_costs_the_top_country_when_going_home() -> None:
    """7.4 and 9.3: the top country and its bonuses do not score and go to the Past pile."""
    trips = [[entry("japan"), entry("kenya", "beach")], []]
    state = position(
        [["uk"] * 5, ["culture"] * 5], phase="start", trips=trips,
        status=[{"card": "bad_timing", "by": 1}, None],
    )
    do(state, "go_home")
    assert state.banked[0] == 20
    assert "bad_timing" in state.past and "kenya" in state.past


# ----- 8: the end of the Future pile ------------------------------------------------------------
def test_year_end_everyone_tries_to_go_home() -> None:
    """8: the year ends when the Future pile runs out; grey cards in hand score nothing."""
    trips = [[entry("kenya")], [entry("mali")], [entry("egypt")]]
    hands = [["uk"] * 5, ["sickness", "uk", "uk", "uk", "uk"], ["uk"] * 5]
    state = position(hands, phase="start", trips=trips, future=["japan"])
    do(state, "draw", "discard japan")
    assert state.is_terminal() and not state.capped()
    assert state.outcome().scores == [80.0, 0.0, 100.0]
    assert state.outcome().ranks == [2, 3, 1]


def test_more_years_reshuffle_and_deal_again() -> None:
    """3, 8: an agreed number of years; the next year is dealt by the next dealer."""
    state = position([["uk"] * 5, ["uk"] * 5], phase="start", trips=[[entry("kenya")], []],
                     future=["japan"], years=2)
    do(state, "draw", "discard japan")
    assert not state.is_terminal()
    assert state.year == 2 and state.banked == [80, 0]
    assert [len(h) for h in state.hands] == [5, 5] and len(state.future) == 88 - 10
    assert state.dealer == 0 and state.to_act() == (1,)
    assert state.trips == [[], []]


# ----- 9.2 grey cards ---------------------------------------------------------------------------
def test_thief_steals_bag() -> None:
    """9.2 Thief: the whole played pile to the Past pile and the next go is missed."""
    trips = [[entry("kenya", "beach"), entry("japan")], [], []]
    hands = [["thief", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5, ["culture"] * 5]
    state = position(hands, trips=trips, status=[{"card": "bad_timing", "by": 1}, None, None])
    do(state, "play thief")
    assert state.trips[0] == [] and state.status[0] == {"card": "thief", "by": 0, "miss": 1}
    assert {"kenya", "beach", "japan", "bad_timing"} <= set(state.past)
    do(state, "draw", "discard culture", seat=1)
    do(state, "draw", "discard culture", seat=2)
    assert state.to_act() == (1,)  # seat 0's go was missed
    assert state.status[0] is None and state.past[-1] == "thief"


def test_sickness_everyone_passes_left_at_once() -> None:
    """9.2 Sickness: lose the top country, everyone passes a card left (simultaneous), miss a go."""
    trips = [[entry("japan"), entry("kenya", "beach")], [], []]
    hands = [["sickness", "no_flight", "uk", "uk", "uk", "uk"], ["mali"] * 5, ["fiji"] * 5]
    state = position(hands, trips=trips)
    do(state, "play sickness")
    assert state.trips[0] == [entry("japan")] and state.past[-2:] == ["kenya", "beach"]
    assert state.to_act() == (0, 1, 2)
    do(state, "pass no_flight", seat=0)
    assert state.to_act() == (1, 2)
    assert state.observation(1)["pending"] == {"kind": "sickness", "your_choice": None}
    do(state, "pass mali", seat=1)
    do(state, "pass fiji", seat=2)
    assert "no_flight" in state.hands[1] and "mali" in state.hands[2] and "fiji" in state.hands[0]
    assert state.status[0]["card"] == "sickness"  # type: ignore[index]
    assert state.to_act() == (1,)


@pytest.mark.parametrize(("card", "missed"), [("no_flight", 1), ("out_of_cash", 3)])
def test_missed_goes(card: str, missed: int) -> None:
    """9.2 No Flight Available: miss a go; Out of Cash: miss 3 goes."""
    state = position([[card, "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5])
    do(state, f"play {card}")
    goes_of_seat_1 = 0
    while state.current != 0:
        do(state, "draw", "discard culture")
        goes_of_seat_1 += 1
    assert goes_of_seat_1 == missed + 1
    assert state.status[0] is None and card in state.past


# ----- 9.3, 9.4 Bad and Good Advice --------------------------------------------------------------
def test_bad_advice_needs_a_country_and_stops_countries_and_bonuses() -> None:
    """9.3: only on an opponent with a country; then no new countries or bonuses."""
    hands = [["bad_timing", "uk", "uk", "uk", "uk", "uk"], ["mali", "beach", "culture", "culture", "culture"],
             ["culture"] * 5]
    state = position(hands, trips=[[], [entry("kenya")], []])
    acts = legal(state)
    assert "play bad_timing on=1" in acts and "play bad_timing on=2" not in acts
    do(state, "play bad_timing on=1")
    assert state.status[1] == {"card": "bad_timing", "by": 0}
    state.current, state.phase, state._legal = 1, "play", {}
    state.hands[1].append("japan")
    acts = legal(state)
    assert not any(a.startswith("play japan") or a == "play beach" for a in acts)
    assert "abandon" in acts


@pytest.mark.parametrize(
    ("good", "bad", "removes"),
    [("good_timing", "bad_timing", True), ("good_timing", "bad_transport", False),
     ("good_bureaucracy", "bad_bureaucracy", True), ("money_talks", "bad_transport", True)],
)
def test_good_advice_removes_its_bad_advice(good: str, bad: str, removes: bool) -> None:
    """9.4: a Good Advice removes the matching Bad Advice; Money Talks removes any."""
    hands = [[good, "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[entry("kenya")], []], status=[{"card": bad, "by": 1}, None])
    assert (f"play {good}" in legal(state)) == removes
    if removes:
        do(state, f"play {good}")
        assert state.status[0] is None and state.past[-2:] == [good, bad]
        assert state.to_act() == (1,)  # "Your go is over"


def test_give_up_the_country_with_bad_advice() -> None:
    """9.3, third way: discard the top country with its bonuses and the Bad Advice, then
    finish the go with 5 cards."""
    hands = [["mali", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[entry("japan"), entry("kenya", "beach")], []],
                     status=[{"card": "bad_transport", "by": 1}, None])
    do(state, "abandon")
    assert state.trips[0] == [entry("japan")] and state.status[0] is None
    assert state.to_act() == (0,) and "play mali" in legal(state)
    do(state, "play mali")
    assert state.to_act() == (1,)


def test_losing_the_top_country_removes_bad_advice() -> None:
    """9.3, fourth way: Sickness (or Thief, Paths Cross, Broken Camera) takes it away."""
    hands = [["sickness", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[entry("kenya")], []], status=[{"card": "bad_timing", "by": 1}, None])
    assert "play sickness" in legal(state)  # rule 8 allows it: the Bad Advice goes
    do(state, "play sickness")
    assert state.status[0]["card"] == "sickness"  # type: ignore[index]
    assert "bad_timing" in state.past


# ----- 9.5 orange -------------------------------------------------------------------------------
def test_wrong_backpack_swaps_hands() -> None:
    """9.5 Wrong Backpack: give them your hand, take all 5 cards of theirs."""
    mine = ["wrong_backpack", "sickness", "no_flight", "uk", "uk", "uk"]
    state = position([mine, ["mali", "egypt", "kenya", "peru", "fiji"]], cards="basic")
    do(state, "play wrong_backpack on=1")
    assert sorted(state.hands[0]) == sorted(["mali", "egypt", "kenya", "peru", "fiji"])
    assert sorted(state.hands[1]) == sorted(mine[1:])
    assert state.observation(0)["known_hands"]["1"] == sorted(mine[1:])
    assert state.observation(1)["known_hands"]["0"] == sorted(["mali", "egypt", "kenya", "peru", "fiji"])


def test_reunion_passes_left_and_gives_another_go() -> None:
    """9.5 Reunion: everyone passes a card to the left and you get another go."""
    state = position([["reunion", "sickness", "uk", "uk", "uk", "uk"], ["mali"] * 5])
    do(state, "play reunion")
    assert state.to_act() == (0, 1)
    do(state, "pass sickness", seat=0)
    do(state, "pass mali", seat=1)
    assert "sickness" in state.hands[1] and "mali" in state.hands[0]
    assert state.to_act() == (0,) and state.phase == "start"


def test_seek_guidance_look_take_and_give() -> None:
    """9.5 Seek Guidance: look at a hand, take their best card, give them your worst."""
    state = position([["seek_guidance", "sickness", "uk", "uk", "uk", "uk"], ["mali", "egypt", "fiji", "uk", "uk"]],
                     cards="basic")
    do(state, "play seek_guidance on=1")
    assert state.phase == "seek_take"
    assert state.observation(0)["known_hands"]["1"] == sorted(["mali", "egypt", "fiji", "uk", "uk"])
    assert legal(state) == ["take egypt", "take fiji", "take mali", "take uk"]
    do(state, "take mali", "give sickness")
    assert "mali" in state.hands[0] and "sickness" in state.hands[1]
    assert [len(h) for h in state.hands] == [5, 5] and state.to_act() == (1,)


def test_fate_blind_pick_and_give_back() -> None:
    """9.5 Fate: from the left, blindly pick a card from each player and give one back."""
    hands = [["fate", "sickness", "no_flight", "uk", "uk", "uk"], ["mali"] * 5, ["egypt"] * 5]
    state = position(hands, cards="basic")
    do(state, "play fate")
    assert state.phase == "fate_give" and state.pending["target"] == 1 and "mali" in state.hands[0]
    do(state, "give sickness")
    assert state.pending["target"] == 2 and "egypt" in state.hands[0]
    do(state, "give no_flight")
    assert "sickness" in state.hands[1] and "no_flight" in state.hands[2]
    assert [len(h) for h in state.hands] == [5, 5, 5] and state.to_act() == (1,)


def test_inspiration_takes_a_named_country_from_the_past_pile() -> None:
    """9.5 Inspiration: a country of a continent you can still visit, found in the Past pile."""
    state = position([["inspiration", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5],
                     trips=[[entry("kenya")], []], past=["mali", "peru", "japan"])
    acts = legal(state)
    assert "play inspiration country=peru" in acts and "play inspiration country=mali" not in acts
    do(state, "play inspiration country=peru")
    assert state.trips[0][-1]["country"] == "peru" and "peru" not in state.past


def test_change_of_plans_discards_greys_too() -> None:
    """9.5 Change of Plans and 6 rule 7: all 5 cards (greys too) out, 5 new in."""
    hands = [["change_of_plans", "sickness", "thief", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, future=["culture"] * 3 + ["japan"] * 5)
    do(state, "play change_of_plans")
    assert state.hands[0] == ["japan"] * 5 and "thief" in state.past


def test_change_of_plans_at_the_end_of_the_pack() -> None:
    """9.5 Change of Plans: if the Future pile is short, pick up however many are left."""
    hands = [["change_of_plans", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, future=["japan", "fiji"])
    do(state, "play change_of_plans")
    assert state.is_terminal()  # the Future pile ran out: the year (and game) is over


def test_paths_cross_takes_country_bonuses_and_discards_bad_advice() -> None:
    """9.5 Paths Cross and 6 rule 6: the country moves with its bonuses; their Bad Advice goes."""
    hands = [["paths_cross", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[entry("japan")], [entry("mali"), entry("kenya", "beach")]],
                     status=[None, {"card": "bad_timing", "by": 0}], cards="basic")
    do(state, "play paths_cross from=1")
    assert state.trips[0][-1] == entry("kenya", "beach") and state.trips[1] == [entry("mali")]
    assert state.status[1] is None and "bad_timing" in state.past


def test_paths_cross_needs_a_continent_you_can_still_visit() -> None:
    hands = [["paths_cross", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[entry("mali")], [entry("kenya")]])
    assert "play paths_cross from=1" not in legal(state)


def test_internet_cafe_draw_ask_offer_and_agree() -> None:
    """9.5 Internet Cafe and Information For Beginners (3rd hand): draw, then an agreed swap."""
    hands = [["internet_cafe", "sickness", "uk", "uk", "uk", "uk"], ["mali", "money_talks", "fiji", "uk", "uk"]]
    state = position(hands, future=["japan"], cards="basic")
    do(state, "play internet_cafe")
    assert "japan" in state.hands[0] and state.phase == "cafe_ask"
    do(state, "ask money_talks from=1")
    assert state.to_act() == (1,) and legal(state, 1) == ["agree", "refuse"]
    do(state, "agree", seat=1)
    do(state, "offer sickness")
    assert legal(state, 1) == ["accept", "decline"]
    do(state, "decline", seat=1)
    assert state.phase == "play" and "money_talks" in state.hands[1]
    assert len(state.hands[0]) == 6  # finish the go even if there was no exchange


def test_internet_cafe_exchange_happens_when_both_agree() -> None:
    hands = [["internet_cafe", "sickness", "uk", "uk", "uk", "uk"], ["mali", "money_talks", "fiji", "uk", "uk"]]
    state = position(hands, future=["japan"] * 2, cards="basic")
    do(state, "play internet_cafe", "ask mali from=1")
    do(state, "agree", seat=1)
    do(state, "offer uk")
    do(state, "accept", seat=1)
    assert "mali" in state.hands[0] and state.hands[1].count("uk") == 3
    do(state, "play mali")
    assert state.to_act() == (1,)


def test_internet_cafe_asked_player_without_the_card_can_only_refuse() -> None:
    hands = [["internet_cafe", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, future=["japan"], cards="basic")
    do(state, "play internet_cafe", "ask mali from=1")
    assert legal(state, 1) == ["refuse"]


# ----- 9.6 yellow -------------------------------------------------------------------------------
def test_travel_the_clock_three_more_goes() -> None:
    state = position([["travel_the_clock", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5])
    do(state, "play travel_the_clock")
    for _ in range(3):
        assert state.to_act() == (0,)
        do(state, "draw", "discard culture")
    assert state.to_act() == (1,)


def test_whirlwind_tour_plays_many_then_refills() -> None:
    hands = [["whirlwind_tour", "kenya", "beach", "japan", "uk", "sickness"], ["culture"] * 5]
    state = position(hands, future=["fiji"] * 10)
    do(state, "play whirlwind_tour")
    assert state.phase == "whirlwind" and "stop" not in legal(state)  # as many as possible
    do(state, "play kenya", "play beach", "play japan", "play uk")
    assert legal(state) == ["stop"] and len(state.hands[0]) == 1  # nothing more to play
    do(state, "stop")
    assert len(state.hands[0]) == 5 and len(state.trips[0]) == 3 and state.to_act() == (1,)


def test_insurance_discards_a_grey_card_and_stays_in_hand() -> None:
    state = position([["insurance", "thief", "uk", "uk", "uk", "uk"], ["culture"] * 5])
    assert "discard thief with=insurance" in legal(state)
    do(state, "discard thief with=insurance")
    assert "insurance" in state.hands[0] and state.past[-1] == "thief" and state.status[0] is None
    assert "insurance" in state.observation(1)["known_hands"]["0"]


def test_everest_shows_all_hands_and_gives_another_go() -> None:
    state = position([["everest", "uk", "uk", "uk", "uk", "uk"], ["mali"] * 5, ["fiji"] * 5])
    do(state, "play everest")
    assert state.observation(0)["known_hands"] == {"1": ["mali"] * 5, "2": ["fiji"] * 5}
    assert state.observation(1)["known_hands"] == {}
    assert state.to_act() == (0,)


def test_video_camera_twenty_per_card_after_it() -> None:
    state = position([["video_camera", "kenya", "uk", "uk", "uk", "uk"], ["culture"] * 5],
                     trips=[[entry("japan")], []])
    do(state, "play video_camera")
    state.current, state.phase, state._legal = 0, "play", {}
    state.hands[0] += ["beach", "culture"]
    do(state, "play kenya")
    state.current, state.phase, state._legal = 0, "play", {}
    do(state, "play beach")
    assert score_trip(state.trips[0], False)[0] == 20 + 80 + 80 + 40
    state.current, state.phase, state._legal = 0, "start", {}
    do(state, "go_home")
    assert state.banked[0] == 220 and "video_camera" in state.past and not state.cameras[0]


def test_grapevine_take_a_card_and_give_grapevine() -> None:
    state = position([["grapevine", "uk", "uk", "uk", "uk", "uk"], ["mali", "fiji", "uk", "uk", "uk"]],
                     cards="basic", extra_cards="grapevine")
    do(state, "play grapevine on=1")
    do(state, "take mali")
    assert "grapevine" in state.hands[1] and "mali" in state.hands[0]
    assert state.phase == "play" and len(state.hands[0]) == 6  # then play or discard
    assert "grapevine" in state.observation(2 if state.num_players > 2 else 0)["known_hands"]["1"]


def test_follow_the_trail_on_your_go_and_as_a_window() -> None:
    """9.6 Follow the Trail: swap it for the top of the Past pile, on your go or after a go
    that changed the top of the Past pile (a window offered to every seat)."""
    state = position([["follow_the_trail", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], past=["mali"])
    do(state, "play follow_the_trail")
    assert "mali" in state.hands[0] and state.past[-1] == "follow_the_trail" and state.phase == "play"

    state = position([["uk"] * 6, ["follow_the_trail", "culture", "culture", "culture", "culture"]],
                     cards="basic", extra_cards="follow_the_trail")
    do(state, "discard uk")
    assert state.phase == "trail" and state.to_act() == (0, 1)
    assert legal(state, 0) == ["decline"]  # seat 0 is asked too: nothing leaks
    assert legal(state, 1) == ["decline", "play follow_the_trail"]
    do(state, "decline", seat=0)
    do(state, "play follow_the_trail", seat=1)
    assert "uk" in state.hands[1] and state.past[-1] == "follow_the_trail" and state.to_act() == (1,)


def test_solar_eclipse_draw_until_you_keep() -> None:
    state = position([["solar_eclipse", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5],
                     future=["mali", "sickness", "thief"])
    do(state, "play solar_eclipse")
    assert state.observation(0)["pending"]["drawn"] == "thief"
    assert "drawn" not in state.observation(1)["pending"]
    do(state, "reject")
    do(state, "reject")
    do(state, "keep")
    assert "mali" in state.hands[0] and state.past[-2:] == ["thief", "sickness"] and state.phase == "play"


def test_solar_eclipse_at_most_eight_cards() -> None:
    state = position([["solar_eclipse", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], future=["uk"] * 12)
    do(state, "play solar_eclipse")
    for _ in range(7):
        do(state, "reject")
    assert legal(state) == ["keep"]


def test_travelling_companion_goes_home_with_another_player() -> None:
    hands = [["uk"] * 5, ["travelling_companion", "sickness", "culture", "culture", "culture"], ["mali"] * 5]
    trips = [[entry("kenya")], [entry("japan")], [entry("fiji")]]
    state = position(hands, phase="start", trips=trips, future=["peru"] * 5, extra_cards="travelling_companion")
    do(state, "go_home")
    assert state.phase == "companion" and state.to_act() == (1, 2)
    assert legal(state, 2) == ["decline"]  # asked too, so the offer says nothing
    do(state, "play travelling_companion", seat=1)
    do(state, "decline", seat=2)
    assert state.banked == [80, 20, 0] and len(state.hands[1]) == 5 and "sickness" in state.hands[1]
    assert "1" not in state.observation(2)["known_hands"]  # the hand is not shown


def test_date_line_turns_past_cards_back_onto_the_future_pile() -> None:
    state = position([["date_line", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5],
                     past=["japan", "mali", "fiji"], future=["culture"] * 5)
    assert "play date_line count=3" in legal(state) and "play date_line count=4" not in legal(state)
    do(state, "play date_line count=2")
    assert state.future[-2:] == ["fiji", "mali"] and state.past == ["japan", "date_line"]
    assert state.observation(1)["future_top_known"] == ["mali", "fiji"]
    assert state.to_act() == (0,)  # another go
    do(state, "draw")
    assert state.hands[0][-1] == "mali" and "mali" in state.observation(1)["known_hands"]["0"]


def test_near_miss_window_is_offered_whether_or_not_the_target_holds_it() -> None:
    """9.6 Near Miss: the target of a bad card always gets a window, so nothing leaks."""
    hands = [["bad_timing", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("kenya")]], extra_cards="near_miss")
    do(state, "play bad_timing on=1")
    assert state.to_act() == (1,) and legal(state, 1) == ["decline"]
    do(state, "decline", seat=1)
    assert state.status[1] == {"card": "bad_timing", "by": 0}


def test_near_miss_gives_the_bad_card_back() -> None:
    hands = [["love", "uk", "uk", "uk", "uk", "uk"], ["near_miss", "culture", "culture", "culture", "culture"]]
    state = position(hands, extra_cards="near_miss,love")
    do(state, "play love on=1")
    do(state, "play near_miss", seat=1)
    assert state.status[1] is None and "love" in state.hands[1] and "near_miss" in state.hands[0]
    assert state.to_act() == (0,) and len(state.hands[0]) == 6  # they must finish their go


def test_no_near_miss_window_once_it_is_in_the_past_pile() -> None:
    hands = [["bad_timing", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("kenya")]], past=["near_miss"])
    do(state, "play bad_timing on=1")
    assert state.status[1] is not None and state.to_act() == (1,) and state.phase == "start"


def test_no_near_miss_against_sickness() -> None:
    """9.6 Near Miss: not against Sickness, which affects every player."""
    state = position([["sickness", "uk", "uk", "uk", "uk", "uk"], ["near_miss"] * 5])
    do(state, "play sickness")
    assert state.phase == "pass"


def test_flying_visit_scores_and_keeps_the_last_country() -> None:
    trips = [[entry("japan"), entry("kenya", "beach")], []]
    state = position([["flying_visit", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], trips=trips)
    do(state, "play flying_visit")
    assert state.banked[0] == 20 + 160 and state.trips[0] == [entry("kenya", "beach")]


def test_flying_visit_with_bad_advice_keeps_but_does_not_score_the_top() -> None:
    trips = [[entry("japan"), entry("kenya", "beach")], []]
    state = position([["flying_visit", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], trips=trips,
                     status=[{"card": "bad_timing", "by": 1}, None])
    do(state, "play flying_visit")
    assert state.banked[0] == 20 and state.trips[0] == [entry("kenya", "beach")]
    assert state.status[0] is None and "bad_timing" in state.past


# ----- 9.7 pink ---------------------------------------------------------------------------------
def test_broken_camera() -> None:
    hands = [["broken_camera", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("japan"), entry("kenya", "beach")]], extra_cards="near_miss")
    do(state, "play broken_camera on=1")
    do(state, "decline", seat=1)
    assert state.trips[1] == [entry("japan")] and "kenya" in state.past
    assert state.to_act() == (0,)  # seat 1 missed its go; then the card left its pile
    assert state.status[1] is None and state.past[-1] == "broken_camera"


def test_broken_camera_on_a_pile_with_bad_advice() -> None:
    """9.3: Bad Advice is removed "if a card is played that requires you to lose the country
    on top of your played pile (e.g. ... someone plays the Paths Cross or Broken Camera card
    on you)". So Broken Camera may be played on a pile that carries Bad Advice: the top
    country and the Bad Advice go, and the camera takes the free slot (6 rule 8)."""
    hands = [["broken_camera", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("japan"), entry("kenya", "beach")]],
                     status=[None, {"card": "bad_timing", "by": 0}], extra_cards="near_miss")
    assert "play broken_camera on=1" in legal(state)
    do(state, "play broken_camera on=1")
    do(state, "decline", seat=1)
    assert state.trips[1] == [entry("japan")]
    assert {"kenya", "beach", "bad_timing"} <= set(state.past)
    assert state.to_act() == (0,)  # seat 1 missed its go
    assert state.status[1] is None and state.past[-1] == "broken_camera"


def test_other_pink_cards_need_a_free_slot() -> None:
    """6 rule 8: one grey, red or pink card per pile; only losing the top country (Broken
    Camera) clears Bad Advice, so the other pink cards still wait for a free slot."""
    hands = [["low_battery", "broken_camera", "uk", "uk", "uk", "uk"], ["culture"] * 5]
    state = position(hands, trips=[[], [entry("japan")]], status=[None, {"card": "bad_timing", "by": 0}])
    assert "play low_battery on=1" not in legal(state)
    state.status[1] = {"card": "love", "by": 0, "goes": 2}
    state._legal = {}
    assert not any(a.startswith("play broken_camera") for a in legal(state))


def test_low_battery_misses_two_goes() -> None:
    state = position([["low_battery", "uk", "uk", "uk", "uk", "uk"], ["culture"] * 5], past=["near_miss"])
    do(state, "play low_battery on=1")
    goes = 0
    while state.current == 0 and goes < 5:
        do(state, "draw", "discard culture" if "culture" in state.hands[0] else "discard uk")
        goes += 1
    assert goes == 2 and state.status[1] is None


def test_under_the_influence_the_player_who_played_it_chooses() -> None:
    state = position([["under_the_influence", "uk", "uk", "uk", "uk", "uk"],
                      ["mali", "sickness", "fiji", "culture", "culture"]], past=["near_miss"],
                     future=["japan"] * 10)
    do(state, "play under_the_influence on=1")
    do(state, "draw", seat=1)
    assert state.phase == "influence" and state.to_act() == (0,)
    assert sorted(a.split()[1] for a in legal(state, 0)) == ["culture", "fiji", "japan", "mali", "sickness"]
    do(state, "force sickness", seat=0)
    assert legal(state, 1) == ["play sickness"]
    assert state.observation(1)["pending"]["forced"] == "sickness"


def test_love_stops_countries_for_two_goes() -> None:
    hands = [["love", "uk", "uk", "uk", "uk", "uk"], ["mali", "japan", "fiji", "peru", "culture"]]
    state = position(hands, past=["near_miss"], future=["uk"] * 10)
    do(state, "play love on=1")
    for _ in range(2):
        do(state, "draw", seat=1)
        assert not any(a.startswith("play mali") for a in legal(state, 1))
        do(state, "discard uk", seat=1)
        do(state, "draw", "discard uk")
    assert state.status[1] is None
    do(state, "draw", seat=1)
    assert "play mali" in legal(state, 1)


def test_visa_problem_removed_by_discarding_a_visitable_country() -> None:
    hands = [["visa_problem", "uk", "uk", "uk", "uk", "uk"], ["mali", "japan", "fiji", "kenya", "culture"]]
    state = position(hands, trips=[[], [entry("egypt")]], past=["near_miss"])
    do(state, "play visa_problem on=1", "draw")
    assert not any(a.startswith("play japan") for a in legal(state))
    do(state, "discard kenya")  # Africa is already visited: the Visa stays
    assert state.status[1]["card"] == "visa_problem"  # type: ignore[index]
    do(state, "draw", "discard uk", seat=0)
    do(state, "draw", "discard japan", seat=1)
    assert state.status[1] is None


# ----- what a seat sees --------------------------------------------------------------------------
def test_observation_shows_hand_sizes_not_hands() -> None:
    """Everything a player may see and nothing more: other hands only as sizes."""
    state = GAME.new_state(3, 4)
    obs = state.observation(0)
    assert len(obs["hand"]) == 5 and [p["hand_size"] for p in obs["players"]] == [5, 5, 5]
    text = str({k: v for k, v in obs.items() if k != "hand"})
    assert obs["known_hands"] == {}
    for other in (1, 2):
        for card in state.hands[other]:  # type: ignore[attr-defined]
            if card not in state.hands[0]:  # type: ignore[attr-defined]
                assert f"'{card}'" not in text or card in obs["past_pile"]


def test_illegal_action_is_refused() -> None:
    state = position([["uk"] * 6, ["culture"] * 5])
    with pytest.raises(IllegalAction):
        state.apply(0, "discard mali")


# ----- invariants over random play ----------------------------------------------------------------
def test_five_cards_at_the_start_of_every_go_and_knowledge_stays_true() -> None:
    """6 rule 3 (everyone has 5 cards at the end of every go) and the known-hands record
    (a viewer's known cards are always really in that hand), over random matches."""
    import random
    from collections import Counter

    for options in ({}, {"cards": "basic"}):
        for n in (2, 4, 6):
            state = GAME.new_state(n, 11, options)
            assert isinstance(state, BackpackerState)
            rng = random.Random(n)
            while to_act := state.to_act():
                if state.phase == "start" and state.pending == {}:
                    assert [len(h) for h in state.hands] == [5] * n
                for viewer in range(n):
                    for holder in range(n):
                        assert not Counter(state.known[viewer][holder]) - Counter(state.hands[holder])
                seat = to_act[rng.randrange(len(to_act))]
                state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_resample_keeps_what_the_seat_knows() -> None:
    """Determinization: cards a seat has seen in another hand stay there; the rest moves."""
    import random

    state = position([["everest", "uk", "uk", "uk", "uk", "uk"], ["mali", "fiji", "peru", "kenya", "egypt"],
                      ["japan"] * 5], future=["culture", "beach", "trekking", "wildlife"] * 5,
                     extra_cards="everest")
    state.apply(0, "play everest")
    for k in range(5):
        twin = state.resample_hidden(0, random.Random(k))
        assert sorted(twin.hands[1]) == sorted(state.hands[1])  # type: ignore[attr-defined]
        assert twin.observation(0) == state.observation(0)
    others = [state.resample_hidden(1, random.Random(k)) for k in range(5)]
    assert any(sorted(t.hands[0]) != sorted(state.hands[0]) for t in others)  # type: ignore[attr-defined]
