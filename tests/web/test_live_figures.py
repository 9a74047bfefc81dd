"""The status page's Redis figures: the bots it calls connected are those present on the
mailbox now, not those a gateway that died once held."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
import redis

from arena.referee.mailbox import RedisMailbox
from arena.web.live import redis_figures


def test_connected_bots_are_those_present_now(shared_redis: str, monkeypatch: pytest.MonkeyPatch) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    monkeypatch.setenv("ARENA_REDIS_URL", shared_redis)
    monkeypatch.setenv("ARENA_MAILBOX_PREFIX", prefix)
    box = RedisMailbox(shared_redis, prefix=prefix, presence_ttl=30.0)

    async def connect() -> None:
        await box.claim("7", "gateway-a.stream-1")  # held by a gateway whose heartbeat lives
        await box.claim("8", "gateway-b.stream-2")
        await box.close()

    asyncio.run(connect())
    client = redis.Redis.from_url(shared_redis)
    # Bot 8's gateway died a while ago: its presence lapsed on the board, its holder key stays.
    client.zadd(f"{prefix}online", {"8": time.time() - 5})
    client.delete(f"{prefix}alive:gateway-b")
    figures = redis_figures()
    assert figures["configured"] and figures["connected_bots"] == ["7"], figures
