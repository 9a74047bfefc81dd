"""Checking a state's JSON against its game's schema before any game code sees it.

``Game.state_from_json`` restores states that strangers send (the Rules service), so it first
asks ``check_state``. A state that passes has:

- the envelope ``{"game", "version", "state"}`` of its game and version;
- ``num_players`` an int the game allows with its ``options``, which are exactly the game's
  options, each value one the option allows; ``seed`` a 64-bit int; ``moves`` within the cap;
- exactly the attributes of a fresh state of that size and options (the *template*), each of
  the same JSON type as the template's, list elements and dict values like the template's
  (``None`` is allowed anywhere: many attributes are "none yet"; where the template holds
  ``None`` or an empty list, any small JSON value is allowed);
- every list and object no longer than the game's packs hold, strings short, ints bounded,
  nothing nested deeper than a state ever is;
- what the game declares on its ``State`` class: ``card_fields`` hold only cards of its packs
  (``State.packs``), ``seat_fields`` only seats (or ``-1``, no seat), ``per_seat_fields`` one
  entry per seat, ``choices`` values from a known set (phases and the like), and ``examples``
  the shape of attributes that a fresh state leaves null or empty; ``optional_fields`` may be
  missing (states saved before the game added them).

That bounds what the game code can be made to do with a state: a player count of two billion,
a list stretched to a million entries or a card no pack holds is refused with ``BadState`` (a
``ValueError``) naming the attribute, before anything is built.

Example::

    >>> from arena import games
    >>> game = games.get("bastard_brag")
    >>> data = game.new_state(2, seed=1).to_json()
    >>> data["state"]["num_players"] = 20_000_000
    >>> game.state_from_json(data)
    Traceback (most recent call last):
    ...
    arena.games.schema.BadState: state.num_players: 20000000 players not allowed (allowed 2-10)
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

MAX_DEPTH = 8  # no state nests deeper (lists of groups of barred cards are 4 deep)
MAX_STRING = 200  # ids and log lines are short
MAX_INT = 100_000  # counts, scores, turns, card numbers; seeds are checked apart
MIN_LIST = 64  # a list may always be this long, whatever the packs hold
ENVELOPE = {"game", "version", "state"}
BASE = ("num_players", "seed", "options", "moves")


class Game(Protocol):
    """What ``check_state`` reads of a game: ``arena.games.base.Game`` has it all (the check
    sits below the contract, so that the contract may call it)."""

    @property
    def name(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def turn_cap(self) -> int: ...
    @property
    def options(self) -> Mapping[str, Any]: ...
    @property
    def state_class(self) -> Any: ...

    def resolve_options(self, options: dict[str, Any] | None) -> dict[str, Any]: ...
    def player_counts(self, options: dict[str, Any] | None = None) -> range: ...
    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> Any: ...
    def __hash__(self) -> int: ...  # templates are cached per game


class BadState(ValueError):
    """A state's JSON that does not fit its game's schema; the message names the attribute."""


@dataclass(frozen=True)
class _Bounds:
    max_list: int


def check_state(game: Game, data: Any) -> None:
    """Raise ``BadState`` unless ``data`` is a state of ``game`` as its schema allows."""
    if not isinstance(data, dict):
        raise BadState("a state is a JSON object")
    unknown = sorted(set(data) - ENVELOPE)
    if unknown:
        raise BadState(f"unknown keys {unknown[:5]}")
    if data.get("game") != game.name:
        raise BadState(f"state is for {_short(data.get('game'))}, not {game.name!r}")
    if str(data.get("version")) != game.version:
        raise BadState(f"state is for {game.name} version {_short(data.get('version'))}, not {game.version}")
    state = data.get("state")
    if not isinstance(state, dict):
        raise BadState("state.state must be a JSON object")
    options, num_players = _check_base(game, state)

    template = _template(game, num_players, json.dumps(options, sort_keys=True))
    cls = game.state_class
    missing = sorted(set(template) - set(state) - set(cls.optional_fields))
    extra = sorted(set(state) - set(template))
    if missing or extra:
        raise BadState(f"state: {'missing' if missing else 'unknown'} attributes {(missing or extra)[:5]}")

    pack = cls.packs(num_players, options)
    bounds = _Bounds(max_list=max(len(pack), num_players, MIN_LIST))
    for name, value in state.items():
        if name in BASE:
            continue
        if value is None and template[name] is not None:
            # Inside an attribute null is often "none yet"; an attribute itself keeps its type.
            raise BadState(f"state.{name}: expected {_kind(template[name])}, got null")
        # What a fresh state leaves null or empty, the game shows by example.
        _match(value, cls.examples.get(name, template[name]), f"state.{name}", bounds, 1)
    cards = set(pack)
    for name in cls.card_fields:
        for leaf in _leaves(state.get(name)):
            if leaf is not None and (isinstance(leaf, bool) or leaf not in cards):
                raise BadState(f"state.{name}: {_short(leaf)} is no card of this game's packs")
    for name in cls.seat_fields:
        value = state.get(name)
        if isinstance(value, dict) or (isinstance(value, list) and not isinstance(template[name], list)):
            raise BadState(f"state.{name}: expected a seat, got {_kind(value)}")
        for leaf in _leaves(value):
            if leaf is not None and (type(leaf) is not int or not -1 <= leaf < num_players):
                raise BadState(f"state.{name}: {_short(leaf)} is no seat of a {num_players}-player state")
    for name in cls.per_seat_fields:
        if name in cls.optional_fields and name not in state:
            continue
        if not isinstance(state[name], list) or len(state[name]) != num_players:
            raise BadState(f"state.{name}: expected one entry per seat ({num_players})")
    for name, allowed in cls.choices.items():
        value = state.get(name)
        if isinstance(value, (list, dict)) or value not in allowed:
            raise BadState(f"state.{name}: {_short(value)} is not one of {sorted(map(str, allowed))}")
    try:
        cls._check_json(state)
    except (TypeError, AttributeError, KeyError) as error:  # a game's own checks met a wrong shape
        raise BadState(f"state: attributes of the wrong shape ({type(error).__name__})") from None


def _check_base(game: Game, state: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The attributes every game has; returns the options and the player count."""
    options = state.get("options")
    if not isinstance(options, dict):
        raise BadState("state.options must be a JSON object")
    _any(options, "state.options", _Bounds(max_list=MIN_LIST), 1)
    try:
        resolved = game.resolve_options(options)
    except ValueError as error:  # BadOptions: an unknown option or a value it does not allow
        raise BadState(f"state.options: {error}") from None
    if resolved != options:
        raise BadState(f"state.options: expected every option of {game.name}: {sorted(game.options)}")
    num_players = state.get("num_players")
    if type(num_players) is not int:
        raise BadState(f"state.num_players: expected an int, got {_kind(num_players)}")
    counts = game.player_counts(options)
    if num_players not in counts:
        raise BadState(f"state.num_players: {num_players} players not allowed "
                       f"(allowed {counts.start}-{counts.stop - 1})")
    seed = state.get("seed")
    if type(seed) is not int or not -(2**63) <= seed < 2**64:
        raise BadState("state.seed: expected a 64-bit int")
    moves = state.get("moves")
    if type(moves) is not int or not 0 <= moves <= game.turn_cap:
        raise BadState(f"state.moves: expected an int from 0 to {game.turn_cap}")
    return options, num_players


