"""External bots and their tokens.

A token is 32 random bytes (URL-safe text) shown once at registration. Only its SHA-256 is
stored: tokens are random and long, so a fast hash is as safe as a slow one and keeps
authentication cheap. Lookups go by hash; the final comparison is constant-time anyway, so
timing tells an attacker nothing about how close a guess came. A revoked token stops
working at once; revoking again is harmless.

A name is matched whole (no trailing newline slips through) and is unique whatever its case:
``Alice`` blocks ``alice``, checked here for a clear message and held by the store's unique
index on ``lower(name)`` when two registrations race.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from arena.errors import BadInput

from . import house_names
from .models import Bot, BotToken, utcnow

bot_t = Bot.__table__
token_t = BotToken.__table__

NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # with fullmatch: `$` would let a final newline in


class NameTaken(BadInput):
    """A bot with that name exists already."""


@dataclass(frozen=True)
class Registered:
    bot_id: int
    name: str
    token: str  # shown once


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def register(connection: Connection, name: str, owner: str = "") -> Registered:
    """Create external bot ``name`` and its first token."""
    if not NAME.fullmatch(name):
        raise BadInput("a bot name is 1-64 characters of letters, digits, '_', '.', '-'")
    if house_names.reserved(name):
        raise BadInput(f"{name!r} is reserved for house bots (names starting with 'house', or a house "
                         "strategy like 'heuristic' or 'random-2')")
    exists = connection.execute(
        sa.select(bot_t.c.name).where(sa.func.lower(bot_t.c.name) == name.lower())).scalar_one_or_none()
    if exists is not None:
        raise NameTaken(f"a bot named {exists!r} exists already (names are unique whatever their case)")
    try:
        with connection.begin_nested():  # a lost race leaves the caller's transaction usable
            bot_id = connection.execute(
                bot_t.insert().values(name=name, kind="external", strategy=None, think=0.0, created_at=utcnow())
                .returning(bot_t.c.id)
            ).scalar_one()
    except sa.exc.IntegrityError:
        raise NameTaken(f"a bot named {name!r} was registered at the same moment") from None
    return Registered(bot_id, name, issue(connection, bot_id, owner))


def new_token() -> str:
    """256 random bits as 43 URL-safe characters, never beginning with ``-``: a command line
    would read such a token, given as ``--token VALUE``, as an option of its own."""
    while (token := secrets.token_urlsafe(32)).startswith("-"):
        pass
    return token


def issue(connection: Connection, bot_id: int, owner: str = "") -> str:
    """A new token for the bot (its older tokens keep working until revoked)."""
    token = new_token()
    connection.execute(token_t.insert().values(
        bot_id=bot_id, token_hash=hash_token(token), owner=owner[:200], created_at=utcnow()))
    return token


def revoke(connection: Connection, name: str) -> int | None:
    """Revoke every token of bot ``name`` (in any case, as names are unique); returns its id,
    or None when there is no such bot."""
    bot_id = connection.execute(
        sa.select(bot_t.c.id).where(sa.func.lower(bot_t.c.name) == name.lower(), bot_t.c.kind == "external")
    ).scalar_one_or_none()
    if bot_id is None:
        return None
    connection.execute(token_t.update().where(token_t.c.bot_id == bot_id, token_t.c.revoked_at.is_(None))
                       .values(revoked_at=utcnow()))
    return int(bot_id)


def authenticate(connection: Connection, token: str) -> tuple[int, str] | None:
    """(bot id, name) for a live token, else None."""
    digest = hash_token(token)
    row = connection.execute(
        sa.select(token_t.c.token_hash, token_t.c.revoked_at, bot_t.c.id, bot_t.c.name)
        .join(bot_t, bot_t.c.id == token_t.c.bot_id)
        .where(token_t.c.token_hash == digest)
    ).first()
    if row is None or row.revoked_at is not None or not hmac.compare_digest(row.token_hash, digest):
        return None
    return int(row.id), str(row.name)


def registered(connection: Connection, names: list[str]) -> list[str]:
    """The registered (external) bots among ``names``, as stored, in the order named; house
    bots and unknown names are left out (creating a tournament tells of the unknown ones)."""
    wanted = [n.lower() for n in names if house_names.house_name(n) is None]
    if not wanted:
        return []
    rows = connection.execute(sa.select(bot_t.c.name).where(
        sa.func.lower(bot_t.c.name).in_(wanted), bot_t.c.kind == "external")).scalars()
    stored = {name.lower(): name for name in rows}
    return list(dict.fromkeys(stored[n] for n in wanted if n in stored))
