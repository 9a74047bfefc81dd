"""External bots as players of tournament matches: the worker side of the mailbox.

``ARENA_REDIS_URL`` set: the mailbox is Redis, shared with every gateway. Embedded: one
in-process mailbox, shared with the gateway running in this same process. The settings come
from the model (``arena.settings``): ``grace_seconds``, how long a disconnected bot may stay
away before it forfeits its match; ``clock_allowance``, how long past a bot's time the runner
waits for the gateway's word on a turn; ``mailbox_prefix``, the Redis key prefix, so that
several arenas can share one Redis.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

from arena.settings import ArenaSettings, load

from .mailbox import LocalMailbox, Mailbox, RedisMailbox
from .remote import MatchInfo, RemotePlayer

_lock = threading.Lock()
_mailboxes: dict[tuple[str, str], Mailbox] = {}  # (Redis URL or "", key prefix) -> mailbox


def mailbox(settings: ArenaSettings | None = None) -> Mailbox:
    """The process's mailbox for ``settings`` (default the process's): one per Redis URL and
    key prefix, or the local one."""
    settings = settings or load()
    key = (settings.redis_url or "", settings.mailbox_prefix)
    with _lock:
        box = _mailboxes.get(key)
        if box is None:
            url, prefix = key
            box = _mailboxes[key] = RedisMailbox(url, prefix=prefix) if url else LocalMailbox()
        return box


def forget() -> None:
    """Drop this process's mailboxes (a test starting a fresh arena in the same process)."""
    with _lock:
        _mailboxes.clear()


def external_player(spec: Any, seat: int, settings: ArenaSettings | None = None) -> RemotePlayer:
    """The player for an external bot's seat in a claimed match (``arena.tournaments.play``),
    with ``settings`` (default the process's)."""
    settings = settings or load()
    bot = spec.bots[seat]
    info = MatchInfo(
        match_id=str(spec.id), game=spec.game, options=dict(spec.options), seat=seat,
        num_players=len(spec.bots), players=[b["name"] for b in spec.bots],
        move_deadline_ms=int(spec.clock.move * 1000), time_bank_ms=int(spec.clock.bank * 1000),
        tournament_id=str(spec.tournament_id or ""))
    return RemotePlayer(mailbox(settings), str(bot["id"]), info, grace=settings.grace_seconds,
                        server_allowance=settings.clock_allowance,
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
