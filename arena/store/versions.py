"""Versions of a bot: an author who improved a bot registers a new version of it, with the
old version's own token, and the new one starts a rating of its own.

A version is a bot of its own (its own name, token, ratings and history); ``bot.version_of``
names the first version and ``bot.version`` numbers them. Registering a new version retires
the one that asked (``bot.retired_at``): it keeps everything it played and its ratings, and
leaves the ladder; only the newest version may register the next, so a lineage is a line.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.errors import BadInput, NotFound

from .bot_tokens import Registered, register
from .models import Bot, utcnow

bot_t = Bot.__table__


class Retired(BadInput):
    """A retired version asked for a new one: only the newest version may."""


@dataclass(frozen=True)
class Version:
    bot_id: int
    name: str
    version: int
    created_at: datetime
    retired_at: datetime | None


def new_version(connection: Connection, bot_id: int, name: str = "", owner: str = "") -> Registered:
    """Register the next version of external bot ``bot_id`` (named ``name``, else
    ``<first version's name>-v<N>``) and retire ``bot_id``; returns the new bot and its token."""
    bot = connection.execute(sa.select(bot_t).where(bot_t.c.id == bot_id).with_for_update()).first()
    if bot is None or bot.kind != "external":
        raise NotFound(f"no external bot {bot_id}")
    if bot.retired_at is not None:
        newest = lineage(connection, bot_id)[-1]
        raise Retired(f"bot {bot.name} was replaced by {newest.name}: register new versions with the newest one's token")
    first = bot.version_of or bot.id
    number = max(v.version for v in lineage(connection, bot_id)) + 1
    if not name:
        name = f"{connection.execute(sa.select(bot_t.c.name).where(bot_t.c.id == first)).scalar_one()}-v{number}"
    made = register(connection, name, owner)
    connection.execute(bot_t.update().where(bot_t.c.id == made.bot_id).values(version_of=first, version=number))
    connection.execute(bot_t.update().where(bot_t.c.id == bot_id).values(retired_at=utcnow()))
    return made


def lineage(connection: Connection, bot_id: int) -> list[Version]:
    """Every version of the bot ``bot_id`` belongs to, first to newest."""
    first = connection.execute(sa.select(sa.func.coalesce(bot_t.c.version_of, bot_t.c.id))
                               .where(bot_t.c.id == bot_id)).scalar_one_or_none()
    if first is None:
        raise NotFound(f"no bot {bot_id}")
    rows = connection.execute(
        sa.select(bot_t.c.id, bot_t.c.name, bot_t.c.version, bot_t.c.created_at, bot_t.c.retired_at)
        .where((bot_t.c.id == first) | (bot_t.c.version_of == first)).order_by(bot_t.c.version, bot_t.c.id)).all()
    return [Version(int(r.id), str(r.name), int(r.version), r.created_at, r.retired_at) for r in rows]
