"""Decisions per second of random matches through the raw engine and through the PettingZoo
environment (``arena.envs``), per game, at 2 players: the environment's cost as a ratio to the
engine measured in the same run (goal: at most 2x, and 10,000 decisions/s through PettingZoo).

The engine loop asks for the legal actions and applies a random one; the environment loop is
a researcher's: ``agent_iter``, ``last()`` (the tensor and the mask), a random id of the mask."""

from __future__ import annotations

import random
import time

import numpy as np

from arena import games

from .bench_games import play_out

SECONDS = 1.5  # per measurement


def engine(name: str, players: int) -> float:
    """Decisions/s of seeded random matches on the engine."""
    game = games.get(name)
    rng = random.Random(0)
    decisions = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        decisions += play_out(game.new_state(players, matches), rng)
        matches += 1
    return decisions / (time.perf_counter() - start)


def environment(name: str, players: int) -> float:
    """Decisions/s of seeded random masked matches through the AEC environment."""
    from arena.envs.pettingzoo import env

    e = env(name, players)
    rng = random.Random(0)
    decisions = matches = 0
    start = time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        e.reset(seed=matches)
        for _agent in e.agent_iter():
            obs, _, terminated, truncated, _ = e.last()
            if terminated or truncated:
                e.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            e.step(int(legal[rng.randrange(len(legal))]))
            decisions += 1
        matches += 1
    return decisions / (time.perf_counter() - start)


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
    print(f"{'game':<20} {'engine dec/s':>13} {'env dec/s':>11} {'env/engine':>11} {'slowdown':>9}")
    for name in encoded():
        raw = engine(name, 2)
        through = environment(name, 2)
        print(f"{name:<20} {raw:>13,.0f} {through:>11,.0f} {through / raw:>11.2f} {raw / through:>8.1f}x")


if __name__ == "__main__":
    main()
