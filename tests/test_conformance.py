"""The conformance suite: every registered game, every legal player count, the default options
and each game's ``test_option_sets``, over several seeds. There is no exclusion list."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena import games
from arena.games import BadOptions, IllegalAction, Outcome, State

SEEDS = (1, 2, 3)


def _cases() -> list[Any]:
    cases = []
    for name in games.names():
        game = games.get(name)
        for index, options in enumerate([{}, *game.test_option_sets]):
            resolved = game.resolve_options(options)
            for n in game.player_counts(resolved):
                cases.append(pytest.param(name, n, options, id=f"{name}-{n}p-opts{index}"))
    return cases


CASES = _cases()


def random_playout(state: State, rng: random.Random, record: list[Any] | None = None) -> State:
    """Play uniformly random legal actions to the end, checking the per-step invariants."""
    cap = state.game.turn_cap
    steps = 0
    while True:
        to_act = state.to_act()
        assert (to_act == ()) == state.is_terminal(), "to_act() must be empty iff terminal"
        if not to_act:
            break
        seat = to_act[rng.randrange(len(to_act))]
        legal = state.legal_actions(seat)
        assert legal, f"seat {seat} is to act but has no legal action"
        assert legal == sorted(legal) and len(set(legal)) == len(legal)
        action = legal[rng.randrange(len(legal))]
        if record is not None:
            record.append((seat, action))
        state.apply(seat, action)
        steps += 1
        assert steps <= cap
    return state


def check_outcome(state: State) -> Outcome:
    outcome = state.outcome()
    assert len(outcome.scores) == len(outcome.ranks) == state.num_players
    assert outcome.ranks == Outcome.from_scores(outcome.scores).ranks
    assert min(outcome.ranks) == 1
    json.dumps(outcome.to_json())
    return outcome


def resampled_along_random_matches(
    name: str, n: int, options: dict[str, Any], seeds: range, points: int = 10
) -> Iterator[tuple[list[tuple[State, int, str]], State, int, State]]:
    """Random matches of ``name``, resampled for every seat at ``points`` moments of each.

    Yields ``(trail, state, seat, world)``: the states so far with the decision taken in each,
    the state now, and a resample of it for ``seat``. Every world is checked to look the same
    to ``seat`` and to play on to the end; the caller checks it against ``trail``."""
    game = games.get(name)
    for seed in seeds:
        actions: list[tuple[int, str]] = []
        random_playout(game.new_state(n, seed, options), random.Random(seed), actions)
        moments = set(checkpoints(actions, points))
        state = game.new_state(n, seed, options)
        trail: list[tuple[State, int, str]] = []
        for step, (seat, action) in enumerate([*actions, (-1, "")]):
            if step in moments and not state.is_terminal():
                for viewer in range(n):
                    world = state.resample_hidden(viewer, random.Random(seed * 1000 + step))
                    assert world.observation(viewer) == state.observation(viewer)
                    yield trail, state, viewer, world
                    check_outcome(random_playout(world, random.Random(step)))
            if seat < 0:
                break
            trail.append((state.clone(), seat, action))
            state.apply(seat, action)


def snapshot(state: State) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def transcript(state: State, actions: list[tuple[int, str]]) -> list[Any]:
    """Observations of every seat after every action: what the players saw."""
    out = [[state.observation(s) for s in range(state.num_players)]]
    for seat, action in actions:
        state.apply(seat, action)
        out.append([state.observation(s) for s in range(state.num_players)])
    out.append(state.outcome().to_json())
    return out


def checkpoints(actions: list[Any], count: int = 4) -> list[int]:
    """A few move numbers spread over the match, the very start included."""
    if not actions:
        return [0]
    return sorted({0, *(len(actions) * k // count for k in range(1, count))})


@pytest.mark.parametrize("name", games.names())
def test_player_counts_tell_the_truth(name: str) -> None:
    """``min_players``/``max_players`` are the counts the default options allow, and
    ``player_counts(options)`` is exactly what ``new_state`` accepts for every option set:
    both ends start a match that can be played, one beyond either end is refused."""
    game = games.get(name)
    defaults = game.player_counts()
    assert (defaults[0], defaults[-1]) == (game.min_players, game.max_players)
    described = game.describe()
    assert (described["min_players"], described["max_players"]) == (game.min_players, game.max_players)
    for options in [{}, *game.test_option_sets]:
        counts = game.player_counts(options)
        assert list(counts) == list(game.player_counts(game.resolve_options(options)))
        for n in (counts[0], counts[-1]):
            state = game.new_state(n, SEEDS[0], options)
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
        for n in (counts[0] - 1, counts[-1] + 1):
            with pytest.raises(BadOptions):
                game.new_state(n, SEEDS[0], options)
    for n in (game.min_players, game.max_players):
        assert game.new_state(n, SEEDS[0]).to_act()


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_random_matches_end_by_the_rules(name: str, n: int, options: dict[str, Any]) -> None:
    game = games.get(name)
    for seed in SEEDS:
        state = game.new_state(n, seed, options)
        rng = random.Random(seed)
        steps = 0
        while not state.is_terminal():
            for seat in state.to_act():
                obs = state.observation(seat)
                assert obs["seat"] == seat and obs["num_players"] == n
                assert obs["to_act"] == list(state.to_act())
                json.dumps(obs)
            random_playout_step(state, rng)
            steps += 1
        assert not state.capped(), f"seed {seed}: random play reached the turn cap ({game.turn_cap})"
        check_outcome(state)
        for seat in range(n):
            json.dumps(state.observation(seat))
            assert state.legal_actions(seat) == []


def random_playout_step(state: State, rng: random.Random) -> None:
    to_act = state.to_act()
    seat = to_act[rng.randrange(len(to_act))]
    legal = state.legal_actions(seat)
    assert legal and legal == sorted(legal) and len(set(legal)) == len(legal)
    state.apply(seat, legal[rng.randrange(len(legal))])


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_illegal_actions_raise_and_change_nothing(name: str, n: int, options: dict[str, Any]) -> None:
    game = games.get(name)
    state = game.new_state(n, SEEDS[0], options)
    rng = random.Random(7)
    garbage = ["", " ", "nonsense", "play", "play ZZ", "\x00", "9" * 500, "pass pass"]
    while not state.is_terminal():
        before = snapshot(state)
        to_act = state.to_act()
        for seat in to_act:
            legal = set(state.legal_actions(seat))
            for bad in garbage:
                if bad not in legal:
                    with pytest.raises(IllegalAction):
                        state.apply(seat, bad)
            # Another seat's legal action is not this seat's.
            for other in to_act:
                for action in state.legal_actions(other):
                    if action not in legal:
                        with pytest.raises(IllegalAction):
                            state.apply(seat, action)
                        break
        # A seat that is not to act may do nothing at all.
        for seat in set(range(n)) - set(to_act):
            some = state.legal_actions(to_act[0])[0]
            with pytest.raises(IllegalAction):
                state.apply(seat, some)
        with pytest.raises(IllegalAction):
            state.apply(n + 5, state.legal_actions(to_act[0])[0])
        assert snapshot(state) == before, "a rejected action changed the state"
        random_playout_step(state, rng)


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_same_seed_and_actions_same_match(name: str, n: int, options: dict[str, Any]) -> None:
    game = games.get(name)
    actions: list[tuple[int, str]] = []
    random_playout(game.new_state(n, SEEDS[1], options), random.Random(11), actions)
    first = transcript(game.new_state(n, SEEDS[1], options), actions)
    again = transcript(game.new_state(n, SEEDS[1], options), actions)
    assert json.dumps(first) == json.dumps(again)


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_clone_and_json_round_trip(name: str, n: int, options: dict[str, Any]) -> None:
    game = games.get(name)
    actions: list[tuple[int, str]] = []
    final = random_playout(game.new_state(n, SEEDS[2], options), random.Random(5), actions)
    expected = final.outcome()
    for point in checkpoints(actions):
        state = game.new_state(n, SEEDS[2], options)
        for seat, action in actions[:point]:
            state.apply(seat, action)
        before = snapshot(state)

        twin = state.clone()
        random_playout(twin, random.Random(point))
        assert snapshot(state) == before, "playing a clone changed the original"

        data = json.loads(json.dumps(state.to_json()))
        restored = game.state_from_json(data)
        assert snapshot(restored) == before
        for seat in range(n):
            assert restored.observation(seat) == state.observation(seat)
            assert restored.legal_actions(seat) == state.legal_actions(seat)
        for seat, action in actions[point:]:
            restored.apply(seat, action)
        assert restored.outcome() == expected


@pytest.mark.parametrize(("name", "n", "options"), CASES)
def test_observation_leaks_nothing(name: str, n: int, options: dict[str, Any]) -> None:
    """observation(seat) is the same on every state resampled for that seat, and the
    resampled states are real: they play on to the end and differ where the seat is blind."""
    game = games.get(name)
    actions: list[tuple[int, str]] = []
    random_playout(game.new_state(n, SEEDS[0], options), random.Random(3), actions)
    differed = False
    for point in checkpoints(actions):
        state = game.new_state(n, SEEDS[0], options)
        for seat, action in actions[:point]:
            state.apply(seat, action)
        if state.is_terminal():
            continue
        truth = snapshot(state)
        for seat in range(n):
            seen = state.observation(seat)
            legal = state.legal_actions(seat)
            for k in range(3):
                other = state.resample_hidden(seat, random.Random(k * 101 + seat))
                assert other.observation(seat) == seen, f"seat {seat} can tell a resample apart"
                assert other.legal_actions(seat) == legal
                assert other.to_act() == state.to_act()
                differed = differed or snapshot(other) != truth
            random_playout(other, random.Random(seat))
            check_outcome(other)
        assert snapshot(state) == truth, "resample_hidden changed the original"
    if game.has_hidden_information:
        assert differed, "resample_hidden never changed anything hidden"


def test_the_games_are_found_whole_by_threads_that_ask_at_once():
    """A live worker's threads claim matches at once in a fresh process: each must find every
    game, not the part of the registry another thread was still importing."""
    import subprocess
    import sys

    script = (
        "import sys, threading\n"
        "sys.setswitchinterval(1e-6)\n"
        "from arena import games\n"
        "barrier, missing = threading.Barrier(8), []\n"
        "def look():\n"
        "    barrier.wait()\n"
        "    try:\n"
        "        games.get('yaniv')\n"
        "    except KeyError as error:\n"
        "        missing.append(error)\n"
        "threads = [threading.Thread(target=look) for _ in range(8)]\n"
        "[t.start() for t in threads]\n"
        "[t.join() for t in threads]\n"
        "print(len(missing))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
