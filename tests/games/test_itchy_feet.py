"""Scenario tests for Itchy Feet, each citing the part of ``rules/itchy-feet.ru.txt`` it
checks (section names from the English translation). Every FAQ line has a test here or in
``test_itchy_feet_expansions.py``.

Positions are built with ``new_state`` and then by setting attributes directly: ``hands``,
``known`` (cards every player has seen in each hand), ``deck`` (top = end), ``discard``,
``home`` (own countries), ``centre``, ``home_visited``, ``current`` and ``phase``."""

from __future__ import annotations

from typing import Any

import pytest

from arena import games
from arena.games import IllegalAction
from arena.games.itchy_feet import data
from arena.games.itchy_feet.core import MAX_OFFERS
from arena.games.itchy_feet.state import ItchyFeetState

GAME = games.get("itchy_feet")

# France needs phrasebook, umbrella, local_currency; Germany umbrella, power_adapter,
# winter_coat (cards.json).
FRANCE = ["phrasebook", "umbrella", "local_currency"]
GERMANY = ["umbrella", "power_adapter", "winter_coat"]
FILLER = "sunscreen"


def position(
    hands: list[list[str]],
    *,
    current: int = 0,
    home: list[str | None] | None = None,
    centre: str = "germany",
    deck: list[str] | None = None,
    discard: list[str] | None = None,
    **options: Any,
) -> ItchyFeetState:
    """A state with exactly these hands; seat ``current`` chooses its action."""
    n = len(hands)
    state = GAME.new_state(n, 1, options)
    assert isinstance(state, ItchyFeetState)
    state.hands = [list(h) for h in hands]
    state.known = [[] for _ in range(n)]
    state.deck = list(deck) if deck is not None else [FILLER] * 20
    state.discard = list(discard or [])
    if not state.bucket:
        state.home = list(home) if home is not None else ["france", "japan", "india", "usa"][:n]
        state.centre = centre
        state.aside = sorted(set(data.COUNTRIES) - set(state.home) - {centre})
    state.home_visited = [False] * n
    state.characters = [None] * n
    state.current = current
    state.phase = "action"
    state.pending = {}
    state.offers = 0
    state._legal = {}
    return state


def play(state: ItchyFeetState, *moves: tuple[int, str]) -> ItchyFeetState:
    for seat, action in moves:
        state.apply(seat, action)
    return state


# ----- setup ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 6])
def test_setup_passport_country_and_three_items(n: int) -> None:
    """Setup 1-3: a passport each, a country each plus one in the centre, 3 items each."""
    state = GAME.new_state(n, 5)
    assert isinstance(state, ItchyFeetState)
    for hand in state.hands:
        assert len(hand) == 4
        assert sum(1 for c in hand if c in data.PASSPORT_SET) == 1
        assert all(c in data.ITEM_SET for c in hand if c not in data.PASSPORT_SET)
    placed = [*state.home, state.centre]
    assert len(set(placed)) == n + 1
    assert len(state.aside) == 13 - n - 1
    assert len(state.deck) == 32 - 3 * n


def test_expansions_join_the_deck_after_the_starting_hands() -> None:
    """Expansions: shuffled into the deck after setup step 3, so starting hands hold only
    items; characters are dealt one each (setup step 1)."""
    options = {"events": True, "specials": True, "forbidden": True, "postcards": True,
               "characters": True}
    for seed in range(20):
        state = GAME.new_state(4, seed, options)
        assert isinstance(state, ItchyFeetState)
        for hand in state.hands:
            assert all(c in data.ITEM_SET or c in data.PASSPORT_SET for c in hand)
        assert len(state.deck) == 32 - 12 + 4 + 9 + 3 + 6
        assert len(set(state.characters)) == 4 and None not in state.characters


@pytest.mark.parametrize(
    ("homes", "centre", "first"),
    [
        (["australia", "france"], "germany", 1),  # Paris region is far nearer Germany
        (["norway", "brazil", "china"], "india", 2),
        (["usa", "mexico"], "canada", 0),
    ],
)
def test_first_player_is_closest_to_the_centre(homes: list[str], centre: str, first: int) -> None:
    """Start of the game: the player whose country is closest in the real world to the
    centre country starts (great-circle distance between the countries' coordinates)."""
    state = position([["passport_uk"]] * len(homes), home=homes, centre=centre)
    assert state._first_player() == first


