"""Decisions per second of random matches through the raw engine, the PettingZoo environment
and the OpenSpiel game (``arena.envs``), per game, at 2 players: each adapter's cost as a ratio
to the engine measured in the same run (goal: at most 2x, and 10,000 decisions/s through
PettingZoo), with OpenSpiel's own ``crazy_eights`` through its Python API as the baseline.

The engine loop asks for the legal actions and applies a random one; the observing loop also
builds the observation of the seat to act, as a bot's turn does (the plain encoding reads its
tensor from it; a game that writes its tensor straight from the state never builds it, so an
adapter may cost less than this loop); the environment loop is
a researcher's: ``agent_iter``, ``last()`` (the tensor and the mask), a random id of the mask;
the OpenSpiel loop, for our games and OpenSpiel's alike: the chance outcome (the deal), then at
each decision the player's ``observation_tensor`` and ``legal_actions`` and a random one of
them. Every loop plays the deals 0, 1, 2, ...

Rates are per second of this process's CPU time, the best of ``ROUNDS`` rounds that take
turns, so that other work on the machine skews the ratios as little as it can."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from arena import games

from .bench_games import play_out

SECONDS = 0.5  # per measurement
ROUNDS = 3  # measurements of each loop, taking turns; the best counts


def _rate(loop: Callable[[int, random.Random], int]) -> float:
    """Decisions per CPU second of ``loop(deal, rng) -> decisions`` over deals 0, 1, ...
    for ``SECONDS`` of wall time."""
    rng = random.Random(0)
    decisions = deal = 0
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < SECONDS:
        decisions += loop(deal, rng)
        deal += 1
    return decisions / (time.process_time() - cpu)


def engine(name: str, players: int) -> Callable[[int, random.Random], int]:
    """A seeded random match on the engine."""
    game = games.get(name)
    return lambda deal, rng: play_out(game.new_state(players, deal), rng)


def observing(name: str, players: int) -> Callable[[int, random.Random], int]:
    """The engine's loop that also builds the observation of the seat to act, as a bot's turn
    and the plain encoding do: what the engine alone spends before a tensor made from it."""
    game = games.get(name)

    def loop(deal: int, rng: random.Random) -> int:
        state = game.new_state(players, deal)
        decisions = 0
        while to_act := state.to_act():
            seat = to_act[0]
            state.observation(seat)
            legal = state.legal_actions(seat)
            state.apply(seat, legal[rng.randrange(len(legal))])
            decisions += 1
        return decisions

    return loop


def environment(name: str, players: int) -> Callable[[int, random.Random], int]:
    """A seeded random masked match through the AEC environment."""
    from arena.envs.pettingzoo import env

    e = env(name, players)

    def loop(deal: int, rng: random.Random) -> int:
        decisions = 0
        e.reset(seed=deal)
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
        return decisions

    return loop


def openspiel(game: Any) -> Callable[[int, random.Random], int]:
    """A random match through an OpenSpiel game's Python API."""

    def loop(deal: int, rng: random.Random) -> int:
        decisions = 0
        state = game.new_initial_state()
        first = True
        while not state.is_terminal():
            if state.is_chance_node():  # the first: the deal (ours have no other)
                outcomes = state.chance_outcomes()
                pick = deal if first else rng.randrange(len(outcomes))
                state.apply_action(outcomes[pick % len(outcomes)][0])
                first = False
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
        return decisions

    return loop


def best(loops: dict[str, Callable[[int, random.Random], int]]) -> dict[str, float]:
    """Each loop's best rate over ``ROUNDS`` rounds in which the loops take turns."""
    rates: dict[str, float] = dict.fromkeys(loops, 0.0)
    for _ in range(ROUNDS):
        for label, loop in loops.items():
            rates[label] = max(rates[label], _rate(loop))
    return rates


def encoded() -> list[str]:
    """The games that have an encoding for learning."""
    from arena.envs.encoding import NoEncoding, load

    found = []
    for name in games.names():
        try:
            load(name, 2)
        except NoEncoding:
            continue
        found.append(name)
    return found


def main() -> None:
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        print("skipped: the rl extra is not installed (pip install -e '.[rl]')")
        return
    try:
        import pyspiel

        from arena.envs.openspiel import short_name
    except ImportError:
        pyspiel = None
        print("OpenSpiel columns skipped: pyspiel is not installed (the rl extra, on Linux x86_64)")
    print("decisions per CPU second, 2 players; slowdowns against the engine; observing: the engine that also "
          "builds the acting seat's observation")
    print(f"{'game':<20} {'engine':>9} {'observing':>10} {'slowdown':>9} {'pettingzoo':>11} {'slowdown':>9} "
          f"{'openspiel':>10} {'slowdown':>9}")
    theirs = 0.0
    if pyspiel is not None:
        theirs = best({"c8": openspiel(pyspiel.load_game("crazy_eights", {"players": 2}))})["c8"]
    for name in encoded():
        loops = {"engine": engine(name, 2), "observing": observing(name, 2), "pettingzoo": environment(name, 2)}
        if pyspiel is not None:
            loops["openspiel"] = openspiel(pyspiel.load_game(short_name(name), {"num_players": 2}))
        rates = best(loops)
        raw, through = rates["engine"], rates["pettingzoo"]
        seen = rates["observing"]
        line = (f"{name:<20} {raw:>9,.0f} {seen:>10,.0f} {raw / seen:>8.1f}x {through:>11,.0f} "
                f"{raw / through:>8.1f}x")
        if "openspiel" in rates:
            line += f" {rates['openspiel']:>10,.0f} {raw / rates['openspiel']:>8.1f}x"
        print(line, flush=True)
    if pyspiel is not None:
        print(f"baseline: OpenSpiel's crazy_eights (a C++ game) through its Python API: {theirs:,.0f}")


if __name__ == "__main__":
    main()
