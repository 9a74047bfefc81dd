"""Any arena game as a PettingZoo AEC environment.

    >>> from arena.envs.pettingzoo import env
    >>> e = env("crazy_eights", num_players=2)
    >>> e.reset(seed=7)
    >>> for agent in e.agent_iter():
    ...     obs, reward, terminated, truncated, info = e.last()
    ...     if terminated or truncated:
    ...         e.step(None)
    ...     else:
    ...         e.step(int(obs["action_mask"].nonzero()[0][0]))

Agents are ``player_0`` ... ``player_{n-1}``, seat for seat. Each observation is PettingZoo's
classic-games dict: ``observation``, the game's fixed float32 tensor, and ``action_mask``, 0/1
(int8) over the game's fixed action space (``arena.envs.encoding``; the layout and the action
ids of each game are in its page under ``docs/games/``). The agent selected is the first seat
of ``State.to_act()``; when a decision is simultaneous the seats answer one after the other,
and the engine shows no seat another's pending choice.

Rewards come at the end, from the game's own ranks: a seat gets (seats it beat - seats that
beat it) / (players - 1), so +1 for the winner of a two-player match, -1 for the loser, 0 for a
tie. ``info`` then holds the game's ``scores`` and ``ranks``. A match ended by the game's turn
cap is truncated, not terminated, and rewarded the same way. ``reset(seed=s)`` plays the
engine's match of seed ``s``; the same seed and actions give the same trajectory.

An action that is not legal (outside the mask) raises ``IllegalAction`` and changes nothing.
"""

from __future__ import annotations

import json
import random
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from arena import games
from arena.games import IllegalAction, Outcome, State

from .encoding import Encoding, load

RENDER_MODES = ["human", "ansi"]
HIDDEN_IN_RENDER = ("seat", "num_players", "to_act", "options")


