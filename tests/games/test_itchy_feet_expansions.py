"""Scenario tests for the Itchy Feet expansions (rulebook "Expansions" and FAQ) and the
Bucket List variant (rules/DATA.md 1.1). Card effects beyond the rulebook are the
reconstruction in ``cards.json`` (rules/DATA.md 1.4.4)."""

from __future__ import annotations

from typing import Any

import pytest
from test_itchy_feet import FILLER, FRANCE, GERMANY, offer, play, position

from arena import games
from arena.games.itchy_feet import data
from arena.games.itchy_feet.state import ItchyFeetState

GAME = games.get("itchy_feet")
ALL = {"events": True, "specials": True, "forbidden": True, "postcards": True}


def table(hands: list[list[str]], **kw: Any) -> ItchyFeetState:
    options = {**ALL, **{k: v for k, v in kw.items() if k in GAME.options}}
    rest = {k: v for k, v in kw.items() if k not in GAME.options}
    return position(hands, **rest, **options)


# ----- events -----------------------------------------------------------------------------
def test_event_is_played_when_drawn_and_replaced() -> None:
    """Events: played at once when drawn; affect all players (Free Upgrade: everyone draws).
    The drawer then gets the next card."""
    state = table([["passport_uk"], ["passport_usa"]],
                  deck=[FILLER, FILLER, "hiking_boots", "umbrella", "free_upgrade"])
    play(state, (0, "draw"))
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "umbrella"]
    assert sorted(state.hands[1]) == ["passport_usa", FILLER]
    assert state.discard == ["free_upgrade"]


def test_events_are_never_recycled() -> None:
    """Events: cannot be taken back from the discard pile by recycling."""
    state = table([["passport_uk", "sunscreen", "umbrella"], ["passport_usa"]],
                  discard=["lost_luggage", "phrasebook"])
    play(state, (0, "recycle"))
    assert state.legal_actions(0) == ["take phrasebook"]
    only_events = table([["passport_uk", "sunscreen", "umbrella"], ["x"]], discard=["lost_luggage"])
    assert "recycle" not in only_events.legal_actions(0)


def test_lost_luggage_everyone_loses_a_random_card() -> None:
    """Lost Luggage (rules/DATA.md 1.4.4 E2): "Every player discards 1 random card from their
    hand (passports may be lost)". Never a forbidden item: those leave a hand only as the
    rulebook's "get rid of one" action."""
    state = table([["passport_uk"], ["passport_usa", "exotic_pet"], ["umbrella", "exotic_pet"]],
                  home=["france", "japan", "india"], deck=[FILLER, "umbrella", "lost_luggage"])
    play(state, (0, "draw"))
    assert state.hands[0] == ["umbrella"]  # the passport was the only card: lost
    assert state.hands[1] == ["exotic_pet"]
    assert state.hands[2] == ["exotic_pet"]
    assert sorted(state.discard) == ["lost_luggage", "passport_uk", "passport_usa", "umbrella"]


