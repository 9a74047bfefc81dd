"""The arena's games behind one contract (see ``arena.games.base``).

A game is a package directly under ``arena.games`` that exports its ``Game`` subclass; the
class declares everything else: its name, rules, options, house bots and search budget.
Games are discovered on first use (``arena.games.registry``), so adding a game is adding its
package. ``arena.games.testing.check_game`` is the conformance check every game passes.

    >>> from arena import games
    >>> "crazy_eights" in games.names()
    True
    >>> state = games.get("crazy_eights").new_state(2, seed=1)
"""

from __future__ import annotations

from typing import Any

from .base import BadOptions, Game, HouseBot, IllegalAction, Option, Outcome, State, dumps
from .house import RandomBot, bot_names, house_bot, register_bot
from .registry import get, names, register
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
    "describe_all",
    "dumps",
    "get",
    "house_bot",
    "names",
    "register",
    "register_bot",
]


def describe_all() -> list[dict[str, Any]]:
    """Every game's metadata, for listings."""
    return [get(n).describe() | {"bots": bot_names(n)} for n in names()]