@functools.lru_cache(maxsize=256)
def _template(game: Game, num_players: int, options: str) -> dict[str, Any]:
    """A fresh state of this size and these (checked) options: the shape a state keeps."""
    state: dict[str, Any] = game.new_state(num_players, 0, json.loads(options)).to_json()["state"]
    return state


# ----- the structural walk --------------------------------------------------------------------
def _match(value: Any, template: Any, path: str, bounds: _Bounds, depth: int) -> None:
    """``value`` has ``template``'s JSON type, its elements like the template's elements."""
    if value is None:
        return
    if template is None:
        _any(value, path, bounds, depth)
        return
    if _kind(value) != _kind(template) and not (_kind(template) == "a number" and _kind(value) == "an int"):
        raise BadState(f"{path}: expected {_kind(template)}, got {_kind(value)}")
    if isinstance(value, (list, dict)):
        _container(value, path, bounds, depth)
        if isinstance(value, list):
            for i, item in enumerate(value):
                _match(item, _like(item, template, f"{path}[{i}]"), f"{path}[{i}]", bounds, depth + 1)
        else:
            for key, item in value.items():
                _string(key, f"{path} key")
                like = template[key] if key in template else _like(item, template.values(), f"{path}.{key}")
                _match(item, like, f"{path}.{key}", bounds, depth + 1)
    else:
        _leaf(value, path)


def _like(value: Any, candidates: Iterable[Any], path: str) -> Any:
    """The template element ``value`` is to be checked against: the first of its own type;
    None (anything small) where the template has no elements or allows None."""
    candidates = list(candidates)
    if not candidates or value is None:
        return None
    kind = _kind(value)
    for candidate in candidates:
        if _kind(candidate) == kind or (kind == "an int" and _kind(candidate) == "a number"):
            return candidate
    if any(candidate is None for candidate in candidates):
        return None
    raise BadState(f"{path}: expected {_kind(candidates[0])}, got {kind}")


def _any(value: Any, path: str, bounds: _Bounds, depth: int) -> None:
    """Any JSON value, within the bounds."""
    if isinstance(value, list):
        _container(value, path, bounds, depth)
        for i, item in enumerate(value):
            _any(item, f"{path}[{i}]", bounds, depth + 1)
    elif isinstance(value, dict):
        _container(value, path, bounds, depth)
        for key, item in value.items():
            _string(key, f"{path} key")
            _any(item, f"{path}.{key}", bounds, depth + 1)
    elif value is not None:
        _leaf(value, path)


def _container(value: list[Any] | dict[str, Any], path: str, bounds: _Bounds, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise BadState(f"{path}: nested too deeply")
    if len(value) > bounds.max_list:
        raise BadState(f"{path}: {len(value)} entries, more than this game's packs allow ({bounds.max_list})")


def _leaf(value: Any, path: str) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -MAX_INT <= value <= MAX_INT:
            raise BadState(f"{path}: {_short(value)} is out of range")
    elif isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_INT:
            raise BadState(f"{path}: {_short(value)} is out of range")
    elif isinstance(value, str):
        _string(value, path)
    else:
        raise BadState(f"{path}: not JSON data")


def _string(value: Any, path: str) -> None:
    if not isinstance(value, str):
        raise BadState(f"{path}: expected a string, got {_kind(value)}")
    if len(value) > MAX_STRING:
        raise BadState(f"{path}: a string of {len(value)} characters, more than {MAX_STRING}")


def _leaves(value: Any) -> Iterable[Any]:
    """Every scalar inside ``value`` (lists and dict values, recursively)."""
    if isinstance(value, list):
        for item in value:
            yield from _leaves(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _leaves(item)
    else:
        yield value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an int"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _short(value: Any) -> str:
    """A value for an error message: short whatever the client sent."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"
