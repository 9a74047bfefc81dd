"""The house bots' namespace, one spelling everywhere.

A house bot is named by its strategy, optionally with a suffix for a second copy
(``heuristic``, ``random-2``), and may be written with the ``house:`` prefix
(``house:heuristic``) wherever a bot is named: tournaments, challenges, the command line.
Every such name is reserved, whatever its case: an external bot cannot register
``heuristic-2`` (or ``Heuristic-2``) and be seated by a later tournament in place of the house
bot, or pass for one on a page.

Names are compared as registration compares them, whatever their case: ``Heuristic`` and
``house:HEURISTIC`` name the house bot stored as ``heuristic``, ``ALICE`` the registered
``Alice`` (the store keeps names unique by ``lower(name)``).
"""

from __future__ import annotations

import functools

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena import games
from arena.errors import BadInput, UnknownBot

from .models import Bot

PREFIX = "house:"
bot_t = Bot.__table__


@functools.cache
def strategies() -> frozenset[str]:
    """Every house strategy of every game (``random``, ``heuristic``, ...)."""
    return frozenset(name for game in games.names() for name in games.bot_names(game))


def house_name(name: str) -> str | None:
    """The stored name of the house bot ``name`` spells, in any case (``house:Random-2`` ->
    ``random-2``), or None when ``name`` is not a house bot's name. ``house:`` with an unknown
    strategy is ``UnknownBot`` (a ValueError): the caller clearly meant a house bot."""
    folded = name.lower()  # house bots are stored in lower case
    bare = folded.removeprefix(PREFIX)
    if bare.split("-", 1)[0] in strategies():
        return bare
    if folded.startswith(PREFIX):
        raise UnknownBot(f"no house bot {bare!r}: house bots are {', '.join(sorted(strategies()))}")
    return None


def reserved(name: str) -> bool:
    """True for names an external bot may not take (compared in lower case)."""
    folded = name.lower()
    return folded.startswith("house") or ":" in folded or house_name(folded) is not None


def resolve(connection: Connection, name: str) -> int:
    """The id of the bot a tournament or challenge names, whatever its case: a house bot
    (created on first use) or an existing bot; an unknown name is ``UnknownBot`` (a ValueError)."""
    from .queries import ensure_house_bot

    stored = house_name(name)
    found = connection.execute(
        sa.select(bot_t.c.id, bot_t.c.kind).where(sa.func.lower(bot_t.c.name) == (stored or name.lower()))).first()
    if stored is not None:
        if found is not None and found.kind != "house":
            raise BadInput(f"{stored!r} is a house bot's name held by an external bot: revoke and rename it")
        return int(found.id) if found is not None else ensure_house_bot(connection, stored)
    if found is None:
        raise UnknownBot(f"no bot named {name!r}: register it first, or name a house bot "
                         f"({', '.join(PREFIX + s for s in sorted(strategies()))})")
    return int(found.id)
