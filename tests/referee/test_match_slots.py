"""A bot's slots among its matches at once (``max_matches``), kept in Redis by the mailbox: a
match takes a slot while there is one, a match already in keeps its own, and a slot left by a
runner that died (its entry older than the keys' lifetime) is taken back only when the set is
full."""

from __future__ import annotations

import asyncio
import time
import uuid

import redis

from arena.referee.mailbox import KEY_TTL, RedisMailbox


def test_a_full_set_of_slots_takes_back_only_the_stale_ones(shared_redis: str) -> None:
    prefix = f"test:{uuid.uuid4().hex}:"
    admin = redis.Redis.from_url(shared_redis, decode_responses=True)
    slots = f"{prefix}live:bot"
    long_ago = time.time() - KEY_TTL - 60  # a runner that died without leaving
    admin.zadd(slots, {"gone-1": long_ago, "gone-2": long_ago})

    async def scenario() -> list[bool]:
        mailbox = RedisMailbox(shared_redis, prefix=prefix)
        try:
            entered = [await mailbox.enter_match("bot", "m1", 3)]  # room left: nothing pruned
            pruned_yet = await asyncio.to_thread(admin.zscore, slots, "gone-1")
            entered.append(pruned_yet is not None)
            entered.append(await mailbox.enter_match("bot", "m2", 3))  # full: the stale two go
            entered.append(await mailbox.enter_match("bot", "m3", 3))
            entered.append(await mailbox.enter_match("bot", "m4", 3))  # full of live matches
            entered.append(await mailbox.enter_match("bot", "m2", 3))  # already in: keeps its slot
            await mailbox.leave_match("bot", "m1")
            entered.append(await mailbox.enter_match("bot", "m4", 3))  # a slot was left
            return entered
        finally:
            await mailbox.close()

    try:
        assert asyncio.run(scenario()) == [True, True, True, True, False, True, True]
        assert sorted(admin.zrange(slots, 0, -1)) == ["m2", "m3", "m4"]
        assert 0 < admin.ttl(slots) <= KEY_TTL
    finally:
        admin.delete(slots)
        admin.close()
