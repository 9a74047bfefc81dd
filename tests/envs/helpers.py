"""What the environment tests share: the tables every game is played at, and a random match
through a PettingZoo environment."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from arena import games

# Every registered game has an encoding for learning: no exclusion list.
ENCODED = games.names()


def tables(name: str) -> list[Any]:
    """The smallest and largest tables of the default options."""
    counts = games.get(name).player_counts(games.get(name).resolve_options({}))
    return [pytest.param(name, n, id=f"{name}-{n}p") for n in (counts.start, counts.stop - 1)]


TABLES = [param for name in ENCODED for param in tables(name)]


def play(e: Any, seed: int, rng: random.Random) -> list[tuple[int, str]]:
    """A random masked match through the environment: the (seat, action id) decisions."""
    e.reset(seed=seed)
    enc = e.unwrapped.encoding
    played = []
    for agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        choice = int(legal[rng.randrange(len(legal))])
        seat = e.unwrapped.seats[agent]
        played.append((seat, enc.action(choice, e.unwrapped.match.legal_actions(seat))))
        e.step(choice)
    return played
