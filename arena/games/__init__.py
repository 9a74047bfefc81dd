"""The arena's games behind one contract (see ``arena.games.base``).

Every module or package directly under ``arena.games`` that is not a helper
(``base``, ``cards``, ``house``, ``search``) is a game: importing it calls ``register``. Games are
discovered on first use, so adding a game is adding its module.

    >>> from arena import games
    >>> "crazy_eights" in games.names()
    True
    >>> state = games.get("crazy_eights").new_state(2, seed=1)
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from typing import Any

from arena.errors import UnknownGame

from . import search
from .base import BadOptions, Game, IllegalAction, Option, Outcome, State, dumps
from .house import HouseBot, RandomBot, bot_names, house_bot, register_bot
from .schema import BadState

__all__ = [
    "BadOptions",
    "BadState",
    "Game",
    "HouseBot",
    "IllegalAction",
    "Option",
    "Outcome",
    "RandomBot",
    "State",
    "bot_names",
    "dumps",
    "get",
    "house_bot",
    "names",
    "register",
    "register_bot",
]

_HELPERS = {"base", "cards", "house", "search"}
_registry: dict[str, Game] = {}
_discovered = False
_discovering = threading.RLock()


def register(game: Game) -> Game:
    """Add a game to the registry (called by each game module on import)."""
    existing = _registry.get(game.name)
    if existing is not None and type(existing) is not type(game):
        raise ValueError(f"two games named {game.name!r}")
    game.state_class.game = game
    _registry[game.name] = game
    register_bot(game.name, "search", search.factory(game.name))  # search plays every game
    return game


def _discover() -> None:
    # Under a lock, and marked done only once every game is in: a live worker's threads ask
    # at once, and none may see the registry half filled.
    global _discovered
    if _discovered:
        return
    with _discovering:
        if _discovered:
            return
        for module in pkgutil.iter_modules(__path__):
            if module.name in _HELPERS or module.name.startswith("_"):
                continue
            importlib.import_module(f"{__name__}.{module.name}")
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


def describe_all() -> list[dict[str, Any]]:
    """Every game's metadata, for listings."""
    return [get(n).describe() | {"bots": bot_names(n)} for n in names()]
