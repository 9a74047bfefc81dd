"""Every arena game as an OpenSpiel game: importing this module registers ``arena_<game>``
for each registered game (``arena_crazy_eights``, ``arena_durak``, ...) with
``pyspiel.register_game``.

    >>> import pyspiel
    >>> import arena.envs.openspiel  # registers the games
    >>> game = pyspiel.load_game("arena_durak", {"num_players": 3, "pack": 52})
    >>> state = game.new_initial_state()
    >>> state.is_chance_node()  # the deal: one of ``deals`` seeds
    True
    >>> state.apply_action(7)  # the engine's match of seed 7
    >>> len(state.information_state_tensor(0)) == game.information_state_tensor_size()
    True

Parameters: ``num_players`` (the game's smallest table unless given), each of the game's
options (its rulebook default unless given) and ``deals``, the number of chance outcomes.

- **Chance**: the arena deals everything from a seed, so a match starts with one chance node
  that chooses the seed, uniformly among ``deals`` outcomes: outcome ``k`` is the engine's
  match of seed ``k`` (``games.get(game).new_state(n, k, options)``, PettingZoo's
  ``reset(seed=k)``). There is no other chance node: every later shuffle follows from the
  seed.
- **Decisions**: the player to act is the first seat of ``State.to_act()``; a simultaneous
  decision is answered seat after seat, and the engine shows no seat another's pending choice
  (the game is sequential for OpenSpiel, as for PettingZoo's AEC).
- **Observations**: the information state and the observation are both the seat's own
  ``observation(seat)``: as the tensor of the game's encoding (``arena.envs.encoding``, the
  same as PettingZoo's), as canonical JSON for the strings. They carry what the rules let a
  seat know, which is not its whole history of play: they are not perfect recall.
- **Actions** are the encoding's fixed action ids, the same as PettingZoo's.
- **Returns** come at the end: (seats beaten - seats that beat it) / (players - 1), the
  PettingZoo environment's reward. A match ended by the game's turn cap is terminal too.
- **Resampling**: ``state.resample_from_infostate(player, sampler)`` is the engine's
  ``resample_hidden(player, rng)`` (OpenSpiel's ISMCTS in Python calls it); the state it
  returns keeps the history of the state it was drawn from, as OpenSpiel keeps that on its
  own side.
- **Serialization**: ``state.serialize()`` and ``game.deserialize_state(text)`` carry the
  engine's state as its ``to_json`` and restore it with ``state_from_json``, which checks it.
"""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from arena import games
from arena.games import State
from arena.games.base import dumps

from .encoding import Encoding, load
from .pettingzoo import reward

PREFIX = "arena_"
DEALS = 4096  # chance outcomes by default: the seeds 0 .. DEALS - 1
MOST_DEALS = 2**16  # a bound on ``deals``: the chance node lists every outcome, kept per game

_OPENSPIEL_TYPES = (bool, int, float, str)


def short_name(game: str) -> str:
    """The OpenSpiel name of an arena game: ``arena_<game>``."""
    return PREFIX + game


@functools.cache
def _game_type(name: str) -> pyspiel.GameType:
    rules = games.get(name)
    spec: dict[str, Any] = {"num_players": rules.min_players, "deals": DEALS}
    for option, meta in rules.options.items():
        if not isinstance(meta.default, _OPENSPIEL_TYPES):
            raise TypeError(f"{name}: option {option} is not a number, string or flag")
        spec[option] = meta.default
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"{rules.title} (arena)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.max_players,
        min_num_players=rules.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )


class Table:
    """What every state of one game (name, players, options, deals) shares, immutable: the
    rules, the resolved options and the encoding. States hold it, never copy it."""

    def __init__(self, name: str, num_players: int, options: dict[str, Any], deals: int) -> None:
        self.name = name
        self.rules = games.get(name)
        self.num_players = num_players
        self.options = self.rules.resolve_options(options)
        self.encoding: Encoding = load(name, num_players, self.options)  # BadOptions if not playable
        self.deals = deals
        self.outcomes = tuple((k, 1.0 / deals) for k in range(deals))

    def __deepcopy__(self, memo: dict[int, Any]) -> Table:
        return self

    def __reduce__(self) -> tuple[Callable[..., Table], tuple[Any, ...]]:
        return _table, (self.name, self.num_players, dumps(self.options), self.deals)


