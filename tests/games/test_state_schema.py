"""Every game's state schema (``arena.games.schema``), over every registered game: a state's
own JSON passes at any point of a match (resampled ones too), and the edits an attacker makes
(a player count of twenty million, a list stretched 10^5 long, a card no pack holds, a value
of the wrong type, a seat that does not exist, a phase no game has) are refused with a
ValueError by the check alone, before any game code sees the state."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from arena import games
from arena.games import BadState
from arena.games.schema import check_state

NAMES = games.names()


def sample_states(name: str, matches: int = 2) -> list[dict[str, Any]]:
    """JSON of states along random matches at the smallest and largest table, each option set,
    with a resampled state beside each one."""
    game = games.get(name)
    found = []
    for options in [{}, *game.test_option_sets]:
        counts = game.player_counts(game.resolve_options(options))
        for n in sorted({counts.start, counts.stop - 1}):
            for seed in range(matches):
                state, rng = game.new_state(n, seed, options), random.Random(seed)
                while True:
                    found.append(state.to_json())
                    seat = state.to_act()[0] if state.to_act() else 0
                    found.append(state.resample_hidden(seat, rng).to_json())
                    if state.is_terminal():
                        break
                    seat = state.to_act()[0]
                    state.apply(seat, rng.choice(state.legal_actions(seat)))
    return found


@pytest.mark.parametrize("name", NAMES)
def test_a_states_own_json_passes_at_every_point_of_a_match(name: str) -> None:
    game = games.get(name)
    for data in sample_states(name):
        check_state(game, data)
        assert game.state_from_json(data).to_json() == data


@pytest.mark.parametrize("name", NAMES)
def test_every_game_declares_its_schema(name: str) -> None:
    """The declarations name real attributes, and the packs hold the cards of a fresh deal."""
    game = games.get(name)
    cls = game.state_class
    state = game.new_state(game.min_players, 1).to_json()["state"]
    declared = [*cls.card_fields, *cls.seat_fields, *cls.per_seat_fields, *cls.choices]
    assert cls.card_fields and cls.per_seat_fields and "phase" in cls.choices
    assert set(declared) <= set(state), sorted(set(declared) - set(state))
    assert cls.packs(game.min_players, game.resolve_options({}))


# ----- the edits -------------------------------------------------------------------------------
def midgame(name: str, num_players: int, seed: int, moves: int = 12) -> dict[str, Any]:
    """A state a few random decisions in: every game's piles and hands are dealt by then."""
    game = games.get(name)
    state, rng = game.new_state(num_players, seed), random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state.to_json()


Edit = Callable[[dict[str, Any], type], None]  # edits a state's JSON in place


def set_players(value: Any) -> Edit:
    def edit(data: dict[str, Any], cls: type) -> None:
        data["state"]["num_players"] = value
    return edit


def first_list(data: dict[str, Any], cls: Any) -> list[Any]:
    """The first card attribute that holds a non-empty list of cards (or of lists of cards)."""
    for name in cls.card_fields:
        value = data["state"][name]
        if isinstance(value, list):
            inner = next((v for v in value if isinstance(v, list) and v), None)
            if inner is not None:
                return inner
            if value and not isinstance(value[0], list):
                return value
    raise AssertionError("no card list")


def stretch(data: dict[str, Any], cls: Any) -> None:
    cards = first_list(data, cls)
    cards.extend([cards[0]] * 100_000)


def unknown_card(data: dict[str, Any], cls: Any) -> None:
    cards = first_list(data, cls)
    cards[0] = 99_999 if isinstance(cards[0], int) else "ZZ"


def unknown_phase(data: dict[str, Any], cls: Any) -> None:
    data["state"]["phase"] = "no_such_phase"


def seat_out_of_range(data: dict[str, Any], cls: Any) -> None:
    for name in cls.seat_fields:
        if isinstance(data["state"][name], int):
            data["state"][name] = data["state"]["num_players"]
            return
    pytest.skip("no attribute of this game names a seat")


