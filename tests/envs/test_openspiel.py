"""The games as OpenSpiel games: OpenSpiel's own random simulation test (serialization
included) at each game's smallest and largest table, trajectories equal to the PettingZoo
environment's and the engine's, Shimmy's PettingZoo wrapper agreeing with ours, resampling
from an information state, and OpenSpiel's ISMCTS playing through it."""

from __future__ import annotations

import base64
import json
import pickle
import random
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (the rl extra installs it on Linux x86_64)")
shimmy = pytest.importorskip("shimmy", reason="Shimmy is not installed (the rl extra installs it with OpenSpiel)")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from arena import games  # noqa: E402
from arena.envs.openspiel import DEALS, MOST_DEALS, ArenaState, register, short_name  # noqa: E402
from arena.envs.pettingzoo import env  # noqa: E402
from arena.games import IllegalAction  # noqa: E402
from arena.games.testing import snapshot  # noqa: E402

from .helpers import TABLES, play  # noqa: E402


def _load(name: str, n: int, **params: Any) -> Any:
    return pyspiel.load_game(short_name(name), {"num_players": n, **params})


@pytest.mark.parametrize(("name", "n"), TABLES)
def test_openspiel_random_sim_test_passes_with_serialization(name: str, n: int) -> None:
    pyspiel.random_sim_test(_load(name, n), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("name", "n"), TABLES)
def test_a_trajectory_is_the_same_through_openspiel_pettingzoo_and_the_engine(name: str, n: int) -> None:
    e = env(name, n)
    played = play(e, 11, random.Random(5))
    raw = e.unwrapped
    enc = raw.encoding
    state = games.get(name).new_state(n, 11)
    spiel = _load(name, n).new_initial_state()
    assert spiel.is_chance_node() and spiel.chance_outcomes()[11] == (11, 1 / DEALS)
    assert spiel.legal_actions() == pyspiel.State.legal_actions(spiel) == list(range(DEALS))
    spiel.apply_action(11)  # the deal: the engine's match of seed 11
    e.reset(seed=11)
    ids = []
    for seat, action in played:
        assert spiel.current_player() == state.to_act()[0] == seat == raw.seats[raw.agent_selection]
        mine = e.observe(raw.agent_selection)
        tensor = np.asarray(spiel.information_state_tensor(seat), np.float32)
        assert np.array_equal(tensor, mine["observation"])
        assert np.array_equal(np.asarray(spiel.observation_tensor(seat), np.float32), mine["observation"])
        assert np.array_equal(np.asarray(spiel.legal_actions_mask(seat), np.int8), mine["action_mask"])
        assert spiel.legal_actions() == np.flatnonzero(mine["action_mask"]).tolist()
        for other in range(n):
            if other != seat:
                assert spiel.legal_actions(other) == []
            # Python's answers equal OpenSpiel's C++ side's (the observer, _legal_actions).
            assert spiel.information_state_tensor(other) == pyspiel.State.information_state_tensor(spiel, other)
            assert spiel.observation_tensor(other) == pyspiel.State.observation_tensor(spiel, other)
            assert spiel.legal_actions(other) == pyspiel.State.legal_actions(spiel, other)
        assert spiel.legal_actions() == pyspiel.State.legal_actions(spiel)
        legal = state.legal_actions(seat)
        action_id = enc.id_of(action, legal)
        assert spiel.action_to_string(seat, action_id) == action
        ids.append(action_id)
        spiel.apply_action(action_id)
        e.step(action_id)
        state.apply(seat, action)
    assert state.is_terminal() and spiel.is_terminal() and raw.match.is_terminal()
    assert snapshot(state) == snapshot(raw.match) == snapshot(spiel.engine)
    assert spiel.returns() == [raw._cumulative_rewards[agent] for agent in raw.possible_agents]
    assert spiel.history() == [11, *ids]
    assert spiel.legal_actions() == pyspiel.State.legal_actions(spiel) == []


# Shimmy's wrapper at every game's smallest table, and at the largest of a few.
SHIMMY_TABLES = [p for p in TABLES if p.values[1] == 2] + [
    p for p in TABLES if p.values[0] in ("durak", "shithead", "card_trip_europe") and p.values[1] > 2]