@functools.lru_cache(maxsize=64)
def _table(name: str, num_players: int, options: str, deals: int) -> Table:
    return Table(name, num_players, json.loads(options), deals)


CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)


class Match:
    """The engine's state inside an OpenSpiel state (None before the deal), with the player to
    act and its legal ids kept: OpenSpiel asks for the player several times a decision. It
    copies a Python state's attributes with ``copy.deepcopy`` and serializes them with
    ``pickle``: a match copies itself with ``State.clone`` and pickles as its ``to_json``,
    restored by ``state_from_json`` (which checks it against the game's schema)."""

    __slots__ = ("table", "state", "player", "_ids")

    def __init__(self, table: Table, state: State | None) -> None:
        self.table = table
        self.state = state
        self.settle()

    def settle(self) -> None:
        """Take note of the player to act, after the deal or a decision."""
        state = self.state
        if state is None:
            self.player = CHANCE
        else:
            to_act = state.to_act()
            self.player = to_act[0] if to_act else TERMINAL
        self._ids: list[int] | None = None

    def ids(self) -> list[int]:
        """The legal action ids of the player to act, ascending."""
        if self._ids is None:
            state = self.state
            self._ids = [] if state is None or self.player < 0 else \
                self.table.encoding.ids_and_mask(tuple(state.legal_actions(self.player)))[0]
        return self._ids

    def __deepcopy__(self, memo: dict[int, Any]) -> Match:
        twin = Match.__new__(Match)
        twin.table = self.table
        twin.state = None if self.state is None else self.state.clone()
        twin.player = self.player
        twin._ids = self._ids  # never changed in place: a new list after each decision
        return twin

    def __reduce__(self) -> tuple[Callable[..., Match], tuple[Any, ...]]:
        saved = None if self.state is None else dumps(self.state.to_json())
        return _match, (self.table, saved)


def _match(table: Table, saved: str | None) -> Match:
    return Match(table, None if saved is None else table.rules.state_from_json(json.loads(saved)))


