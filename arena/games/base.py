"""The game contract: ``Game``, ``State``, ``Outcome``, ``Option``, ``IllegalAction`` and
``HouseBot``.

Every game in the arena is a ``Game`` subclass (metadata, construction and its house bots)
and a ``State`` subclass (the whole truth of one match). Players only ever see
``State.observation(seat)`` and ``State.legal_actions(seat)``; the referee calls
``State.apply(seat, action)``.

Rules code is pure Python: the standard library, ``arena.games`` and ``arena.errors`` only, randomness only
from the match seed.

Example::

    >>> from arena import games
    >>> state = games.get("crazy_eights").new_state(2, seed=7)
    >>> seat = state.to_act()[0]
    >>> state.apply(seat, state.legal_actions(seat)[0])
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from arena.errors import BadInput

from .schema import check_state


class IllegalAction(ValueError):
    """An action that is not legal for that seat now; the state is left unchanged."""


class BadOptions(BadInput):
    """Unknown option names, a value outside an option's choices, or a bad player count."""


@dataclass(frozen=True)
class Option:
    """One rule variant: its default (the rulebook's recommendation) and allowed values."""

    default: Any
    choices: tuple[Any, ...] = ()
    help: str = ""

    def check(self, name: str, value: Any) -> Any:
        if self.choices and value not in self.choices:
            raise BadOptions(f"option {name}={value!r}: expected one of {list(self.choices)}")
        if not self.choices and type(value) is not type(self.default):
            # Numbers given as int where a float is expected are fine.
            if not (isinstance(self.default, float) and isinstance(value, int)):
                raise BadOptions(
                    f"option {name}={value!r}: expected {type(self.default).__name__}"
                )
        return value


@dataclass(frozen=True)
class Outcome:
    """Final standings: ``scores[seat]`` (higher is better) and ``ranks[seat]`` (1 = best,
    ties share a rank, the next rank skips: 1, 1, 3)."""

    scores: list[float]
    ranks: list[int]

    @staticmethod
    def from_scores(scores: Sequence[float]) -> Outcome:
        """Rank seats by score, higher is better, equal scores share a rank."""
        ranks = [1 + sum(1 for other in scores if other > mine) for mine in scores]
        return Outcome(scores=[float(s) for s in scores], ranks=ranks)

    def to_json(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "ranks": list(self.ranks)}


