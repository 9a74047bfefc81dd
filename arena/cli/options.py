"""Parsing ``--option name=value`` pairs against a game's declared options."""

from __future__ import annotations

import json
from typing import Any

from arena.games import BadOptions, Game


def parse_options(game: Game, pairs: list[str] | None) -> dict[str, Any]:
    """``["hand=7", "fastplay=true"]`` -> typed options for ``game``; values are read as JSON
    when they parse (numbers, booleans, lists) and as strings otherwise."""
    options: dict[str, Any] = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise BadOptions(f"option {pair!r}: expected NAME=VALUE")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options[name.strip()] = value
    return game.resolve_options(options)
