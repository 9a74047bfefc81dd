"""The conformance check every game of the arena passes, for any game author to run.

``check_game(game)`` plays the game at every legal player count, with the default options and
each of its ``test_option_sets``, over several seeds, and checks the contract of
``arena.games.base``: player counts that tell the truth, random matches that end by the rules
with well-formed outcomes and JSON observations, illegal actions refused without a change,
the same seed and actions giving the same match, clones and JSON round trips that play on
exactly as the original, observations that leak nothing ``resample_hidden`` may change, and
house-bot declarations the arena can build. A failure is an ``AssertionError`` saying what
broke. No test framework is needed::

    >>> from arena import games
    >>> from arena.games.testing import check_game
    >>> check_game(games.get("bastard_brag"), seeds=(1,))

Each check is also a function of its own (``check_random_matches(game, n, options)`` and so
on), and ``cases(game)`` lists the ``(num_players, options)`` pairs ``check_game`` plays, so a
test suite can report them one by one (``tests/test_conformance.py`` does).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .base import BadOptions, Game, HouseBot, IllegalAction, Outcome, State
from .search import Budget, SearchBot

SEEDS = (1, 2, 3)
GARBAGE = ["", " ", "nonsense", "play", "play ZZ", "\x00", "9" * 500, "pass pass"]


def check_game(game: Game, seeds: Sequence[int] = SEEDS) -> None:
    """Every check of this module on ``game``: each player count it allows with the default
    options and each of its ``test_option_sets`` (``cases``), over ``seeds``."""
    check_declarations(game)
    check_player_counts(game, seeds[0])
    for n, options in cases(game):
        check_random_matches(game, n, options, seeds)
        check_illegal_actions(game, n, options, seeds[0])
        check_replay(game, n, options, seeds[1 % len(seeds)])
        check_round_trip(game, n, options, seeds[2 % len(seeds)])
        check_no_leaks(game, n, options, seeds[0])


def cases(game: Game) -> list[tuple[int, dict[str, Any]]]:
    """``(num_players, options)`` for every player count of the default options and of each
    of the game's ``test_option_sets`` (options as given, not resolved)."""
    found = []
    for options in [{}, *game.test_option_sets]:
        for n in game.player_counts(game.resolve_options(options)):
            found.append((n, options))
    return found


# ----- the checks ----------------------------------------------------------------------------
def check_declarations(game: Game) -> None:
    """The class declares what the arena derives from it: a name, a ``heuristic`` house bot
    (or none), a searcher (or none: the generic one) and a budget of ``Budget`` fields."""
    assert isinstance(game.name, str) and game.name, "a game needs a name"
    heuristic = game.heuristic
    assert heuristic is None or (isinstance(heuristic, type) and issubclass(heuristic, HouseBot)), (
        f"{game.name}.heuristic must be a HouseBot class, not {heuristic!r}")
    searcher = game.search
    assert searcher is None or (isinstance(searcher, type) and issubclass(searcher, SearchBot)), (
        f"{game.name}.search must be a SearchBot class, not {searcher!r}")
    fields = {f.name for f in dataclasses.fields(Budget)}
    unknown = sorted(set(game.search_budget) - fields)
    assert not unknown, f"{game.name}.search_budget: no Budget fields {unknown}"
    Budget(**game.search_budget)
    assert game.state_class.game is game, f"{game.name} is not registered (arena.games.register)"


def check_player_counts(game: Game, seed: int = SEEDS[0]) -> None:
    """``min_players``/``max_players`` are the counts the default options allow, and
    ``player_counts(options)`` is exactly what ``new_state`` accepts for every option set:
    both ends start a match that can be played, one beyond either end is refused."""
    defaults = game.player_counts()
    assert (defaults[0], defaults[-1]) == (game.min_players, game.max_players)
    described = game.describe()
    assert (described["min_players"], described["max_players"]) == (game.min_players, game.max_players)
    for options in [{}, *game.test_option_sets]:
        counts = game.player_counts(options)
        assert list(counts) == list(game.player_counts(game.resolve_options(options)))
        for n in (counts[0], counts[-1]):
            state = game.new_state(n, seed, options)
            seat = state.to_act()[0]
            state.apply(seat, state.legal_actions(seat)[0])
        for n in (counts[0] - 1, counts[-1] + 1):
            _refused(BadOptions, game.new_state, n, seed, options)
    for n in (game.min_players, game.max_players):
        assert game.new_state(n, seed).to_act()


def check_random_matches(game: Game, n: int, options: dict[str, Any], seeds: Sequence[int] = SEEDS) -> None:
    """Random matches end by the rules, not the turn cap; every observation is JSON with the
    common keys; the outcome is well formed; nobody may act at the end."""
    for seed in seeds:
        state = game.new_state(n, seed, options)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.to_act():
                obs = state.observation(seat)
                assert obs["seat"] == seat and obs["num_players"] == n
                assert obs["to_act"] == list(state.to_act())
                json.dumps(obs)
            random_playout_step(state, rng)
        assert not state.capped(), f"seed {seed}: random play reached the turn cap ({game.turn_cap})"
        check_outcome(state)
        for seat in range(n):
            json.dumps(state.observation(seat))
            assert state.legal_actions(seat) == []


