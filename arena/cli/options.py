"""Parsing ``--option name=value`` pairs against a game's declared options, and ``HOST:PORT``."""

from __future__ import annotations

import json
from typing import Any

from arena.errors import BadInput
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


def host_port(address: str, option: str) -> tuple[str, int]:
    """``HOST:PORT`` as given to ``option``, or ``BadInput`` naming it."""
    host, _, port = address.rpartition(":")
    if not (host and port.isdigit()):
        raise BadInput(f"{option}: {address!r} is not HOST:PORT")
    return host, int(port)