def test_distance_is_great_circle() -> None:
    assert 500 < data.distance_km("france", "germany") < 900
    assert 14000 < data.distance_km("australia", "norway") < 15000


# ----- actions ----------------------------------------------------------------------------
def test_draw_one_card_ends_the_turn() -> None:
    """Action 1: draw one card from the deck; then the turn is over."""
    state = position([["passport_uk"], ["passport_usa"]], deck=[FILLER, "umbrella"])
    play(state, (0, "draw"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert state.current == 1 and state.phase == "action"


def test_recycle_pays_two_and_takes_any_card_of_the_discard_pile() -> None:
    """Action 2: discard 2 cards, take one card of your choice from the discard pile."""
    state = position([["passport_uk", "sunscreen", "hiking_boots"], ["passport_usa"]],
                     discard=["umbrella", "phrasebook"])
    play(state, (0, "recycle"))
    assert state.legal_actions(0) == ["take phrasebook", "take umbrella"]
    play(state, (0, "take umbrella"))
    # passports are never thrown away (FAQ Travelling: lost passports change hands only)
    assert state.legal_actions(0) == ["pay hiking_boots sunscreen", "pay hiking_boots umbrella",
                                      "pay sunscreen umbrella"]
    play(state, (0, "pay hiking_boots sunscreen"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert state.discard == ["phrasebook", "hiking_boots", "sunscreen"]
    assert "umbrella" in state.known[0]  # taken face up from the open pile
    assert state.current == 1


def test_recycle_needs_two_cards_to_pay() -> None:
    state = position([["passport_uk", "sunscreen"], ["passport_usa"]], discard=["umbrella"])
    assert "recycle" not in state.legal_actions(0)


def test_faq_recycle_discard_pile_is_public() -> None:
    """FAQ Recycling: the discard pile may be looked through at any time."""
    state = position([["passport_uk"], ["passport_usa"]], discard=["umbrella", "sunscreen"])
    assert state.observation(1)["discard"] == ["umbrella", "sunscreen"]


def offer(state: ItchyFeetState, partner: int, give: list[str], want: list[str]) -> ItchyFeetState:
    """Seat ``state.current`` offers ``give`` to ``partner`` for cards of the kinds ``want``."""
    me = state.current
    play(state, (me, "trade"), (me, f"partner {partner}"))
    play(state, *[(me, f"give {card}") for card in give])
    play(state, *[(me, f"want {kind}") for kind in want])
    return play(state, (me, "propose"))


def trade_to_answer(give: list[str], want: list[str], responder_hand: list[str]) -> ItchyFeetState:
    state = position([["passport_uk", *give, "hiking_boots"], responder_hand],
                     deck=[FILLER, "winter_coat"])
    return offer(state, 1, give, want)


def test_trade_face_up_with_bonus_draw() -> None:
    """Action 3: exchange cards with one player, face up; bonus: draw one more card when the
    trade you began on your turn is completed."""
    state = trade_to_answer(["sunscreen"], ["umbrella"], ["passport_usa", "umbrella"])
    assert state.to_act() == (1,)
    assert state.legal_actions(1) == ["accept umbrella", "refuse"]
    obs = state.observation(1)
    assert obs["pending"]["give"] == ["sunscreen"] and obs["pending"]["want"] == ["umbrella"]
    play(state, (1, "accept umbrella"))
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "umbrella", "winter_coat"]
    assert sorted(state.hands[1]) == ["passport_usa", "sunscreen"]
    # face up: everyone saw which cards changed hands
    assert state.known[0] == ["umbrella"] and state.known[1] == ["sunscreen"]
    assert state.current == 1


def test_faq_trade_numbers_may_differ() -> None:
    """FAQ Trading: "The numbers of cards exchanged need not be equal. For example, you may
    trade 3 of your cards for 2 of someone else's if both players agree." (Action 3:
    "Exchange one or more cards with one other player.")"""
    give = ["sunscreen", "winter_coat", "winter_coat"]
    state = trade_to_answer(give, ["phrasebook", "umbrella"],
                            ["passport_usa", "umbrella", "phrasebook", "umbrella"])
    assert state.observation(1)["pending"]["give"] == give
    assert state.legal_actions(1) == ["accept phrasebook umbrella", "refuse"]
    play(state, (1, "accept phrasebook umbrella"))
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "phrasebook", "umbrella",
                                      "winter_coat"]  # gave 3, got 2, bonus winter_coat
    assert sorted(state.hands[1]) == ["passport_usa", "sunscreen", "umbrella", "winter_coat",
                                      "winter_coat"]
    assert sorted(state.known[1]) == sorted(give)  # face up


def test_trade_one_card_for_two_of_a_kind() -> None:
    """Action 3: one or more cards each way; the same kind may be asked for twice."""
    state = trade_to_answer(["sunscreen"], ["umbrella", "umbrella"],
                            ["passport_usa", "umbrella", "umbrella", "umbrella"])
    assert state.legal_actions(1) == ["accept umbrella umbrella", "refuse"]
    play(state, (1, "accept umbrella umbrella"))
    assert state.hands[0].count("umbrella") == 2
    assert sorted(state.hands[1]) == ["passport_usa", "sunscreen", "umbrella"]


def test_an_offer_is_built_card_by_card() -> None:
    """The offer is made one card or kind at a time, so the list of choices stays short: one
    id per card in hand and per kind, and ``propose`` once both sides hold something. Nobody
    asks for more cards than the partner holds, nor gives and asks for the same kind."""
    state = position([["passport_uk", "sunscreen", "sunscreen", "umbrella"],
                      ["passport_usa", "phrasebook"]])
    play(state, (0, "trade"), (0, "partner 1"))
    first = state.legal_actions(0)
    assert "propose" not in first
    assert [a for a in first if a.startswith("give")] == [
        "give passport_uk", "give sunscreen", "give umbrella"]
    assert len([a for a in first if a.startswith("want")]) == len(data.ITEMS) + 1
    play(state, (0, "give sunscreen"), (0, "give sunscreen"))
    assert "give sunscreen" not in state.legal_actions(0)  # both copies are offered
    assert "want sunscreen" not in state.legal_actions(0)
    assert "propose" not in state.legal_actions(0)  # nothing asked for yet
    play(state, (0, "want passport"), (0, "want umbrella"))
    legal = state.legal_actions(0)
    assert not any(a.startswith("want") for a in legal)  # the partner holds 2 cards
    assert "give umbrella" not in legal and "propose" in legal
    play(state, (0, "propose"))
    assert state.to_act() == (1,) and state.legal_actions(1) == ["refuse"]


def test_an_offer_can_be_withdrawn() -> None:
    """An offer being built can be dropped: like a refused one it is no action (FAQ
    Trading), but it counts among the turn's offers."""
    state = position([["passport_uk", "umbrella"], ["umbrella"]])
    play(state, (0, "trade"), (0, "partner 1"), (0, "want umbrella"))
    # the partner holds one card, asked for already; the umbrella is of the kind asked for
    assert state.legal_actions(0) == ["give passport_uk", "withdraw"]
    play(state, (0, "withdraw"))
    assert state.current == 0 and state.phase == "action" and state.pending == {}
    assert state.observation(0)["offers_left"] == MAX_OFFERS - 1


def test_faq_trade_any_passport_can_be_asked_for() -> None:
    """FAQ Travelling: any passport will do, so a trade may ask for "a passport"."""
    state = trade_to_answer(["sunscreen"], ["passport"], ["passport_usa", "passport_japan"])
    assert state.legal_actions(1) == ["accept passport_japan", "accept passport_usa", "refuse"]


def test_faq_refused_offer_is_no_action() -> None:
    """FAQ Trading: the trade counts only once cards changed hands; after a refusal the
    proposer may take another action (and no bonus card is drawn)."""
    state = trade_to_answer(["sunscreen"], ["umbrella"], ["passport_usa", "umbrella"])
    play(state, (1, "refuse"))
    assert state.current == 0 and state.phase == "action"
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "sunscreen"]
    assert state.observation(0)["offers_left"] == MAX_OFFERS - 1


def test_offers_per_turn_are_bounded() -> None:
    """Engine bound: at most MAX_OFFERS offers a turn, so every match ends."""
    state = position([["passport_uk", "sunscreen"], ["passport_usa", "umbrella"]])
    for _ in range(MAX_OFFERS):
        offer(state, 1, ["sunscreen"], ["umbrella"])
        play(state, (1, "refuse"))
    assert "trade" not in state.legal_actions(0)


def test_responder_without_the_cards_can_only_refuse() -> None:
    """FAQ Trading: you may lie about your hand, but the traded cards must be agreed."""
    state = trade_to_answer(["sunscreen"], ["umbrella"], ["passport_usa", "phrasebook"])
    assert state.legal_actions(1) == ["refuse"]


def test_steal_costs_a_discard_and_takes_a_random_card() -> None:
    """Action 4: discard one card, take one random card from another player's hand."""
    state = position([["passport_uk", "sunscreen"], ["umbrella"]])
    play(state, (0, "steal"), (0, "victim 1"))
    assert state.legal_actions(0) == ["pay sunscreen"]
    play(state, (0, "pay sunscreen"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert state.discard == ["sunscreen"]
    assert state.hands[1] == [FILLER] * 3  # emptied, so refilled at the start of its turn


def test_steal_needs_a_card_to_pay_and_a_victim_with_cards() -> None:
    assert "steal" not in position([["passport_uk"], ["umbrella"]]).legal_actions(0)
    assert "steal" not in position([["passport_uk", "sunscreen"], []]).legal_actions(0)


# ----- travelling -------------------------------------------------------------------------
def test_travel_discards_three_items_keeps_passport_and_draws() -> None:
    """Travelling: show the hand, discard the 3 items, keep the passport and other cards,
    remove the country, draw one free card."""
    hand = ["passport_uk", *FRANCE, "hiking_boots"]
    state = position([hand, ["passport_usa"]], deck=[FILLER, "winter_coat"])
    assert "visit france" in state.legal_actions(0)
    assert not any(a.startswith("visit germany") for a in state.legal_actions(0))
    play(state, (0, "visit france"))
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "winter_coat"]
    assert state.discard == FRANCE
    assert state.home[0] is None and state.home_visited[0]
    assert sorted(state.known[0]) == ["hiking_boots", "passport_uk"]  # the shown hand
    assert state.observation(1)["known_cards"][0] == ["hiking_boots", "passport_uk"]


def test_travel_needs_a_passport() -> None:
    """Travelling: you need all the items and a passport."""
    state = position([[*FRANCE], ["passport_usa"]])
    assert not any(a.startswith("visit") for a in state.legal_actions(0))


def test_faq_any_passport_works() -> None:
    """FAQ Travelling: you may travel with any passport."""
    state = position([["passport_australia", *FRANCE], ["passport_usa"]])
    assert "visit france" in state.legal_actions(0)


def test_centre_after_own_country_wins() -> None:
    """Goal: first visit your own country, then the centre one; the first there wins."""
    state = position([["passport_uk", *GERMANY], ["passport_usa"]])
    assert not any(a.startswith("visit") for a in state.legal_actions(0))
    state.home_visited[0] = True
    state.home[0] = None
    state._legal = {}
    assert state.legal_actions(0).count("visit germany") == 1
    play(state, (0, "visit germany"))
    assert state.is_terminal() and state.winner == 0
    assert state.outcome().ranks == [1, 2]


# ----- other rules ------------------------------------------------------------------------
def test_hand_limit_discards_the_excess() -> None:
    """Maximum hand size 7 (passports included); FAQ Drawing: you may draw at 7 but must
    discard the excess at once."""
    hand = ["passport_uk", "sunscreen", "umbrella", "phrasebook", "hiking_boots",
            "winter_coat", "power_adapter"]
    state = position([hand, ["passport_usa"]], deck=[FILLER, "umbrella"])
    play(state, (0, "draw"))
    assert state.phase == "discard" and state.to_act() == (0,)
    assert "discard passport_uk" not in state.legal_actions(0)
    play(state, (0, "discard sunscreen"))
    assert len(state.hands[0]) == 7 and state.current == 1


def test_empty_hand_draws_three_at_turn_start() -> None:
    """Empty hand: draw 3 at the start of your turn; this is not your action."""
    deck = [FILLER] * 5 + ["umbrella", "phrasebook", "winter_coat", "hiking_boots"]
    state = position([["passport_uk", "sunscreen"], []], deck=deck)
    play(state, (0, "draw"))
    assert state.current == 1 and state.phase == "action"
    assert sorted(state.hands[1]) == ["phrasebook", "umbrella", "winter_coat"]


def test_empty_deck_is_rebuilt_from_the_discard_pile() -> None:
    """Empty deck: when the last card is drawn, the shuffled discard pile is the new deck."""
    state = position([["passport_uk"], ["passport_usa"]], deck=["umbrella"],
                     discard=["sunscreen", "phrasebook"])
    play(state, (0, "draw"))
    assert state.hands[0] == ["passport_uk", "umbrella"]
    assert sorted(state.deck) == ["phrasebook", "sunscreen"] and state.discard == []


def test_stall_bound_ends_the_trip_by_progress() -> None:
    """Engine bound: when nobody has travelled for ``stall_rounds`` rounds (option, default
    40) the match ends; the standing is by progress (own country visited, items of the next
    country held)."""
    state = position([["passport_uk", "umbrella"], ["passport_usa"]])
    assert state.options["stall_rounds"] == 40
    state.turns = state.last_trip + 40 * 2 - 1
    play(state, (0, "draw"))
    assert not state.is_terminal() and state.current == 1
    play(state, (1, "draw"))
    assert state.is_terminal() and not state.capped()
    assert state.outcome().ranks == [1, 2]  # umbrella is one of France's items


def test_the_stall_bound_is_an_option() -> None:
    state = position([["passport_uk", "umbrella"], ["passport_usa"]])
    state.options["stall_rounds"] = 80
    state.turns = state.last_trip + 40 * 2 - 1
    play(state, (0, "draw"), (1, "draw"))
    assert not state.is_terminal()


def test_a_trip_resets_the_stall_count() -> None:
    state = position([["passport_uk", *FRANCE], ["passport_usa"]])
    state.turns = state.last_trip + 40 * 2 - 1
    play(state, (0, "visit france"), (1, "draw"))
    assert not state.is_terminal()


def test_observation_hides_other_hands_and_the_deck() -> None:
    state = position([["passport_uk", "umbrella"], ["passport_usa", "sunscreen"]])
    obs = state.observation(0)
    assert obs["hand"] == ["passport_uk", "umbrella"]
    assert obs["hand_sizes"] == [2, 2] and obs["known_cards"] == [[], []]
    assert "deck" not in obs and "hands" not in obs
    with pytest.raises(IllegalAction):
        state.apply(1, "draw")


def test_resample_keeps_cards_everyone_has_seen() -> None:
    import random

    state = trade_to_answer(["sunscreen"], ["umbrella"], ["passport_usa", "umbrella", "phrasebook"])
    play(state, (1, "accept umbrella"))
    for k in range(10):
        other = state.resample_hidden(1, random.Random(k))
        assert isinstance(other, ItchyFeetState)
        assert "umbrella" in other.hands[0]  # seen in the face-up trade
        assert other.observation(1) == state.observation(1)


def test_faq_a_lost_passport_is_stolen_back() -> None:
    """FAQ Travelling: whoever lost a passport can always trade for or steal a new one."""
    state = position([[*FRANCE, "sunscreen"], ["passport_usa"]])
    assert not any(a.startswith("visit") for a in state.legal_actions(0))
    play(state, (0, "steal"), (0, "victim 1"), (0, "pay sunscreen"), (1, "draw"))
    assert "passport_usa" in state.hands[0]
    assert "visit france" in state.legal_actions(0)


def test_faq_bonus_only_for_the_proposer_on_its_turn() -> None:
    """FAQ Trading: the bonus card is drawn only for a completed trade made on your turn:
    the partner, whose turn it is not, draws nothing."""
    state = trade_to_answer(["sunscreen"], ["umbrella"], ["passport_usa", "umbrella", "phrasebook"])
    play(state, (1, "accept umbrella"))
    assert len(state.hands[0]) == 3 + 1 and len(state.hands[1]) == 3