def reward(outcome: Outcome, seat: int) -> float:
    """(Seats ``seat`` beat - seats that beat it) / (players - 1), from the game's ranks."""
    mine = outcome.ranks[seat]
    beat = sum(1 for rank in outcome.ranks if rank > mine)
    beaten = sum(1 for rank in outcome.ranks if rank < mine)
    return (beat - beaten) / max(len(outcome.ranks) - 1, 1)


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One arena game as an AEC environment (see the module's docstring)."""

    metadata = {"render_modes": RENDER_MODES, "name": "arena", "is_parallelizable": False}

    def __init__(self, game: str, num_players: int = 2, options: dict[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: expected one of {RENDER_MODES} or None")
        self.rules = games.get(game)
        self.options = self.rules.resolve_options(options)
        self.num_players = num_players
        self.encoding: Encoding = load(game, num_players, self.options)
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"arena_{game}"}
        self.possible_agents = [f"player_{seat}" for seat in range(num_players)]
        self.seats = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        enc = self.encoding
        obs_space = spaces.Dict({
            "observation": spaces.Box(low=enc.low, high=enc.high, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(len(enc.actions),), dtype=np.int8),
        })
        self.observation_spaces = {agent: obs_space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(len(enc.actions)) for agent in self.possible_agents}
        self._seeds = random.Random()  # until a seed is given: a match nobody can foresee
        self.state_: State | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        return self.action_spaces[agent]

    @property
    def match(self) -> State:
        """The engine's state of the match being played (after ``reset``)."""
        if self.state_ is None:
            raise RuntimeError("call reset() before playing")
        return self.state_

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match: of seed ``seed``, or the next seed of the last one given. The game's
        options are the environment's (``env(game, options=...)``); ``options`` here is
        PettingZoo's and unused."""
        if seed is not None:
            self._seeds = random.Random(seed)
            match_seed = seed
        else:
            match_seed = self._seeds.randrange(2**62)
        self.state_ = self.rules.new_state(self.num_players, match_seed, self.options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.state_.to_act()[0]]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's tensor and action mask (new arrays), made from what ``observation(seat)``
        shows and ``legal_actions(seat)`` alone."""
        state = self.match
        seat = self.seats[agent]
        return {"observation": self.encoding.tensor(state, seat),
                "action_mask": self.encoding.mask(state.legal_actions(seat))}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.match
        seat = self.seats[agent]
        enc = self.encoding
        size = len(enc.actions)
        if action is None or not 0 <= int(action) < size:
            raise IllegalAction(f"{agent}: action {action!r} is not an id of the action space (0-{size - 1})")
        i = int(action)
        # A listed id names its action alone; only an overflow slot needs the legal actions.
        chosen = enc.actions[i] if i < enc.listed else enc.action(i, state.legal_actions(seat))
        state.apply(seat, chosen)  # IllegalAction, state unchanged, if not legal
        self._cumulative_rewards[agent] = 0.0
        to_act = state.to_act()
        if to_act:
            self.agent_selection = self.possible_agents[to_act[0]]
            # Rewards come only at the end: until then they are all zero, nothing to add up.
        else:
            outcome = state.outcome()
            capped = state.capped()
            for other in self.agents:
                s = self.seats[other]
                self.rewards[other] = reward(outcome, s)
                self.terminations[other] = not capped
                self.truncations[other] = capped
                self.infos[other] = {"scores": list(outcome.scores), "ranks": list(outcome.ranks)}
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The selected agent's view as text: what ``observation(seat)`` holds and its legal
        actions. ``human`` prints it, ``ansi`` returns it."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode (env(..., render_mode='human'))")
            return None
        text = self.view(self.agent_selection)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def view(self, agent: str) -> str:
        """What ``agent`` sees now, as text."""
        state = self.match
        seat = self.seats[agent]
        obs = state.observation(seat)
        head = f"{self.rules.title}, {agent} (seat {seat}); to act: {list(state.to_act())}"
        lines = [head] + [f"  {key}: {json.dumps(value)}" for key, value in obs.items() if key not in HIDDEN_IN_RENDER]
        legal = state.legal_actions(seat)
        if legal:
            lines.append("  legal: " + ", ".join(f"{self.encoding.id_of(a, legal)}={a}" for a in legal))
        if state.is_terminal():
            outcome = state.outcome()
            lines.append(f"  over: scores {outcome.scores}, ranks {outcome.ranks}")
        return "\n".join(lines)

    def close(self) -> None:
        self.state_ = None


def _before_reset(name: str) -> AttributeError:
    return AttributeError(f"{name} cannot be accessed before reset")


class Enforced(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper`` (the same checks, the same errors) with what a
    training loop reads at every decision looked up directly: the base wrapper finds each of
    these through two ``__getattr__`` calls, which cost more than the rest of a step."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise _before_reset("agent_selection")
        return self.env.last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        # The base wrapper's checks, without its two layers of calls at every decision.
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # the base wrapper's errors and warnings

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise _before_reset("agent_selection")
        return self.env.agent_selection  # type: ignore[no-any-return]

    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise _before_reset("agents")
        return self.env.agents  # type: ignore[no-any-return]

    @property
    def terminations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise _before_reset("terminations")
        return self.env.terminations  # type: ignore[no-any-return]

    @property
    def truncations(self) -> dict[str, bool]:
        if not self._has_reset:
            raise _before_reset("truncations")
        return self.env.truncations  # type: ignore[no-any-return]

    @property
    def rewards(self) -> dict[str, float]:
        if not self._has_reset:
            raise _before_reset("rewards")
        return self.env.rewards  # type: ignore[no-any-return]

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        if not self._has_reset:
            raise _before_reset("infos")
        return self.env.infos  # type: ignore[no-any-return]


def env(game: str, num_players: int = 2, options: dict[str, Any] | None = None,
        render_mode: str | None = None) -> AECEnv:
    """A PettingZoo AEC environment of ``game`` (a name of ``arena.games.names()``) at
    ``num_players`` seats under the game's ``options``; ``render_mode`` ``human`` or ``ansi``.
    The environment checks that it is reset before use (PettingZoo's ``OrderEnforcingWrapper``,
    as ``Enforced``)."""
    return Enforced(ArenaEnv(game, num_players, options, render_mode))


raw_env = ArenaEnv
