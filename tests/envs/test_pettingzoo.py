"""The games as PettingZoo environments: PettingZoo's own API and seed tests at each game's
smallest and largest table, trajectories equal to the engine's, a complete action space, a
tensor that tells nothing hidden, and docs that show the layout."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from arena import games
from arena.envs.encoding import Encoding, NoEncoding, UnknownAction, _load, load, number, per_seat
from arena.envs.pettingzoo import env, raw_env, reward
from arena.games import IllegalAction, Outcome
from arena.games.testing import cases, checkpoints, random_playout, snapshot

from .helpers import ENCODED, TABLES, play

DOCS = Path(__file__).resolve().parents[2] / "docs" / "games"

@pytest.mark.parametrize(("name", "n"), TABLES)
def test_pettingzoo_api_test_passes(name: str, n: int) -> None:
    api_test(env(name, n), num_cycles=60, verbose_progress=False)


@pytest.mark.parametrize(("name", "n"), TABLES)
def test_pettingzoo_seed_test_passes(name: str, n: int) -> None:
    seed_test(lambda: env(name, n), num_cycles=60)


@pytest.mark.parametrize(("name", "n"), TABLES)
def test_a_trajectory_is_the_engines_for_the_same_seed_and_actions(name: str, n: int) -> None:
    e = env(name, n)
    played = play(e, 11, random.Random(5))
    assert played, "the match had no decision"
    raw = e.unwrapped
    # The same actions on the engine's own match of that seed, observed at every step.
    state = games.get(name).new_state(n, 11)
    e.reset(seed=11)
    for seat, action in played:
        assert state.to_act()[0] == seat == raw.seats[raw.agent_selection]
        mine = e.observe(raw.agent_selection)
        assert np.array_equal(mine["observation"], raw.encoding.encode(state.observation(seat)))
        assert np.array_equal(mine["action_mask"], raw.encoding.mask(state.legal_actions(seat)))
        state.apply(seat, action)
        e.step(raw.encoding.id_of(action, raw.match.legal_actions(seat)))
    assert state.is_terminal() and snapshot(state) == snapshot(raw.match)
    outcome = state.outcome()
    for agent, seat in raw.seats.items():
        assert raw._cumulative_rewards[agent] == reward(outcome, seat)
        assert raw.infos[agent] == {"scores": outcome.scores, "ranks": outcome.ranks}
    assert sum(raw._cumulative_rewards.values()) == pytest.approx(0)


def test_reset_without_a_seed_follows_the_last_seed() -> None:
    a, b = env("crazy_eights", 3), env("crazy_eights", 3)
    a.reset(seed=4)
    b.reset(seed=4)
    a.reset()
    b.reset()
    assert snapshot(a.unwrapped.match) == snapshot(b.unwrapped.match)
    a.reset(seed=4)
    assert snapshot(a.unwrapped.match) == snapshot(games.get("crazy_eights").new_state(3, 4))


@pytest.mark.parametrize("name", ENCODED)
def test_the_action_space_holds_every_action_of_many_random_matches(name: str) -> None:
    game = games.get(name)
    for n, options in cases(game):
        enc = load(name, n, options)
        seen: set[str] = set()
        for seed in range(8):
            state = game.new_state(n, seed, options)
            rng = random.Random(seed)
            while to_act := state.to_act():
                for seat in to_act:
                    legal = state.legal_actions(seat)
                    seen.update(legal)
                    # Every legal action has an id: listed, or in an overflow slot.
                    over = [a for a in legal if a not in enc.index]
                    assert len(over) <= len(enc.actions) - enc.listed, f"{name}: {over[:5]}... past the slots"
                    assert enc.mask(legal).sum() == len(legal)
                seat = to_act[0]
                legal = state.legal_actions(seat)
                state.apply(seat, legal[rng.randrange(len(legal))])
        missing = sorted(a for a in seen - set(enc.index) if not (enc.beyond and enc.beyond(a)))
        assert not missing, f"{name} {n}p {options}: not in the action space: {missing[:10]}"


@pytest.mark.parametrize("name", ENCODED)
def test_the_tensor_tells_nothing_hidden(name: str) -> None:
    """Two states that differ only in what a seat cannot see give that seat the same tensor
    (resampled as the conformance suite's leak test does), while the states do differ."""
    game = games.get(name)
    for n, options in cases(game)[:: max(1, len(cases(game)) // 4)]:
        enc = load(name, n, options)
        actions: list[tuple[int, str]] = []
        random_playout(game.new_state(n, 2, options), random.Random(3), actions)
        differed = False
        for point in checkpoints(actions, 6):
            state = game.new_state(n, 2, options)
            for seat, action in actions[:point]:
                state.apply(seat, action)
            if state.is_terminal():
                continue
            for seat in range(n):
                seen = enc.encode(state.observation(seat))
                for k in range(3):
                    world = state.resample_hidden(seat, random.Random(k * 7 + seat))
                    assert np.array_equal(enc.encode(world.observation(seat)), seen), \
                        f"{name} {n}p: seat {seat}'s tensor tells a resample apart"
                    # A game's direct writer reads the state: it too sees only the seat's view.
                    assert np.array_equal(enc.tensor(world, seat), seen), \
                        f"{name} {n}p: seat {seat}'s tensor written from the state tells a resample apart"
                    differed = differed or snapshot(world) != snapshot(state)
        assert differed, "no resample changed anything hidden: the test saw nothing"


@pytest.mark.parametrize("name", ENCODED)
def test_the_tensor_stays_in_its_space_and_seats_see_differently(name: str) -> None:
    game = games.get(name)
    for n, options in cases(game):
        e = raw_env(name, n, options)
        space = e.observation_space("player_0")
        e.reset(seed=3)
        views = [e.observe(agent) for agent in e.possible_agents]
        assert not np.array_equal(views[0]["observation"], views[1]["observation"])
        rng = random.Random(n)
        while not e.match.is_terminal():
            views = [e.observe(agent) for agent in e.possible_agents]
            for agent, view in zip(e.possible_agents, views, strict=True):
                assert space.contains(view), f"{name} {n}p {options}: {agent}'s view is out of its space"
            mask = views[e.seats[e.agent_selection]]["action_mask"]
            assert mask.any()
            legal = np.flatnonzero(mask)
            e.step(int(legal[rng.randrange(len(legal))]))


def test_an_illegal_action_raises_and_changes_nothing() -> None:
    e = env("crazy_eights", 2)
    e.reset(seed=1)
    raw = e.unwrapped
    before = snapshot(raw.match)
    mask = e.observe(raw.agent_selection)["action_mask"]
    for bad in (int(np.flatnonzero(mask == 0)[0]), len(raw.encoding.actions), -1):
        with pytest.raises(IllegalAction):
            e.step(bad)
    assert snapshot(raw.match) == before


def test_the_reward_follows_the_ranks() -> None:
    assert [reward(Outcome.from_scores([3, 1]), s) for s in (0, 1)] == [1.0, -1.0]
    assert [reward(Outcome.from_scores([2, 2, 1]), s) for s in range(3)] == [0.5, 0.5, -1.0]
    assert [reward(Outcome.from_scores([0, 0]), s) for s in (0, 1)] == [0.0, 0.0]


def test_render_shows_the_seats_own_view_only() -> None:
    e = env("crazy_eights", 2, render_mode="ansi")
    e.reset(seed=9)
    raw = e.unwrapped
    text = e.render()
    seat = raw.seats[raw.agent_selection]
    assert all(c in text for c in raw.match.hands[seat])
    assert not any(f'"{c}"' in text for c in raw.match.hands[1 - seat] if c not in raw.match.hands[seat])
    assert "legal:" in text


def test_bad_requests_get_clear_errors() -> None:
    with pytest.raises(NoEncoding, match="no encoding"):
        _load("a_game_of_elsewhere", 2, "{}")
    with pytest.raises(games.BadOptions, match="players"):
        env("crazy_eights", 7)
    with pytest.raises(KeyError):
        env("chess")
    enc = load("crazy_eights", 2)
    with pytest.raises(UnknownAction, match="not in the action space"):
        enc.mask(["play 1X"])


@pytest.mark.parametrize("name", ENCODED)
def test_the_games_page_shows_the_encoding(name: str) -> None:
    page = (DOCS / f"{name}.md").read_text()
    assert "## Encoding for learning" in page
    enc = load(name, 2)
    assert enc.table() in page, f"docs/games/{name}.md: the 2-player layout table is out of date"
    assert f"{len(enc.actions)} actions" in page


def test_the_core_arena_does_not_import_the_learning_libraries() -> None:
    script = ("import sys\nfrom arena import games\nfor n in games.names(): games.get(n)\n"
              "import arena.cli, arena.referee.match\n"
              "print(sorted(m for m in ('numpy', 'gymnasium', 'pettingzoo', 'pyspiel', 'shimmy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_actions_too_many_to_list_take_the_overflow_ids_in_order() -> None:
    enc = Encoding("a_game", 2, [], ["pass", "take"], beyond=lambda a: a.startswith("pay "), overflow=2)
    legal = ["pay 1C,1C,3B", "pay 2M,2N,3P", "pay 3C,3C,3C", "take"]
    assert enc.mask(legal).tolist() == [0, 1, 1, 1]  # the third payment has no slot left
    assert [enc.action(i, legal) for i in (1, 2, 3)] == ["take", "pay 1C,1C,3B", "pay 2M,2N,3P"]
    assert [enc.id_of(a, legal) for a in legal[:2]] == [2, 3]
    with pytest.raises(UnknownAction):
        enc.mask(["draw"])


def test_the_environment_checks_the_order_of_calls_as_pettingzoos_wrapper_does() -> None:
    e = env("durak", 2)
    assert isinstance(e, OrderEnforcingWrapper)  # PettingZoo's tools recognise it
    for name in ("agent_selection", "agents", "terminations", "truncations", "rewards", "infos"):
        with pytest.raises(AttributeError, match="before reset"):
            getattr(e, name)
    with pytest.raises(AttributeError, match="before reset"):
        e.last()
    e.reset(seed=2)
    raw = e.unwrapped
    obs, reward_now, terminated, truncated, info = e.last()
    assert e.agent_selection == raw.agent_selection and e.agents == raw.agents
    assert (reward_now, terminated, truncated, info) == (0.0, False, False, {})
    assert np.array_equal(obs["observation"], raw.encoding.encode(raw.match.observation(raw.seats[e.agent_selection])))


def test_observations_are_the_callers_to_change() -> None:
    e = env("shithead", 3)
    e.reset(seed=5)
    raw = e.unwrapped
    agent = e.agent_selection
    seat = raw.seats[agent]
    first = e.observe(agent)
    first["observation"][:] = 7
    first["action_mask"][:] = 1  # a caller's own arrays: nothing kept by the environment changes
    again = e.observe(agent)
    assert np.array_equal(again["observation"], raw.encoding.encode(raw.match.observation(seat)))
    assert np.array_equal(again["action_mask"], raw.encoding.mask(raw.match.legal_actions(seat)))
    assert again["action_mask"].sum() == len(raw.match.legal_actions(seat))


def test_a_number_block_must_hold_zero() -> None:
    """Blocks leave zeros unwritten, so a range without 0 would give a tensor outside its space."""
    with pytest.raises(ValueError, match="must hold 0"):
        number("n", lambda o: o["n"], "", high=5, low=1)
    with pytest.raises(ValueError, match="must hold 0"):
        per_seat("p", 2, lambda o: o["p"], "", high=-1, low=-5)
    block = per_seat("p", 3, lambda o: o["p"], "", high=4, low=-4)
    out = np.zeros(3, np.float32)
    block.fill({"seat": 1, "p": [9, 0, -9]}, memoryview(out), 0)
    assert out.tolist() == [0, -4, 4]  # the observer's first, clipped
