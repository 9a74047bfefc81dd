"""What only Redis can tell the status page (when ``ARENA_REDIS_URL`` is set): tasks
waiting in the Celery queue and the bots connected to a gateway right now. Read with short
timeouts: a status page must show even when Redis is away."""

from __future__ import annotations

import time
from typing import Any

from arena.referee.mailbox import ONLINE
from arena.settings import load


def redis_figures(scan_limit: int = 10_000) -> dict[str, Any]:
    """``{"configured": False}`` when embedded; else the queue depth and the ids of the
    connected bots (those whose presence on the mailbox's board has not lapsed: gateways
    renew it while a bot's stream is open), or the error that kept them from being read."""
    config = load()
    if not config.redis_url:
        return {"configured": False}
    import redis

    prefix = load().mailbox_prefix
    try:
        client = redis.Redis.from_url(config.redis_url, socket_timeout=1, socket_connect_timeout=1,
                                      decode_responses=True)
        depth = client.llen(config.queue)
        bots = client.zrangebyscore(f"{prefix}{ONLINE}", time.time(), "+inf", start=0, num=scan_limit)
        client.close()
    except Exception as error:  # the page reports it instead of failing
        return {"configured": True, "error": f"{type(error).__name__}: {error}"}
    return {"configured": True, "queue": config.queue, "queue_depth": depth,
            "connected_bots": sorted(bots, key=lambda b: (len(b), b))}