class State:
    """The whole truth of one match.

    Subclasses implement the underscore hooks; the public methods add the shared
    guarantees (illegal actions leave the state untouched, the turn cap, caching).

    Subclass state must live in instance attributes of JSON types (dict with str keys,
    list, str, int, float, bool, None) so that ``to_json`` round-trips. Attributes whose
    names start with ``_`` are caches and are not serialized.
    """

    game: ClassVar[Game]

    # The game's schema, beyond what a fresh state's shape shows (``arena.games.schema``):
    # attributes holding only cards of the packs, only seats (or -1), one entry per seat,
    # and attributes whose value comes from a known set (phases and the like).
    card_fields: ClassVar[tuple[str, ...]] = ()
    seat_fields: ClassVar[tuple[str, ...]] = ()
    per_seat_fields: ClassVar[tuple[str, ...]] = ()
    choices: ClassVar[dict[str, frozenset[Any]]] = {}
    # A value of each attribute that a fresh state leaves null or empty, showing its shape.
    examples: ClassVar[dict[str, Any]] = {}
    # Attributes that states saved by an older version lack (``_restore`` fills them in).
    optional_fields: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def packs(cls, num_players: int, options: dict[str, Any]) -> list[Any]:
        """Every card the game's packs hold with these players and options (a card twice if
        two packs hold it): the names ``card_fields`` may use, and a bound on every list."""
        raise NotImplementedError

    @classmethod
    def _check_json(cls, state: dict[str, Any]) -> None:
        """Hook: checks of a state's JSON beyond the declared ones, run after them (raise
        ``arena.games.schema.BadState``); default: none."""

    def __init__(self, num_players: int, seed: int, options: dict[str, Any]) -> None:
        self.num_players = num_players
        self.seed = seed
        self.options = dict(options)
        self.moves = 0  # decisions applied so far; drives the turn cap and the rng stream
        self._legal: dict[int, list[str]] = {}

    # ----- hooks for subclasses -------------------------------------------------------
    def _to_act(self) -> tuple[int, ...]:
        raise NotImplementedError

    def _legal_actions(self, seat: int) -> list[str]:
        raise NotImplementedError

    def _apply(self, seat: int, action: str) -> None:
        raise NotImplementedError

    def _finished(self) -> bool:
        """True when the rulebook's end condition is met (the turn cap is handled here)."""
        raise NotImplementedError

    def _scores(self) -> list[float]:
        """Scores (higher is better) at the end; also called when the turn cap ends a match,
        so it must give a fair standing for an unfinished game."""
        raise NotImplementedError

    def _observation(self, seat: int) -> dict[str, Any]:
        raise NotImplementedError

    def _resample(self, seat: int, rng: random.Random) -> None:
        """Re-deal, in place on a clone, everything ``seat`` cannot see."""
        raise NotImplementedError

    # ----- the contract ---------------------------------------------------------------
    def rng(self, tag: str = "") -> random.Random:
        """A random stream for this point of the match, derived from the seed alone.

        Deriving it from (seed, moves, tag) instead of keeping a live generator keeps the
        state small, JSON-clean and exactly replayable."""
        return random.Random(f"{self.game.name}:{self.seed}:{self.moves}:{tag}")

    def to_act(self) -> tuple[int, ...]:
        """Seats that must decide now; () when the match is over; several seats when the
        decision is simultaneous."""
        if self.is_terminal():
            return ()
        return self._to_act()

    def legal_actions(self, seat: int) -> list[str]:
        """Sorted, stable, human-readable action ids for ``seat`` (empty if it need not act)."""
        cached = self._legal.get(seat)
        if cached is None:
            if seat in self.to_act():
                cached = sorted(self._legal_actions(seat))
            else:
                cached = []
            self._legal[seat] = cached
        return list(cached)

    def apply(self, seat: int, action: str) -> None:
        """Apply ``seat``'s ``action``. Raises ``IllegalAction`` (state unchanged) unless the
        action is among ``legal_actions(seat)``."""
        if not isinstance(action, str) or not isinstance(seat, int):
            raise IllegalAction(f"seat {seat!r}: action must be a string, got {action!r}")
        cached = self._legal.get(seat)
        if cached is None:
            cached = self.legal_actions(seat)
        if action not in cached:
            if seat not in self.to_act():
                raise IllegalAction(f"seat {seat} is not to act now (to act: {self.to_act()})")
            raise IllegalAction(f"seat {seat}: {action!r} is not a legal action now")
        self._apply(seat, action)
        self.moves += 1
        self._legal = {}

    def is_terminal(self) -> bool:
        """True when the match is over: the rulebook's end, or the game's turn cap."""
        return self.moves >= self.game.turn_cap or self._finished()

    def capped(self) -> bool:
        """True when the turn cap, not the rules, ended the match."""
        return self.moves >= self.game.turn_cap and not self._finished()

    def outcome(self) -> Outcome:
        """Scores and ranks; only meaningful once ``is_terminal()``."""
        return Outcome.from_scores(self._scores())

    def observation(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may know, JSON-ready. Always carries ``seat``, ``num_players`` and
        ``to_act``; the rest is per game (see ``docs/games/<game>.md``)."""
        obs = {"seat": seat, "num_players": self.num_players, "to_act": list(self.to_act())}
        obs.update(self._observation(seat))
        return obs

    def clone(self) -> State:
        """An independent copy."""
        twin = copy.copy(self)
        for key, value in self.__dict__.items():
            if isinstance(value, (list, dict)):
                twin.__dict__[key] = _deep(value)
        twin._legal = {}
        return twin

    def resample_hidden(self, seat: int, rng: random.Random) -> State:
        """A full state ``seat`` cannot tell apart from this one: everything it cannot see
        re-dealt consistently with what it has seen (determinization for search)."""
        twin = self.clone()
        twin._resample(seat, rng)
        # The seed is hidden too: with it a bot could re-deal the true cards and foresee
        # every later shuffle. The resampled world gets a future of its own.
        twin.seed = rng.randrange(2**62)
        twin._legal = {}
        return twin

    def to_json(self) -> dict[str, Any]:
        """The whole state as JSON-ready data; ``Game.state_from_json`` restores it."""
        data = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return {"game": self.game.name, "version": self.game.version, "state": _deep(data)}

    def _restore(self) -> None:
        """Hook: rebuild caches after ``Game.state_from_json`` (default: nothing to do)."""

    def __repr__(self) -> str:
        return f"<{self.game.name} state moves={self.moves} to_act={self.to_act()}>"


class HouseBot:
    """An in-process player that sees exactly what an external bot sees: built per match and
    seat with ``(seat, seed)``, it answers ``act(observation, legal_actions) -> action`` and
    never looks at the state (``arena.games.house`` builds and asks them)."""

    # True for bots that search: they get a sample state (see ``arena.games.house.decide``).
    wants_sample: ClassVar[bool] = False

    def __init__(self, seat: int, seed: int) -> None:
        self.seat = seat
        self.random = random.Random(f"bot:{seat}:{seed}")

    def act(self, observation: dict[str, Any], legal_actions: list[str]) -> str:
        """Choose one of ``legal_actions`` for this seat's ``observation``."""
        raise NotImplementedError


class Searcher(Protocol):
    """How a game's own ``search`` house bot is built: ``(game name, seat, seed)``."""

    def __call__(self, game: str, seat: int, seed: int) -> HouseBot: ...


def _deep(value: Any) -> Any:
    """Fast deep copy for JSON-shaped data (much cheaper than ``copy.deepcopy``)."""
    if isinstance(value, list):
        return [_deep(v) if isinstance(v, (list, dict)) else v for v in value]
    if isinstance(value, dict):
        return {k: _deep(v) if isinstance(v, (list, dict)) else v for k, v in value.items()}
    return value


class Game:
    """A game's metadata, its state factory and its house bots. Subclasses set the class
    attributes; everything the arena knows of a game is derived from them."""

    name: ClassVar[str]  # the game's one name: registry, wire, store, docs page
    title: ClassVar[str]
    version: ClassVar[str] = "1"
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[dict[str, Option]] = {}
    turn_cap: ClassVar[int] = 10_000
    state_class: ClassVar[type[State]]
    # False only for games of perfect information (the leak test then expects no change).
    has_hidden_information: ClassVar[bool] = True
    # Option sets the conformance suite plays besides the defaults.
    test_option_sets: ClassVar[list[dict[str, Any]]] = []
    # Option sets `make bench` measures besides the defaults.
    bench_option_sets: ClassVar[list[dict[str, Any]]] = []
    # The house bot ``heuristic`` (a ``HouseBot`` class, built with ``(seat, seed)``); also the
    # guide and the playout policy of ``search``. None: the game has no ``heuristic``.
    heuristic: ClassVar[type[HouseBot] | None] = None
    # The house bot ``search``: the game's own searcher, built with ``(game name, seat, seed)``
    # (a subclass of ``arena.games.search.SearchBot``); None: the generic ``SearchBot``.
    search: ClassVar[Searcher | None] = None
    # ``search``'s budget for this game: fields of ``arena.games.search.Budget`` that differ
    # from its defaults (figures in the game's docs page).
    search_budget: ClassVar[dict[str, Any]] = {}

    def player_counts(self, options: dict[str, Any] | None = None) -> range:
        """Legal player counts under these options (some games need a second deck)."""
        return range(self.min_players, self.max_players + 1)

    def resolve_options(self, options: dict[str, Any] | None) -> dict[str, Any]:
        """Defaults filled in; unknown names or bad values raise ``BadOptions``."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(self.options))
        if unknown:
            raise BadOptions(f"{self.name}: unknown options {unknown}; known: {sorted(self.options)}")
        return {
            name: opt.check(name, options[name]) if name in options else opt.default
            for name, opt in self.options.items()
        }

    def new_state(self, num_players: int, seed: int, options: dict[str, Any] | None = None) -> State:
        """A new match: ``num_players`` seats, all randomness from ``seed``."""
        resolved = self.resolve_options(options)
        if num_players not in self.player_counts(resolved):
            counts = self.player_counts(resolved)
            raise BadOptions(
                f"{self.name}: {num_players} players not allowed with these options "
                f"(allowed {counts.start}-{counts.stop - 1})"
            )
        return self.state_class(num_players, int(seed), resolved)

    def state_from_json(self, data: dict[str, Any]) -> State:
        """Restore a state written by ``State.to_json``. The JSON is checked against the
        game's schema first (``arena.games.schema``): anything else raises ``BadState``, a
        ``ValueError``, before any game code runs."""
        check_state(self, data)
        state = self.state_class.__new__(self.state_class)
        state.__dict__.update(_deep(data["state"]))
        state._legal = {}
        state._restore()
        return state

    def describe(self) -> dict[str, Any]:
        """Metadata for listings (CLI, gRPC ``ListGames``)."""
        return {
            "name": self.name,
            "title": self.title,
            "version": self.version,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "options": {
                n: {"default": o.default, "choices": list(o.choices), "help": o.help}
                for n, o in self.options.items()
            },
        }


def dumps(value: Any) -> str:
    """Canonical JSON (sorted keys, no spaces): what goes over the wire and into the store."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))