@pytest.mark.parametrize(("name", "n"), SHIMMY_TABLES)
def test_shimmys_pettingzoo_wrapper_agrees_with_ours(name: str, n: int) -> None:
    theirs = shimmy.OpenSpielCompatibilityV0(game_name=short_name(name), config={"num_players": n})
    theirs.reset(seed=3)
    deal = theirs.game_state.history()[0]  # Shimmy samples the deal with its own generator
    ours = env(name, n)
    ours.reset(seed=deal)
    raw = ours.unwrapped
    rng = random.Random(7)
    steps = 0
    while not raw.match.is_terminal():
        assert theirs.agent_selection == ours.agent_selection
        for agent in raw.possible_agents:
            mine = ours.observe(agent)
            assert np.array_equal(theirs.observe(agent).astype(np.float32), mine["observation"])
            if agent == ours.agent_selection:
                assert np.array_equal(theirs.infos[agent]["action_mask"], mine["action_mask"])
            else:  # OpenSpiel has one player to act: the others answer a simultaneous decision later
                assert not theirs.infos[agent]["action_mask"].any()
                assert not mine["action_mask"].any() or raw.seats[agent] in raw.match.to_act()
        legal = np.flatnonzero(ours.observe(ours.agent_selection)["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        theirs.step(action)
        ours.step(action)
        steps += 1
    assert steps > 0
    assert theirs.game_state.is_terminal()
    assert {a: theirs.rewards[a] for a in raw.possible_agents} == raw.rewards
    assert snapshot(theirs.game_state.engine) == snapshot(raw.match)


def _states(name: str, n: int, seed: int, count: int) -> list[ArenaState]:
    """A few states of one random match: after the deal and spread over the match."""
    game = _load(name, n)
    state = game.new_initial_state()
    state.apply_action(seed)
    rng = random.Random(seed)
    found = []
    while not state.is_terminal():
        if rng.random() < 0.2 or not found:
            found.append(state.clone())
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return found[:: max(1, len(found) // count)]


@pytest.mark.parametrize("name", games.names())
def test_a_resampled_state_looks_the_same_to_its_player_only(name: str) -> None:
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = False
    for state in _states(name, 3, 5, 6):
        player = state.current_player()
        for _ in range(2):
            world = state.resample_from_infostate(player, sampler)
            assert isinstance(world, ArenaState)
            assert world.information_state_string(player) == state.information_state_string(player)
            assert world.information_state_tensor(player) == state.information_state_tensor(player)
            assert world.current_player() == player and world.legal_actions() == state.legal_actions()
            changed = changed or str(world) != str(state)
            # The world plays on by itself and leaves the true state alone.
            before = str(state)
            world.apply_action(world.legal_actions()[0])
            assert str(state) == before
    assert changed, "no resample changed anything hidden: the test saw nothing"


def test_openspiels_ismcts_plays_by_resampling() -> None:
    game = _load("durak", 2)
    state = game.new_initial_state()
    state.apply_action(4)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(1))
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=25,
                           random_state=np.random.RandomState(2))
    searched = 0
    while searched < 4 and not state.is_terminal():
        legal = state.legal_actions()
        # ISMCTS samples a world per simulation with the state's resample_from_infostate and
        # checks that each has the searching player's information state.
        policy = bot.get_policy(state)
        assert {a for a, _ in policy} <= set(legal)
        assert sum(p for _, p in policy) == pytest.approx(1.0)
        action = max(policy, key=lambda ap: ap[1])[0]
        if len(legal) > 1:
            searched += 1
            assert bot._root_node.total_visits == 25 - 1  # every simulation but the first's expansion
        state.apply_action(action)
    assert searched == 4


def test_serialization_carries_the_engines_state() -> None:
    game = _load("yaniv", 3)
    state = _states("yaniv", 3, 8, 3)[-1]
    text = state.serialize()
    at_save = snapshot(state.engine)
    twin = game.deserialize_state(text)
    assert str(twin) == str(state) and snapshot(twin.engine) == snapshot(state.engine)
    assert twin.history() == state.history()
    rng = random.Random(1)
    while not state.is_terminal():
        action = state.legal_actions()[rng.randrange(len(state.legal_actions()))]
        state.apply_action(action)
        twin.apply_action(action)
    assert twin.returns() == state.returns()
    # Deserializing checks the engine's state against the game's schema.
    head, packed = text.rsplit("__dict__=", 1)
    attributes = pickle.loads(base64.b64decode(packed))
    restore, (table, saved) = attributes["match"].__reduce__()
    assert json.loads(saved) == json.loads(at_save)  # the engine's own to_json
    assert snapshot(restore(table, saved).state) == at_save
    with pytest.raises(ValueError):
        restore(table, saved.replace('"moves":', '"moves":"many","was_moves":'))


def test_bad_parameters_get_clear_errors() -> None:
    with pytest.raises(games.BadOptions, match="players"):
        _load("durak", 9)
    with pytest.raises(games.BadOptions, match="pack"):
        _load("durak", 2, pack=40)
    for deals in (0, MOST_DEALS + 1):
        with pytest.raises(games.BadOptions, match="deals"):
            _load("durak", 2, deals=deals)
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        _load("durak", 2, colour=1)
    state = _load("crazy_eights", 2).new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="not dealt"):
        _ = state.engine
    state.apply_action(0)
    bad = next(i for i in range(len(state.legal_actions_mask())) if i not in state.legal_actions())
    before = str(state)
    with pytest.raises(IllegalAction):
        state.apply_action(bad)
    assert str(state) == before


def test_every_game_is_registered_once_with_its_parameters() -> None:
    register()  # again: nothing changes
    for name in games.names():
        rules = games.get(name)
        game = pyspiel.load_game(short_name(name))
        assert game.num_players() == rules.min_players
        assert game.max_chance_outcomes() == DEALS and game.max_game_length() == rules.turn_cap
        params = game.get_parameters()
        assert {k: params[k] for k in rules.options} == rules.resolve_options({})
        again = pyspiel.load_game(str(game))  # the game's string loads the same game
        assert again.get_parameters() == params


def test_deals_sets_the_chance_outcomes() -> None:
    game = _load("yaniv", 2, deals=5)
    state = game.new_initial_state()
    assert game.max_chance_outcomes() == 5
    assert state.chance_outcomes() == ((0, 0.2), (1, 0.2), (2, 0.2), (3, 0.2), (4, 0.2))
    assert pyspiel.State.chance_outcomes(state) == [(k, 0.2) for k in range(5)]  # as C++ sees them
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, k) for k in range(5)] == [f"deal {k}" for k in range(5)]
    state.apply_action(4)
    assert snapshot(state.engine) == snapshot(games.get("yaniv").new_state(2, 4))
