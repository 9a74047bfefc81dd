"""Fields of a seat's observation that reach its tensor, found in real matches: Itchy Feet's
aimed card and country, Yaniv's previous round (``last_round``), Crazy 8s' ``hand_number`` and
previous hand (``last_hand``)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np

from arena import games
from arena.envs.encoding import Encoding, load
from arena.games import cards
from arena.games.itchy_feet.encoding import COUNTRIES, IDS

Obs = dict[str, Any]


def _seen(name: str, n: int, options: dict[str, Any], holds: Callable[[Obs], bool],
          prefer: str = "") -> tuple[Obs, np.ndarray, Encoding]:
    """The first observation that ``holds`` in random matches (seeds 0, 1, ...) whose seats
    play an action starting with ``prefer`` whenever they may; with its tensor."""
    game = games.get(name)
    enc = load(name, n, options)
    for seed in range(20):
        state = game.new_state(n, seed, options)
        rng = random.Random(seed)
        while to_act := state.to_act():
            for seat in range(n):
                obs = state.observation(seat)
                if holds(obs):
                    return obs, enc.encode(obs), enc
            legal = state.legal_actions(to_act[0])
            preferred = [a for a in legal if prefer and a.startswith(prefer)] or legal
            state.apply(to_act[0], preferred[rng.randrange(len(preferred))])
    raise AssertionError(f"{name}: no such observation in 20 matches: the test saw nothing")


def _block(enc: Encoding, name: str, tensor: np.ndarray) -> list[float]:
    i = [b.name for b in enc.blocks].index(name)
    at = enc.offsets[i]
    values: list[float] = tensor[at:at + enc.blocks[i].size].tolist()
    return values


def _one_hot(size: int, at: int) -> list[float]:
    return [1.0 if i == at else 0.0 for i in range(size)]


def _relative(obs: Obs, seat: int) -> int:
    return (seat - obs["seat"]) % obs["num_players"]


def test_itchy_feet_tells_the_item_an_aimed_action_is_about() -> None:
    everything = {"events": True, "specials": True, "forbidden": True, "postcards": True, "characters": True}
    obs, tensor, enc = _seen("itchy_feet", 2, everything, lambda o: o["phase"] == "react" and "card" in o["pending"],
                             prefer="smuggle")
    assert _block(enc, "pending_card", tensor) == _one_hot(len(IDS), IDS.index(obs["pending"]["card"]))
    assert _block(enc, "pending_kind", tensor)[5] == 1  # a smuggle
    obs, tensor, enc = _seen("itchy_feet", 2, {"specials": True}, lambda o: "item" in o["pending"],
                             prefer="play local_guide")
    assert _block(enc, "pending_card", tensor) == _one_hot(len(IDS), IDS.index(obs["pending"]["item"]))
    assert not any(_block(enc, "pending_country", tensor))


def test_itchy_feet_tells_the_country_a_steal_is_aimed_at() -> None:
    options = {"variant": "bucket_list", "specials": True}
    obs, tensor, enc = _seen("itchy_feet", 2, options, lambda o: "country" in o["pending"], prefer="steal_country")
    assert _block(enc, "pending_country", tensor) == _one_hot(len(COUNTRIES), COUNTRIES.index(obs["pending"]["country"]))
    assert not any(_block(enc, "pending_card", tensor))


def test_yaniv_tells_the_previous_rounds_showdown() -> None:
    obs, tensor, enc = _seen("yaniv", 3, {}, lambda o: bool(o["last_round"]) and o["last_round"]["assaf"] is not None)
    last, n = obs["last_round"], 3
    assert _block(enc, "last_caller", tensor) == _one_hot(n, _relative(obs, last["caller"]))
    assert _block(enc, "last_assaf", tensor) == _one_hot(n, _relative(obs, last["assaf"]))
    points = _block(enc, "last_points", tensor)
    hands = np.reshape(_block(enc, "last_hands", tensor), (n, -1))
    for seat in range(n):
        assert points[_relative(obs, seat)] == last["points"][seat]
        assert hands[_relative(obs, seat)].sum() == len(last["hands"][seat])
    first, tensor, enc = _seen("yaniv", 3, {}, lambda o: o["last_round"] is None)
    for name in ("last_caller", "last_assaf", "last_hands", "last_points", "last_halved", "last_wild_cards"):
        assert not any(_block(enc, name, tensor)), f"{name} before any round ended"


def test_yaniv_tells_the_halved_totals_and_the_cards_drawn_at_90() -> None:
    obs, tensor, enc = _seen("yaniv", 3, {"ninety_rule": True},
                             lambda o: bool(o["last_round"]) and bool(o["last_round"]["wild_cards"]))
    drew = {int(s): card for s, card in obs["last_round"]["wild_cards"].items()}
    wild = np.reshape(_block(enc, "last_wild_cards", tensor), (3, -1))
    pack = list(dict.fromkeys(cards.deck(jokers=2)))  # the block's cards, in their order
    for k in range(3):
        seat = (obs["seat"] + k) % 3
        assert wild[k].tolist() == (_one_hot(len(pack), pack.index(drew[seat])) if seat in drew else [0.0] * len(pack))
    obs, tensor, enc = _seen("yaniv", 2, {}, lambda o: bool(o["last_round"]) and bool(o["last_round"]["halved"]))
    halved = _block(enc, "last_halved", tensor)
    assert halved == [1.0 if (obs["seat"] + k) % 2 in obs["last_round"]["halved"] else 0.0 for k in range(2)]


def test_crazy_eights_tells_which_hand_is_played() -> None:
    several = {"target_score": 50}  # hands are dealt until a player has 50 penalty points
    obs, tensor, enc = _seen("crazy_eights", 2, several, lambda o: o["hand_number"] == 2)
    assert _block(enc, "hand_number", tensor) == [2.0]
    obs, tensor, enc = _seen("crazy_eights", 2, several, lambda o: o["hand_number"] == 0)
    assert _block(enc, "hand_number", tensor) == [0.0]


def test_crazy_eights_tells_the_previous_hands_result() -> None:
    several = {"target_score": 50}
    obs, tensor, enc = _seen("crazy_eights", 3, several, lambda o: o["last_hand"] is not None
                             and o["last_hand"]["winner"] is not None and o["seat"] != o["last_hand"]["winner"])
    last = obs["last_hand"]
    assert _block(enc, "last_winner", tensor) == _one_hot(3, _relative(obs, last["winner"]))
    points = _block(enc, "last_points", tensor)
    assert [points[_relative(obs, seat)] for seat in range(3)] == [float(p) for p in last["points"]]
    assert _block(enc, "last_blocked", tensor) == [0.0]
    # Two positions that differ only in the previous hand's result have different tensors.
    blocked = {**obs, "last_hand": {"winner": None, "points": [p + 1 for p in last["points"]], "blocked": True}}
    other = enc.encode(blocked)
    assert not np.array_equal(tensor, other)
    assert not any(_block(enc, "last_winner", other))
    assert _block(enc, "last_blocked", other) == [1.0]
    obs, tensor, enc = _seen("crazy_eights", 3, several, lambda o: o["last_hand"] is None)
    for name in ("last_winner", "last_points", "last_blocked"):
        assert not any(_block(enc, name, tensor)), f"{name} before any hand ended"
