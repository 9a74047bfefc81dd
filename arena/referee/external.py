"""External bots as players of tournament matches: the worker side of the mailbox.

``ARENA_REDIS_URL`` set: the mailbox is Redis, shared with every gateway. Embedded: one
in-process mailbox, shared with the gateway running in this same process.
``ARENA_GRACE_SECONDS`` (default 30): how long a disconnected bot may stay away before it
forfeits its match. ``ARENA_CLOCK_ALLOWANCE`` (default 5): how long past a bot's time the runner
waits for the gateway's word on a turn. ``ARENA_MAILBOX_PREFIX`` (default ``arena:mb:``): the Redis key prefix,
so that several arenas can share one Redis.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from typing import Any

from arena.config import settings

from .mailbox import LocalMailbox, Mailbox, RedisMailbox
from .remote import MatchInfo, RemotePlayer

_lock = threading.Lock()
_mailboxes: dict[str, Mailbox] = {}
_urls: dict[tuple[str | None, str | None], str] = {}  # (ARENA_REDIS_URL, ARENA_CONFIG) -> Redis URL
_allowances: dict[tuple[str | None, str | None], float] = {}  # (ARENA_CLOCK_ALLOWANCE, ARENA_CONFIG) -> s


def _redis_url() -> str:
    """``settings().redis_url``, read once for each value of the variables it comes from:
    reading and validating every setting costs milliseconds, and a match asks once per
    external seat."""
    key = (os.environ.get("ARENA_REDIS_URL"), os.environ.get("ARENA_CONFIG"))
    url = _urls.get(key)
    if url is None:
        url = _urls[key] = settings().redis_url or ""
    return url


def clock_allowance() -> float:
    """The ``clock_allowance`` setting, read once for each value of its variables (as
    ``_redis_url``)."""
    key = (os.environ.get("ARENA_CLOCK_ALLOWANCE"), os.environ.get("ARENA_CONFIG"))
    allowance = _allowances.get(key)
    if allowance is None:
        from arena.settings import load

        allowance = _allowances[key] = load().clock_allowance
    return allowance


def mailbox() -> Mailbox:
    """The process's mailbox for the current settings (one per Redis URL, or the local one)."""
    url = _redis_url()
    with _lock:
        box = _mailboxes.get(url)
        if box is None:
            prefix = os.environ.get("ARENA_MAILBOX_PREFIX", "arena:mb:")
            box = _mailboxes[url] = RedisMailbox(url, prefix=prefix) if url else LocalMailbox()
        return box


def forget() -> None:
    """Drop this process's mailboxes (a test starting a fresh arena in the same process)."""
    with _lock:
        _mailboxes.clear()
        _urls.clear()
        _allowances.clear()


def grace_seconds() -> float:
    return float(os.environ.get("ARENA_GRACE_SECONDS", "30"))


def external_player(spec: Any, seat: int) -> RemotePlayer:
    """The player for an external bot's seat in a claimed match (``arena.tournaments.play``)."""
    bot = spec.bots[seat]
    info = MatchInfo(
        match_id=str(spec.id), game=spec.game, options=dict(spec.options), seat=seat,
        num_players=len(spec.bots), players=[b["name"] for b in spec.bots],
        move_deadline_ms=int(spec.clock.move * 1000), time_bank_ms=int(spec.clock.bank * 1000),
        tournament_id=str(spec.tournament_id or ""))
    return RemotePlayer(mailbox(), str(bot["id"]), info, grace=grace_seconds(), server_allowance=clock_allowance(),
                        challenge=spec.tournament_id is None)  # only challenges stand alone


def wait_connected(bot_ids: list[int], timeout: float) -> bool:
    """True once every bot has a live stream on some gateway; False if one is still missing
    after ``timeout`` seconds."""
    box = mailbox()

    async def all_present() -> bool:
        return all([await box.holder(str(b)) is not None for b in bot_ids])

    deadline = time.monotonic() + timeout
    while not asyncio.run(all_present()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True