def check_illegal_actions(game: Game, n: int, options: dict[str, Any], seed: int = SEEDS[0]) -> None:
    """Garbage, another seat's actions and any action of a seat not to act raise
    ``IllegalAction`` and change nothing, at every step of a random match."""
    state = game.new_state(n, seed, options)
    rng = random.Random(7)
    while not state.is_terminal():
        before = snapshot(state)
        to_act = state.to_act()
        for seat in to_act:
            legal = set(state.legal_actions(seat))
            for bad in GARBAGE:
                if bad not in legal:
                    _refused(IllegalAction, state.apply, seat, bad)
            # Another seat's legal action is not this seat's.
            for other in to_act:
                for action in state.legal_actions(other):
                    if action not in legal:
                        _refused(IllegalAction, state.apply, seat, action)
                        break
        # A seat that is not to act may do nothing at all.
        for seat in set(range(n)) - set(to_act):
            _refused(IllegalAction, state.apply, seat, state.legal_actions(to_act[0])[0])
        _refused(IllegalAction, state.apply, n + 5, state.legal_actions(to_act[0])[0])
        assert snapshot(state) == before, "a rejected action changed the state"
        random_playout_step(state, rng)


def check_replay(game: Game, n: int, options: dict[str, Any], seed: int = SEEDS[1]) -> None:
    """The same seed and actions give the same match: every observation and the outcome."""
    actions: list[tuple[int, str]] = []
    random_playout(game.new_state(n, seed, options), random.Random(11), actions)
    first = transcript(game.new_state(n, seed, options), actions)
    again = transcript(game.new_state(n, seed, options), actions)
    assert json.dumps(first) == json.dumps(again)


def check_round_trip(game: Game, n: int, options: dict[str, Any], seed: int = SEEDS[2]) -> None:
    """At points of a match a clone plays on without touching the original, and the state's
    JSON restores a state with the same observations and legal actions that ends the same."""
    actions: list[tuple[int, str]] = []
    final = random_playout(game.new_state(n, seed, options), random.Random(5), actions)
    expected = final.outcome()
    for point in checkpoints(actions):
        state = game.new_state(n, seed, options)
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


def check_no_leaks(game: Game, n: int, options: dict[str, Any], seed: int = SEEDS[0]) -> None:
    """``observation(seat)`` is the same on every state resampled for that seat, and the
    resampled states are real: they play on to the end and differ where the seat is blind
    (unless the game declares no hidden information)."""
    actions: list[tuple[int, str]] = []
    random_playout(game.new_state(n, seed, options), random.Random(3), actions)
    differed = False
    for point in checkpoints(actions):
        state = game.new_state(n, seed, options)
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


def check_outcome(state: State) -> Outcome:
    """A well-formed outcome: a score and a rank per seat, ranks by the scores, JSON-ready."""
    outcome = state.outcome()
    assert len(outcome.scores) == len(outcome.ranks) == state.num_players
    assert outcome.ranks == Outcome.from_scores(outcome.scores).ranks
    assert min(outcome.ranks) == 1
    json.dumps(outcome.to_json())
    return outcome


# ----- playing and recording -----------------------------------------------------------------
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


def random_playout_step(state: State, rng: random.Random) -> None:
    """One random legal action of a random seat among those to act."""
    to_act = state.to_act()
    seat = to_act[rng.randrange(len(to_act))]
    legal = state.legal_actions(seat)
    assert legal and legal == sorted(legal) and len(set(legal)) == len(legal)
    state.apply(seat, legal[rng.randrange(len(legal))])


def resampled_along_random_matches(
    game: Game, n: int, options: dict[str, Any], seeds: Iterable[int], points: int = 10
) -> Iterator[tuple[list[tuple[State, int, str]], State, int, State]]:
    """Random matches of ``game``, resampled for every seat at ``points`` moments of each.

    Yields ``(trail, state, seat, world)``: the states so far with the decision taken in each,
    the state now, and a resample of it for ``seat``. Every world is checked to look the same
    to ``seat`` and to play on to the end; the caller checks it against ``trail``."""
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
    """The whole state as canonical JSON text, to compare two states."""
    return json.dumps(state.to_json(), sort_keys=True)


def transcript(state: State, actions: list[tuple[int, str]]) -> list[Any]:
    """Observations of every seat after every action: what the players saw."""
    out: list[Any] = [[state.observation(s) for s in range(state.num_players)]]
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


def _refused(error: type[Exception], call: Callable[..., Any], *args: Any) -> None:
    """``call(*args)`` raises ``error``."""
    try:
        call(*args)
    except error:
        return
    raise AssertionError(f"{getattr(call, '__name__', call)}{args!r:.80} did not raise {error.__name__}")