def test_a_passport_lost_to_the_luggage_can_be_recycled() -> None:
    """FAQ Travelling: "If you lose your passport, you can always trade for or steal a new
    one"; one on the discard pile can also be recycled (Action 2)."""
    state = table([["sunscreen", "umbrella", "phrasebook"], ["x"]], discard=["passport_uk"])
    play(state, (0, "recycle"), (0, "take passport_uk"), (0, "pay phrasebook sunscreen"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]


def test_currency_exchange_is_a_simultaneous_choice() -> None:
    """Currency Exchange: every player passes a card of their choice to the left; nobody
    sees another's choice before all have chosen."""
    state = table([["passport_uk", "sunscreen"], ["passport_usa", "umbrella"], ["phrasebook"]],
                  home=["france", "japan", "india"], deck=[FILLER, "hiking_boots", "currency_exchange"])
    play(state, (0, "draw"))
    assert state.phase == "exchange" and state.to_act() == (0, 1, 2)
    play(state, (1, "exchange umbrella"))
    assert state.to_act() == (0, 2)
    assert state.observation(0)["pending"]["mine"] is None
    assert state.observation(1)["pending"]["mine"] == "umbrella"
    play(state, (0, "exchange sunscreen"), (2, "exchange phrasebook"))
    assert sorted(state.hands[1]) == ["passport_usa", "sunscreen"]
    assert sorted(state.hands[2]) == ["umbrella"]
    assert sorted(state.hands[0]) == ["hiking_boots", "passport_uk", "phrasebook"]
    assert state.current == 1


def test_civil_unrest_replaces_the_centre_country() -> None:
    state = table([["passport_uk"], ["passport_usa"]], deck=[FILLER, FILLER, "civil_unrest"])
    play(state, (0, "draw"))
    assert state.centre not in ("germany", "france", "japan")
    assert "germany" in state.aside and len(state.aside) == 10


# ----- special items ----------------------------------------------------------------------
def steal_reaching(victim_hand: list[str]) -> ItchyFeetState:
    state = table([["passport_uk", "sunscreen"], victim_hand], specials=True)
    return play(state, (0, "steal"), (0, "victim 1"), (0, "pay sunscreen"))


def test_faq_mousetrap_ends_the_interrupted_players_turn() -> None:
    """FAQ Special items: interrupting another player's action with a special item such as
    the Mousetrap ends their turn."""
    state = steal_reaching(["passport_usa", "mousetrap", "umbrella"])
    assert state.to_act() == (1,) and state.legal_actions(1) == ["allow", "mousetrap"]
    play(state, (1, "mousetrap"))
    assert sorted(state.hands[1]) == ["passport_usa", "umbrella"]
    assert state.hands[0] == ["passport_uk"]
    assert state.discard == ["sunscreen", "mousetrap"]
    assert state.current == 1 and state.phase == "action"


def test_reaction_window_opens_without_a_reaction_card() -> None:
    """Reaction window: opened for every aimed action, so it reveals nothing."""
    state = steal_reaching(["passport_usa", "umbrella"])
    assert state.legal_actions(1) == ["allow"]
    play(state, (1, "allow"))
    assert len(state.hands[0]) == 2 and state.current == 1


def test_mousetrap_answers_a_trade_offer() -> None:
    state = table([["passport_uk", "sunscreen"], ["passport_usa", "mousetrap"]])
    offer(state, 1, ["sunscreen"], ["umbrella"])
    assert state.legal_actions(1) == ["mousetrap", "refuse"]
    play(state, (1, "mousetrap"))
    assert state.current == 1  # the proposer's turn ended, unlike after a refusal


def test_travel_insurance_keeps_the_card() -> None:
    state = steal_reaching(["travel_insurance"])
    assert state.legal_actions(1) == ["allow", "insurance"]
    play(state, (1, "insurance"))
    assert state.hands[0] == ["passport_uk"] and state.current == 1
    assert state.discard == ["sunscreen", "travel_insurance"]


def test_faq_moms_credit_card_is_an_item_not_a_passport() -> None:
    """FAQ: Mom's Credit Card cannot replace a passport or a postcard; it stands in for an
    item when travelling and is discarded with the others."""
    state = table([["moms_credit_card", "phrasebook", "umbrella"], ["passport_usa"]])
    assert not any(a.startswith("visit") for a in state.legal_actions(0))
    state = table([["passport_uk", "moms_credit_card", "phrasebook", "umbrella"], ["x"]])
    assert [a for a in state.legal_actions(0) if a.startswith("visit")] == [
        "visit france card=local_currency"]
    play(state, (0, "visit france card=local_currency"))
    assert sorted(state.discard) == ["moms_credit_card", "phrasebook", "umbrella"]
    assert state.home_visited[0]


def test_faq_local_guide_never_uses_the_discard_pile() -> None:
    """FAQ: Local Guide cannot be used on the discard pile: it takes the named item from a
    player who holds one, never from the pile."""
    state = table([["passport_uk", "local_guide"], ["passport_usa"], ["umbrella", "x"]],
                  home=["france", "japan", "india"], discard=["umbrella"])
    play(state, (0, "play local_guide umbrella"))
    assert state.to_act() == (2,)  # the only holder: no choice to make
    play(state, (2, "allow"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert state.discard == ["umbrella", "local_guide"]
    nobody = table([["passport_uk", "local_guide"], ["passport_usa"]], discard=["umbrella"])
    play(nobody, (0, "play local_guide umbrella"))
    assert nobody.hands[0] == ["passport_uk"] and nobody.current == 1


def test_local_guide_takes_from_the_holder_the_user_picks() -> None:
    """Local Guide (rules/DATA.md 1.4.4 S3): "Name an item; take it from any player who has
    it (that player must give it)": the user picks among the holders, who all show one; not
    the first holder clockwise."""
    state = table([["passport_uk", "local_guide"], ["umbrella", "x"], ["passport_usa"],
                   ["umbrella", "umbrella"]], home=["france", "japan", "india", "usa"])
    play(state, (0, "play local_guide umbrella"))
    assert state.phase == "guide" and state.to_act() == (0,)
    assert state.legal_actions(0) == ["from 1", "from 3"]
    assert state.observation(2)["pending"] == {"item": "umbrella", "holders": [1, 3]}
    assert state.known[1] == ["umbrella"] and state.known[3] == ["umbrella"]
    play(state, (0, "from 3"))
    assert state.to_act() == (3,)  # its reaction window
    play(state, (3, "allow"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert state.hands[1] == ["umbrella", "x"] and state.hands[3] == ["umbrella"]
    assert state.current == 1


def test_faq_trading_post_only_targets_players() -> None:
    """FAQ: Trading Post cannot be used on the discard pile; it swaps with a player, whose
    hand the user sees."""
    state = table([["passport_uk", "trading_post", "sunscreen"], ["passport_usa", "umbrella"]],
                  discard=["phrasebook"])
    posts = [a for a in state.legal_actions(0) if "trading_post" in a]
    assert posts == ["play trading_post 1"]
    play(state, (0, "play trading_post 1"), (1, "allow"))
    assert state.observation(0)["pending"]["their_hand"] == ["passport_usa", "umbrella"]
    assert state.observation(1)["pending"]["their_hand"] is None
    play(state, (0, "swap sunscreen for=umbrella"))
    assert sorted(state.hands[0]) == ["passport_uk", "umbrella"]
    assert sorted(state.hands[1]) == ["passport_usa", "sunscreen"]


def test_faq_poorly_drawn_map_never_touches_the_centre() -> None:
    """FAQ: Poorly Drawn Map cannot be used on the centre country."""
    state = table([["passport_uk", "poorly_drawn_map"], ["passport_usa"]])
    maps = [a for a in state.legal_actions(0) if "map" in a]
    assert maps == ["play poorly_drawn_map 1", "play poorly_drawn_map aside"]
    play(state, (0, "play poorly_drawn_map 1"), (1, "allow"))
    assert state.home[:2] == ["japan", "france"] and state.centre == "germany"
    aside = table([["passport_uk", "poorly_drawn_map"], ["passport_usa"]])
    play(aside, (0, "play poorly_drawn_map aside"))
    assert aside.home[0] not in ("france", "germany") and "france" in aside.aside


def test_extra_baggage_raises_the_hand_limit() -> None:
    hand = ["passport_uk", "extra_baggage", *FRANCE, "sunscreen", "sunscreen", "sunscreen"]
    state = table([hand, ["x"]])
    play(state, (0, "draw"))
    assert len(state.hands[0]) == 9 and state.current == 1


def test_frequent_flyer_draws_two() -> None:
    state = table([["passport_uk", "frequent_flyer"], ["x"]], deck=[FILLER, "umbrella", "phrasebook"])
    play(state, (0, "play frequent_flyer"))
    assert sorted(state.hands[0]) == ["passport_uk", "phrasebook", "umbrella"]


def test_free_wifi_puts_the_rest_back_in_the_chosen_order() -> None:
    """Free Wi-Fi (rules/DATA.md 1.4.4 S8): "Look at the top 3 cards of the draw pile, take 1,
    put the rest back in any order." An event seen this way is not drawn, so not taken."""
    wifi = table([["passport_uk", "free_wifi"], ["x"]],
                 deck=[FILLER, "hiking_boots", "lost_luggage", "umbrella"])
    play(wifi, (0, "play free_wifi"))
    assert wifi.observation(0)["pending"]["cards"] == ["umbrella", "lost_luggage", "hiking_boots"]
    assert wifi.observation(1)["pending"]["cards"] is None
    assert wifi.legal_actions(0) == [
        "take hiking_boots top=lost_luggage,umbrella", "take hiking_boots top=umbrella,lost_luggage",
        "take umbrella top=hiking_boots,lost_luggage", "take umbrella top=lost_luggage,hiking_boots"]
    play(wifi, (0, "take umbrella top=hiking_boots,lost_luggage"))
    assert sorted(wifi.hands[0]) == ["passport_uk", "umbrella"]
    assert wifi.deck == [FILLER, "lost_luggage", "hiking_boots"]  # top = end
    # the player knows the top of the deck until it is drawn; nobody else does
    assert wifi.observation(0)["deck_top"] == ["hiking_boots", "lost_luggage"]
    assert wifi.observation(1)["deck_top"] == []
    play(wifi, (1, "draw"))
    assert "hiking_boots" in wifi.hands[1]
    assert wifi.observation(0)["deck_top"] == ["lost_luggage"]


def test_free_wifi_top_cards_survive_the_players_resample() -> None:
    """The cards a Free Wi-Fi put back are known to that player, so its resampled worlds keep
    them on top; another player's worlds re-deal them, and the peeker then knows the new top."""
    import random

    wifi = table([["passport_uk", "free_wifi"], ["x", "y"]],
                 deck=["power_adapter", FILLER, "phrasebook", "hiking_boots", "winter_coat",
                       "umbrella"])
    play(wifi, (0, "play free_wifi"), (0, "take umbrella top=hiking_boots,winter_coat"))
    for k in range(8):
        mine = wifi.resample_hidden(0, random.Random(k))
        assert isinstance(mine, ItchyFeetState)
        assert mine.deck[-2:] == ["winter_coat", "hiking_boots"]
        assert mine.observation(0) == wifi.observation(0)
        theirs = wifi.resample_hidden(1, random.Random(k))
        assert isinstance(theirs, ItchyFeetState)
        assert theirs.observation(0)["deck_top"] == theirs.deck[-1:-3:-1]
        assert theirs.observation(1) == wifi.observation(1)


# ----- forbidden items --------------------------------------------------------------------
def test_no_travel_with_a_forbidden_item() -> None:
    """Forbidden items: a player cannot travel with one in hand."""
    state = table([["passport_uk", *FRANCE, "exotic_pet"], ["x"]])
    assert not any(a.startswith("visit") for a in state.legal_actions(0))


def test_dispose_discards_it_with_another_card_as_the_action() -> None:
    """Forbidden items: discard one more card with it; both go to the discard pile; this is
    the turn's action."""
    state = table([["passport_uk", "exotic_pet", "sunscreen"], ["x"]])
    assert [a for a in state.legal_actions(0) if a.startswith("dispose")] == [
        "dispose exotic_pet with=sunscreen"]
    play(state, (0, "dispose exotic_pet with=sunscreen"))
    assert state.discard == ["exotic_pet", "sunscreen"] and state.current == 1


def test_faq_forbidden_cannot_pay_for_another_forbidden() -> None:
    """FAQ: you cannot discard a forbidden item to get rid of another forbidden item."""
    state = table([["passport_uk", "exotic_pet", "undeclared_cheese"], ["x"]])
    assert not any(a.startswith("dispose") for a in state.legal_actions(0))


def test_faq_forbidden_cannot_pay_for_recycle_or_steal() -> None:
    """FAQ: a forbidden item cannot pay for Recycle or Steal."""
    state = table([["passport_uk", "exotic_pet", "undeclared_cheese"], ["x"]], discard=["umbrella"])
    assert "recycle" not in state.legal_actions(0) and "steal" not in state.legal_actions(0)
    state = table([["passport_uk", "exotic_pet", "sunscreen"], ["x"]])
    play(state, (0, "steal"), (0, "victim 1"))
    assert state.legal_actions(0) == ["pay sunscreen"]


def test_faq_forbidden_is_never_the_hand_limit_discard() -> None:
    """FAQ: if your hand is full and you must discard, it cannot be a forbidden item."""
    hand = ["passport_uk", "exotic_pet", "suspicious_powder", *FRANCE, "sunscreen"]
    state = table([hand, ["x"]], deck=[FILLER, "umbrella"])
    play(state, (0, "draw"))
    assert state.phase == "discard"
    assert not any(c in a for a in state.legal_actions(0) for c in data.FORBIDDEN)


def test_faq_forbidden_items_can_be_stolen() -> None:
    """FAQ: forbidden items can be stolen from you."""
    state = table([["passport_uk", "sunscreen"], ["exotic_pet"]], specials=False)
    play(state, (0, "steal"), (0, "victim 1"), (0, "pay sunscreen"))
    assert "exotic_pet" in state.hands[0]


def test_faq_forbidden_items_can_be_traded_away() -> None:
    """FAQ: you may trade a forbidden item away if someone agrees."""
    state = table([["passport_uk", "exotic_pet"], ["passport_usa", "umbrella"]])
    offer(state, 1, ["exotic_pet"], ["umbrella"])
    play(state, (1, "accept umbrella"))
    assert "exotic_pet" in state.hands[1] and "umbrella" in state.hands[0]


# ----- postcards --------------------------------------------------------------------------
def test_four_postcards_win_at_once_even_off_turn() -> None:
    """Postcards: whoever collects 4 wins immediately, even when it is not their turn."""
    cards = ["postcard_paris", "postcard_rio", "postcard_tokyo"]
    state = table([["passport_uk", "postcard_cairo"], ["passport_usa", *cards, "umbrella"]])
    offer(state, 1, ["postcard_cairo"], ["umbrella"])
    play(state, (1, "accept umbrella"))
    assert state.is_terminal() and state.winner == 1
    assert state.outcome().ranks == [2, 1]


def test_postcards_can_be_asked_for() -> None:
    state = table([["passport_uk", "sunscreen"], ["passport_usa", "postcard_rio"]])
    offer(state, 1, ["sunscreen"], ["postcard"])
    assert state.legal_actions(1) == ["accept postcard_rio", "refuse"]


# ----- characters -------------------------------------------------------------------------
def with_character(state: ItchyFeetState, seat: int, character: str) -> ItchyFeetState:
    state.characters[seat] = character
    state._legal = {}
    return state


def test_characters_are_never_traded() -> None:
    """Characters: face up in front of the player, never traded (they are not in hands)."""
    state = GAME.new_state(3, 4, {"characters": True})
    assert isinstance(state, ItchyFeetState)
    assert all(c not in hand for hand in state.hands for c in data.CHARACTERS)
    assert state.observation(0)["characters"] == state.characters


def test_faq_smuggler_gives_forbidden_only_from_own_hand() -> None:
    """FAQ Characters: the Smuggler may give away a forbidden item only from their own hand
    (a free action, once a turn)."""
    state = with_character(table([["passport_uk", "exotic_pet"], ["x", "suspicious_powder"]],
                                 specials=False), 0, "smuggler")
    assert [a for a in state.legal_actions(0) if a.startswith("smuggle")] == [
        "smuggle exotic_pet to=1"]
    play(state, (0, "smuggle exotic_pet to=1"))
    assert state.current == 0 and state.phase == "action"
    assert "exotic_pet" in state.hands[1]
    assert not any(a.startswith("smuggle") for a in state.legal_actions(0))


@pytest.mark.parametrize(
    ("character", "check"),
    [
        ("packrat", "draw2"),
        ("recycler", "recycle1"),
        ("pickpocket", "free_steal"),
        ("backpacker", "limit9"),
    ],
)
def test_character_abilities(character: str, check: str) -> None:
    state = with_character(table([["passport_uk", "sunscreen", *GERMANY], ["x", "y"]]), 0, character)
    state.deck = [FILLER, "umbrella", "phrasebook"]
    if check == "draw2":
        play(state, (0, "draw"))
        assert len(state.hands[0]) == 7
    elif check == "recycle1":
        state.discard = ["phrasebook"]
        play(state, (0, "recycle"), (0, "take phrasebook"))
        assert "pay sunscreen" in state.legal_actions(0)
    elif check == "free_steal":
        play(state, (0, "steal"), (0, "victim 1"), (1, "allow"))
        assert len(state.hands[0]) == 6 and state.discard == []
    else:
        state.hands[0] += ["umbrella", "umbrella", "umbrella"]
        play(state, (0, "draw"))
        assert len(state.hands[0]) == 9 and state.current == 1


def test_diplomat_draws_the_bonus_on_another_players_turn() -> None:
    state = with_character(table([["passport_uk", "sunscreen"], ["passport_usa", "umbrella"]]),
                           1, "diplomat")
    state.deck = [FILLER, "phrasebook", "hiking_boots"]
    offer(state, 1, ["sunscreen"], ["umbrella"])
    play(state, (1, "accept umbrella"))
    assert sorted(state.hands[1]) == ["passport_usa", "phrasebook", "sunscreen"]


# ----- bucket list ------------------------------------------------------------------------
def bucket(hands: list[list[str]], pile: list[str]) -> ItchyFeetState:
    state = position(hands, variant="bucket_list")
    state.pile = list(pile)
    state.collection = [[] for _ in hands]
    return state


def test_bucket_list_setup_leaves_out_characters_map_and_unrest() -> None:
    """Bucket List: all cards except characters, Poorly Drawn Map and Civil Unrest; all
    countries in one pile; starting hands never hold an event."""
    options = {"variant": "bucket_list", **ALL, "characters": True}
    for seed in range(10):
        state = GAME.new_state(3, seed, options)
        assert isinstance(state, ItchyFeetState)
        cards = state.deck + [c for h in state.hands for c in h]
        assert "poorly_drawn_map" not in cards and "civil_unrest" not in cards
        assert state.characters == [None] * 3
        assert sorted(state.pile) == sorted(data.COUNTRIES)
        assert not any(c in data.EVENT_SET for h in state.hands for c in h)


def test_bucket_list_first_player_by_passport() -> None:
    """Bucket List: the player whose passport's country is closest to the top country."""
    state = bucket([["passport_australia"], ["passport_france"]], ["japan", "germany"])
    assert state._first_player() == 1


def test_bucket_list_one_item_is_enough_and_most_countries_win() -> None:
    state = bucket([["passport_uk", "umbrella"], ["passport_usa"]], ["japan", "germany"])
    assert [a for a in state.legal_actions(0) if a.startswith("visit")] == [
        "visit germany item=umbrella"]
    play(state, (0, "visit germany item=umbrella"))
    assert state.collection[0] == ["germany"] and state.pile == ["japan"]
    state.hands[1] = ["passport_usa", "hiking_boots", "power_adapter"]
    state._legal = {}
    assert "steal_country 0 germany pay=power_adapter" in state.legal_actions(1)
    play(state, (1, "visit japan item=hiking_boots"))
    assert state.is_terminal() and state.outcome().ranks == [1, 1]


def test_bucket_list_countries_can_be_stolen() -> None:
    state = bucket([["passport_uk", "power_adapter"], ["passport_usa"]], ["japan", "brazil"])
    state.collection = [[], ["germany"]]
    play(state, (0, "steal_country 1 germany pay=power_adapter"))
    assert state.collection == [["germany"], []]
