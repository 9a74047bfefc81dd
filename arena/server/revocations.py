"""Revocation reaches every gateway, whatever path revoked the token.

A token may be revoked by the Arena service of any gateway, by ``arena bot revoke`` on any
machine, or straight in the database. Each gateway therefore watches the store: every
``INTERVAL`` seconds one small query lists the tokens revoked since its last look; streams
opened with them are closed (``revoked``, then UNAUTHENTICATED) and bots left without a
live token are marked revoked in the mailbox, so the matches they are playing or waiting
for forfeit at once instead of waiting out the grace period.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from arena.errors import first_line
from arena.store import db
from arena.store.models import BotToken, utcnow

log = logging.getLogger("arena.revocations")
token_t = BotToken.__table__

INTERVAL = 0.5  # seconds between looks: revocation takes effect within about this
LOOKBACK = timedelta(seconds=5)  # revocations just before the watcher started, and clock skew


def revoked_since(since: datetime) -> list[Any]:
    """(token hash, bot id, revoked at, whether the bot still has a live token) of every token
    revoked at or after ``since``."""
    revoked = token_t.alias("revoked")
    live = (sa.select(sa.func.count()).select_from(token_t)
            .where(token_t.c.bot_id == revoked.c.bot_id, token_t.c.revoked_at.is_(None))
            .correlate(revoked).scalar_subquery())
    query = (sa.select(revoked.c.token_hash, revoked.c.bot_id, revoked.c.revoked_at, live.label("live"))
             .where(revoked.c.revoked_at.is_not(None), revoked.c.revoked_at >= since))
    with db.read() as connection:
        return list(connection.execute(query).all())


async def watch(gateway: Any, interval: float = INTERVAL) -> None:
    """Run for ever: apply new revocations to ``gateway`` (an ``arena.referee.gateway.Gateway``)."""
    since = utcnow() - LOOKBACK
    seen: set[str] = set()
    while True:
        try:
            rows = await asyncio.to_thread(revoked_since, since)
        except Exception as error:  # the store is down: try again, never stop watching
            log.warning("cannot read revocations: %s", first_line(error))
            rows = []
        fresh = [r for r in rows if r.token_hash not in seen]
        for row in fresh:
            if not row.live:
                await gateway.mailbox.set_revoked(str(row.bot_id), True)
        if fresh:
            await gateway.kick_tokens({r.token_hash for r in fresh}, "the bot's token was revoked")
        # Every row is at or after ``since``, so remembering this look's rows is enough; the
        # window moves on behind the newest revocation, keeping both small.
        seen = {r.token_hash for r in rows}
        if rows:
            since = max(since, max(_aware(r.revoked_at) for r in rows) - LOOKBACK)
        await asyncio.sleep(interval)


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes for the UTC ones the store wrote."""
    return moment if moment.tzinfo else moment.replace(tzinfo=utcnow().tzinfo)
