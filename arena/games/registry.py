"""The registry of games: each game once, under the name its ``Game`` class declares.

A game of the arena is a subpackage of ``arena.games`` whose ``__init__`` exports its one
``Game`` subclass; the modules beside the packages (``base``, ``cards``, ``hidden``,
``schema``, ``testing``, ...) are helpers, never games. Games are discovered on first use, so
adding a game is adding its package. A game from elsewhere joins with ``register``.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from pathlib import Path
from types import ModuleType

from arena.errors import UnknownGame

from .base import Game

PACKAGE = __name__.rpartition(".")[0]

_registry: dict[str, Game] = {}
_discovered = False
_discovering = threading.RLock()


def register(game: Game) -> Game:
    """Add ``game`` to the registry under ``game.name`` (its house bots come from its class:
    ``arena.games.house``). Registering the same game again changes nothing; another game
    of the same name is a ``ValueError``."""
    existing = _registry.get(game.name)
    if existing is not None and type(existing) is not type(game):
        raise ValueError(f"two games named {game.name!r}")
    game.state_class.game = game
    _registry[game.name] = game
    return game


def game_packages() -> list[str]:
    """The names of the game packages under ``arena.games`` (every subpackage)."""
    here = [str(Path(__file__).parent)]
    return sorted(m.name for m in pkgutil.iter_modules(here) if m.ispkg and not m.name.startswith("_"))


def game_class(package: ModuleType) -> type[Game]:
    """The one ``Game`` subclass that a game package defines and exports."""
    found = {
        value for value in vars(package).values()
        if isinstance(value, type) and issubclass(value, Game)
        and value.__module__.startswith(f"{package.__name__}.")
    }
    if len(found) != 1:
        raise TypeError(f"{package.__name__} exports {len(found)} Game classes, not one")
    return found.pop()


def _discover() -> None:
    # Under a lock, and marked done only once every game is in: a live worker's threads ask
    # at once, and none may see the registry half filled.
    global _discovered
    if _discovered:
        return
    with _discovering:
        if _discovered:
            return
        for name in game_packages():
            register(game_class(importlib.import_module(f"{PACKAGE}.{name}"))())
        _discovered = True


def names() -> list[str]:
    """Names of every registered game, sorted."""
    _discover()
    return sorted(_registry)


def get(name: str) -> Game:
    """The game called ``name``; ``UnknownGame`` (a ``KeyError``) lists the known names."""
    _discover()
    try:
        return _registry[name]
    except KeyError:
        raise UnknownGame(f"unknown game {name!r}; known: {', '.join(sorted(_registry))}") from None
