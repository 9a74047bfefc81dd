"""Each game's drawing for the replay viewer (``arena/games/<game>/drawing.py``), on real
states of seeded matches: every seat is at the table with its hand as faces in the full view
and in its own view, and as backs only (with their count) in another seat's view; the cards
are named as in the game's card data; the last play is marked."""

from __future__ import annotations

import random

import pytest

from arena import games
from arena.games import drawing
from arena.games.backpacker import drawing as bp_drawing
from arena.games.backpacker.deck import COUNTRIES, EVENTS
from arena.games.card_trip_europe.locations import LOCATIONS
from arena.games.itchy_feet import data as itchy

PLAYERS = 3


def _positions(name: str, seed: int = 7, limit: int = 400):
    """The states of one seeded match with random legal actions, after each action."""
    state = games.get(name).new_state(PLAYERS, seed, None)
    rng = random.Random(seed)
    yield state
    for _ in range(limit):
        if state.is_terminal():
            return
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
        yield state


def _names(area: dict) -> list[str]:
    return [str(c.get("code") or c.get("id")) for c in area["cards"]]


def _hand(table: dict, seat: int) -> dict:
    return next(a for a in table["seats"][seat]["areas"] if a["name"] == "hand")


@pytest.mark.parametrize("name", games.names())
def test_every_seat_sees_its_own_hand_and_only_the_backs_of_the_others(name):
    drawn = 0
    for state in _positions(name):
        full = drawing.draw(name, state.to_json()["state"], None)
        assert full is not None and [s["seat"] for s in full["seats"]] == list(range(PLAYERS))
        for seat in range(PLAYERS):
            mine = drawing.draw(name, state.observation(seat), seat)
            assert mine is not None
            own = _hand(mine, seat)
            assert sorted(_names(own)) == sorted(_names(_hand(full, seat)))
            assert not own.get("hidden")
            for other in set(range(PLAYERS)) - {seat}:
                theirs = _hand(mine, other)
                assert theirs["cards"] == [] and theirs.get("hidden", 0) == len(_hand(full, other)["cards"])
        drawn += 1
    assert drawn > 10


def test_durak_turns_the_trump_up_under_the_stock():
    state = next(_positions("durak"))
    table = drawing.draw("durak", state.observation(1), 1)
    stock = next(a for a in table["areas"] if a["name"] == "stock")
    assert _names(stock) == [state.trump_card] and stock["count"] == len(state.stock)
    assert ["trump", ] == [f[0] for f in table["facts"] if f[0] == "trump"]
    assert all("window" not in f[0] and "asked" not in f[0] for f in table["facts"])


def test_card_games_name_their_cards_as_the_card_data_does():
    backpacker = drawing.draw("backpacker", next(_positions("backpacker")).to_json()["state"], None)
    faces = [c for s in backpacker["seats"] for a in s["areas"] for c in a["cards"]]
    countries = [c for c in faces if c["kind"] == "country"]
    assert countries and all(c["label"] == COUNTRIES[c["id"]].name and c["colour"] and c["title"] for c in countries)
    trip = drawing.draw("card_trip_europe", next(_positions("card_trip_europe")).to_json()["state"], None)
    location = trip["seats"][0]["areas"][0]["cards"][0]
    number = int(location["id"])
    assert location["label"] == f"{number} {LOCATIONS[number].name}" and location["sub"] == "\u2605" * LOCATIONS[number].energy
    itchy_table = drawing.draw("itchy_feet", next(_positions("itchy_feet")).to_json()["state"], None)
    passports = [c for s in itchy_table["seats"] for c in s["areas"][0]["cards"] if c["kind"] == "passport"]
    assert passports and all(c["label"] == "Passport " + itchy.NAMES[c["id"]] for c in passports)


def test_the_last_play_is_marked_and_only_it():
    before = after = None
    for state in _positions("crazy_eights"):
        table = drawing.draw("crazy_eights", state.to_json()["state"], None)
        if before is not None and len(table["areas"][0]["cards"]) and \
                table["areas"][0]["cards"][-1] != before["areas"][0]["cards"][-1]:
            after = drawing.highlight(table, before)
            break
        before = table
    assert after is not None
    marked = [c for a in after["areas"] for c in a["cards"] if c.get("last")]
    assert marked == [after["areas"][0]["cards"][-1]]
    assert not [c for s in after["seats"] for a in s["areas"] for c in a["cards"] if c.get("last")]


def test_a_game_without_a_drawing_has_none():
    assert drawing.draw("no_such_game", {}, None) is None


def test_every_backpacker_event_card_shows_its_own_rule_on_hover():
    """Each event card's hover text is what that card does (backpacker 9), not only what its
    colour's category does: two cards of one colour read differently."""
    titles = {event_id: bp_drawing.card(event_id)["title"] for event_id in EVENTS}
    assert len(set(titles.values())) == len(EVENTS)
    assert "3 goes" in titles["out_of_cash"] and "miss a go" in titles["no_flight"]
    assert all(EVENTS[e].name in t and f"backpacker {EVENTS[e].section}" in t for e, t in titles.items())
