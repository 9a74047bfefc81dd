"""The Itchy Feet heuristic house bot: its trades and thefts, how its matches end, and its
strength against random play (fixed seeds).

Measured over 1000 two-player matches (seeds 0-999): win rate 0.9705 against random (a shared
first place counts 1/k). The test plays 200 and allows 4 points less. Heuristic against
heuristic, 1000 seeds at each of 2-6 players end by the rulebook (a winner) every time
(``python -m bench.itchy_feet_endings --seeds 1000``); the test plays 20 per player count."""

from __future__ import annotations

import pytest
from test_itchy_feet import FRANCE, play, position  # the same directory (rootdir import mode)

from arena.games.house import evaluate
from arena.games.house import play as play_match
from arena.games.itchy_feet.bots import ItchyFeetHeuristic
from arena.games.itchy_feet.core import MAX_OFFERS
from arena.games.itchy_feet.state import ItchyFeetState


def choose(state: ItchyFeetState, seat: int | None = None) -> str:
    seat = state.to_act()[0] if seat is None else seat
    return ItchyFeetHeuristic(seat, 1).act(state.observation(seat), state.legal_actions(seat))


def respond(state: ItchyFeetState) -> ItchyFeetState:
    """Let the bots play until the proposer's turn is settled."""
    while state.phase != "action":
        seat = state.to_act()[0]
        state.apply(seat, choose(state, seat))
    return state


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_heuristic_matches_end_by_the_rulebook(players: int) -> None:
    """Goal: "The first player to visit the central country wins." Heuristic bots reach it
    at every table size, long before the arena's stall bound (stall_rounds), which stays a
    safety net only."""
    for seed in range(20):
        state, _ = play_match("itchy_feet", ["heuristic"] * players, seed)
        assert isinstance(state, ItchyFeetState)
        assert state.winner is not None, f"seed {seed}: the stall bound ended the match"


def test_offers_three_cards_for_a_spare_passport() -> None:
    """FAQ Trading: "you may trade 3 of your cards for 2 of someone else's if both players
    agree". Without a passport the bot offers three cards it can spare for one of the two
    passports seat 1 is known to hold; seat 1 gains by it and agrees."""
    state = position([["phrasebook", "local_currency", "sunscreen", "sunscreen", "sunscreen"],
                      ["passport_usa", "passport_japan", "umbrella"]], centre="india")
    state.known[1] = ["passport_japan", "passport_usa"]
    bot = ItchyFeetHeuristic(0, 1)
    moves = []
    while state.phase != "respond":
        moves.append(bot.act(state.observation(0), state.legal_actions(0)))
        state.apply(0, moves[-1])
    assert moves == ["trade", "partner 1", "give sunscreen", "give sunscreen", "give sunscreen",
                     "want passport", "propose"]
    assert choose(state, 1).startswith("accept passport_")
    respond(state)
    assert sum(1 for c in state.hands[0] if c.startswith("passport_")) == 1
    assert state.hands[1].count("sunscreen") == 3


def test_refuses_to_give_its_only_needed_item_for_ballast() -> None:
    """Seat 1 heads for Japan (power adapter, umbrella, hiking boots): its one umbrella is
    not for sale for a sunscreen, but a duplicate is."""
    state = position([["passport_uk", "phrasebook", "local_currency", "sunscreen"],
                      ["passport_usa", "umbrella", "power_adapter"]])
    play(state, (0, "trade"), (0, "partner 1"), (0, "give sunscreen"), (0, "want umbrella"),
         (0, "propose"))
    assert choose(state, 1) == "refuse"
    state = position([["passport_uk", "phrasebook", "local_currency", "hiking_boots"],
                      ["passport_usa", "umbrella", "umbrella", "power_adapter"]])
    play(state, (0, "trade"), (0, "partner 1"), (0, "give hiking_boots"), (0, "want umbrella"),
         (0, "propose"))
    assert choose(state, 1) == "accept umbrella"


def test_draws_while_the_deck_may_hold_what_it_misses() -> None:
    """Action 1 against action 4: with the missing umbrellas unseen, the deck is the better
    bet; with three of them known to be in seat 1's hand of four, stealing is."""
    hands = [["passport_uk", "phrasebook", "local_currency", "sunscreen"],
             ["passport_usa", "umbrella", "umbrella", "umbrella"]]
    state = position(hands)
    state.offers = MAX_OFFERS  # no trade left this turn
    assert choose(state) == "draw"
    state.known[1] = ["umbrella", "umbrella", "umbrella"]
    state._legal = {}
    assert choose(state) == "steal"


def test_heuristic_beats_random_two_players() -> None:
    result = evaluate("itchy_feet", "heuristic", "random", 2, 200)
    assert result["win_rate"] >= 0.93


def test_heuristic_beats_random_with_every_expansion() -> None:
    options = {"events": True, "specials": True, "forbidden": True, "postcards": True,
               "characters": True}
    result = evaluate("itchy_feet", "heuristic", "random", 2, 60, options, first_seed=1000)
    assert result["win_rate"] >= 0.85


def test_heuristic_travels_when_it_can() -> None:
    state = position([["passport_uk", *FRANCE], ["passport_usa", "umbrella"]])
    assert choose(state) == "visit france"


def test_heuristic_beats_random_in_the_bucket_list() -> None:
    """Bucket List: measured 0.823 over 300 matches (seeds 0-299); luck weighs more here,
    since any one item opens the top country and countries change hands."""
    result = evaluate("itchy_feet", "heuristic", "random", 2, 150, {"variant": "bucket_list"})
    assert result["win_rate"] >= 0.75


def test_bucket_list_matches_end_by_the_rulebook() -> None:
    """Bucket List: the match ends when the pile of countries is empty. The bot travels
    before it steals a country, so countries stolen back and forth never stall the trip."""
    for players in (2, 4, 6):
        for seed in range(10):
            state, _ = play_match("itchy_feet", ["heuristic"] * players, seed,
                                  {"variant": "bucket_list"})
            assert isinstance(state, ItchyFeetState)
            assert not state.pile, f"{players} players, seed {seed}: stalled"