def _flag(default: Any, value: Any) -> Any:
    """OpenSpiel may hand a flag back as the number 0 or 1: a flag option gets its bool."""
    if isinstance(default, bool) and type(value) is int and value in (0, 1):
        return bool(value)
    return value


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One arena game at one table size and options (see the module's docstring). Each game
    has its subclass (``register``), which OpenSpiel calls with the parameters."""

    name: str  # the arena's name of the game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name = self.name
        params = dict(params or {})
        game_type = _game_type(name)
        spec = game_type.parameter_specification
        unknown = sorted(set(params) - set(spec))
        if unknown:
            raise games.BadOptions(f"{short_name(name)}: unknown parameters {unknown}; known: {sorted(spec)}")
        rules = games.get(name)
        num_players = int(params.get("num_players", rules.min_players))
        deals = int(params.get("deals", DEALS))
        if not 1 <= deals <= MOST_DEALS:
            raise games.BadOptions(f"{short_name(name)}: deals={deals}: expected 1 to {MOST_DEALS}")
        options = {k: _flag(rules.options[k].default, v) for k, v in params.items() if k in rules.options}
        self.table = _table(name, num_players, dumps(rules.resolve_options(options)), deals)
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.table.encoding.actions),
            max_chance_outcomes=deals,
            num_players=num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=rules.turn_cap,
        )
        super().__init__(game_type, info, {**self.table.options, "num_players": num_players, "deals": deals})

    def new_initial_state(self) -> ArenaState:
        """A match before its deal: a chance node over ``deals`` seeds."""
        return ArenaState(self, self.table)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer of one seat's view (the information state and the observation alike)."""
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError("only a seat's own view is observable (private_info=SINGLE_PLAYER)")
        return Observer(self.table.encoding)


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """One match of an ``ArenaGame``: a deal, then the engine's decisions."""

    def __init__(self, game: ArenaGame, table: Table) -> None:
        super().__init__(game)
        # The only attribute: OpenSpiel deep-copies every attribute on each clone.
        self.match = Match(table, None)

    @property
    def engine(self) -> State:
        """The engine's state of the match (after the deal)."""
        state = self.match.state
        if state is None:
            raise pyspiel.SpielError("the match is not dealt yet: apply a chance outcome first")
        return state

    def current_player(self) -> int:
        return self.match.player

    def _legal_actions(self, player: int) -> list[int]:
        match = self.match
        return match.ids() if player == match.player else []

    # What Python asks for at every decision, answered here without the round trip through
    # OpenSpiel's C++ side (which makes a new state to size each tensor); C++ callers get the
    # same through ``_legal_actions`` and the observer.
    def legal_actions(self, player: int | None = None) -> list[int]:
        """The legal action ids of ``player`` (the player to act unless given), ascending; the
        deals at the chance node; none for another player or at the end."""
        match = self.match
        if match.player == TERMINAL:
            return []
        if match.player == CHANCE:
            return list(range(match.table.deals))
        if player is None or player == match.player:
            return list(match.ids())
        if player < 0:
            raise pyspiel.SpielError(f"legal actions of the pseudo-player {player}")
        return []

    def observation_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s tensor (the player to act unless given): the encoding's."""
        return self._tensor(self.current_player() if player is None else player)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        """``player``'s tensor (the player to act unless given): its observation's."""
        return self._tensor(self.current_player() if player is None else player)

    def _tensor(self, player: int) -> list[float]:
        match = self.match
        if not 0 <= player < match.table.num_players:
            raise pyspiel.SpielError(f"player {player}: expected 0 to {match.table.num_players - 1}")
        if match.state is None:
            return [0.0] * match.table.encoding.size
        return match.table.encoding.tensor_list(match.state, player)

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        return self.match.table.outcomes if self.match.state is None else ()

    def _apply_action(self, action: int) -> None:
        match = self.match
        table = match.table
        if match.state is None:
            if not 0 <= action < table.deals:
                raise pyspiel.SpielError(f"deal {action}: expected 0 to {table.deals - 1}")
            match.state = table.rules.new_state(table.num_players, action, table.options)
        else:
            state = match.state
            seat = match.player
            state.apply(seat, table.encoding.action(action, state.legal_actions(seat)))
        match.settle()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        state = self.match.state
        legal = state.legal_actions(player) if state is not None and player >= 0 else []
        return self.match.table.encoding.action(action, legal)

    def is_terminal(self) -> bool:
        return self.match.player == TERMINAL

    def returns(self) -> list[float]:
        state = self.match.state
        if state is None or not state.is_terminal():
            return [0.0] * self.match.table.num_players
        outcome = state.outcome()
        return [reward(outcome, seat) for seat in range(len(outcome.ranks))]

    def resample_from_infostate(self, player_id: int, probability_sampler: Callable[[], float]) -> ArenaState:
        """A state ``player_id`` cannot tell from this one: the engine's ``resample_hidden``,
        its random stream drawn from ``probability_sampler`` (uniform numbers in [0, 1))."""
        twin = self.clone()
        if self.match.state is not None:
            rng = random.Random(int(probability_sampler() * 2**53))
            twin.match = Match(self.match.table, self.match.state.resample_hidden(player_id, rng))
        return twin  # type: ignore[no-any-return]

    def __str__(self) -> str:
        state = self.match.state
        return "not dealt" if state is None else dumps(state.to_json())


class Observer:
    """OpenSpiel's Python observer of one seat's view: ``tensor`` (the encoding's, in one
    piece named ``observation``) and ``string_from`` (the observation as canonical JSON)."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        self.tensor = np.zeros(encoding.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        engine = state.match.state
        if engine is None:
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.encoding.tensor(engine, player)

    def string_from(self, state: ArenaState, player: int) -> str:
        engine = state.match.state
        return "" if engine is None else dumps(engine.observation(player))


def register() -> None:
    """Register ``arena_<game>`` with OpenSpiel for every game (once; importing this module
    does it)."""
    known = set(pyspiel.registered_names())
    for name in games.names():
        if short_name(name) not in known:
            # A class, not a closure: OpenSpiel's registry keeps the maker past the end of the
            # interpreter, and only a class outlives it without being freed then.
            maker = type(f"Arena_{name}", (ArenaGame,), {"name": name, "__module__": __name__})
            pyspiel.register_game(_game_type(name), maker)


register()