def per_seat_short(data: dict[str, Any], cls: Any) -> None:
    data["state"][cls.per_seat_fields[0]].pop()


def huge_int(data: dict[str, Any], cls: Any) -> None:
    name = next(k for k, v in data["state"].items() if type(v) is int and k not in ("num_players", "seed", "moves"))
    data["state"][name] = 10**9


def nested_deep(data: dict[str, Any], cls: Any) -> None:
    deep: Any = "x"
    for _ in range(50):
        deep = [deep]
    first_list(data, cls).append(deep)


def setter(*path: Any, value: Any) -> Edit:
    def edit(data: dict[str, Any], cls: Any) -> None:
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def drop_attribute(data: dict[str, Any], cls: Any) -> None:
    data["state"].pop(cls.per_seat_fields[0])


EDITS: dict[str, Edit] = {
    "players huge": set_players(20_000_000),
    "players 10**9": set_players(10**9),
    "players zero": set_players(0),
    "players negative": set_players(-3),
    "players a string": set_players("2"),
    "players a float": set_players(2.0),
    "players a bool": set_players(True),
    "players null": set_players(None),
    "a list 10^5 long": stretch,
    "a card no pack holds": unknown_card,
    "a phase no game has": unknown_phase,
    "a phase that is a list": setter("state", "phase", value=["play"]),
    "a seat that does not exist": seat_out_of_range,
    "one seat short": per_seat_short,
    "an int out of range": huge_int,
    "nested deeply": nested_deep,
    "an unknown attribute": setter("state", "extra", value=1),
    "a missing attribute": drop_attribute,
    "an unknown option": setter("state", "options", "no_such_option", value=1),
    "options not an object": setter("state", "options", value=[]),
    "moves negative": setter("state", "moves", value=-1),
    "moves past the cap": setter("state", "moves", value=10**12),
    "seed past 64 bits": setter("state", "seed", value=2**80),
    "another version": setter("version", value="999"),
    "another game": setter("game", value="chess"),
    "state not an object": setter("state", value=[1, 2]),
    "an unknown envelope key": setter("extra", value=1),
}


def wrong_types(data: dict[str, Any]) -> list[tuple[str, Any]]:
    """For every attribute, a value of another JSON type than the state's own."""
    swaps: list[tuple[str, Any]] = []
    for name, value in data["state"].items():
        if name == "options" or value is None:
            continue
        if isinstance(value, bool):
            swaps.append((name, "yes"))
        elif isinstance(value, (int, float)):
            swaps.append((name, "1"))
        elif isinstance(value, str):
            swaps.append((name, 5))
        elif isinstance(value, list):
            swaps.append((name, "x"))
        elif isinstance(value, dict):
            swaps.append((name, [1]))
    return swaps


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("edit", list(EDITS), ids=list(EDITS))
def test_typical_edits_are_refused_before_game_code_runs(name: str, edit: str) -> None:
    game = games.get(name)
    data = midgame(name, game.min_players, 3)
    EDITS[edit](data, game.state_class)
    with pytest.raises(BadState) as refused:
        check_state(game, data)
    assert len(str(refused.value)) < 300
    with pytest.raises(ValueError):
        game.state_from_json(data)


@pytest.mark.parametrize("name", NAMES)
def test_a_value_of_the_wrong_type_is_refused_in_every_attribute(name: str) -> None:
    game = games.get(name)
    fresh = midgame(name, game.max_players, 5)
    for attribute, value in wrong_types(fresh):
        data = copy.deepcopy(fresh)
        data["state"][attribute] = value
        with pytest.raises(BadState):
            check_state(game, data)


def test_the_reported_attack_is_refused_at_once() -> None:
    """The reported attack: Bastard Brag with num_players 2*10^7 took seconds and hundreds of MB."""
    game = games.get("bastard_brag")
    data = game.new_state(2, 1).to_json()
    data["state"]["num_players"] = 20_000_000
    with pytest.raises(BadState, match="20000000 players not allowed"):
        game.state_from_json(data)
