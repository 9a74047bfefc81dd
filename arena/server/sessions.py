"""Glue between the gateway and the store: token authentication off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from arena.referee.gateway import BotIdentity
from arena.store import bot_tokens, db

Kicker = Callable[[str, str], Awaitable[None]]


async def authenticate(token: str) -> BotIdentity | None:
    """The bot a token belongs to, from the store (None for unknown or revoked tokens)."""

    def lookup() -> tuple[int, str] | None:
        with db.transaction() as connection:
            return bot_tokens.authenticate(connection, token)

    found = await asyncio.to_thread(lookup)
    return BotIdentity(str(found[0]), found[1]) if found else None
