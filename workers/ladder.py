"""The ladder's pass: who is connected, who has room for a match, who meets whom, sent.

``arena serve`` runs a ``Ladder`` on its event loop (``ARENA_LADDER``, on by default). Every
``ARENA_LADDER_SECONDS`` the one leader among all servers (a Redis key when distributed, a
lock on the store when embedded: elected as the supervisor is) reads the bots online in the
mailbox with what their Hello accepts, counts each one's ladder matches not yet over, pairs
those with room for another (``arena.tournaments.ladder.pair``), writes the groups whole in
one transaction and sends them through the same path as any tournament's matches: Celery's
queues when distributed, this process's live loop when embedded.

Why nothing is lost or doubled when a leader dies: a pass writes its groups in one
transaction (all of a group or none of it), and counts what is in play from the store, not
from its memory, so the next leader starts from what was written. Groups written and not yet
sent are the supervisor's to send again (sent, with nothing behind it), as for any match.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from arena import metrics, ratings
from arena.clock import Clock
from arena.games import names as game_names
from arena.referee import consent
from arena.referee.mailbox import Mailbox
from arena.store import db
from arena.tournaments import ladder

log = logging.getLogger(__name__)

Send = Callable[[list[int]], object]


class Leader(Protocol):
    def lead(self) -> bool: ...

    def release(self) -> None: ...


class Ladder:
    """The ladder of one server: ``run()`` passes every ``interval`` seconds while this server
    leads; ``pass_once()`` is one pass (tests call it)."""

    def __init__(self, mailbox: Mailbox, send: Send, leader: Leader, interval: float,
                 search_matches: int, clock: Clock | None = None, sent_by: str | None = None) -> None:
        self.mailbox = mailbox
        self.send = send
        self.sent_by = sent_by  # embedded: this process, which plays what it sends
        self.leader = leader
        self.interval = interval
        self.search_matches = search_matches
        self.clock = clock or Clock()
        self.passes = 0
        self._failing = False
        self._met: dict[ladder.Board, ladder.Meetings] = {}  # per board, read incrementally
        self._entries_written = True  # until a pass has cleared what an earlier leader left

    async def run(self) -> None:
        try:
            while True:
                started = time.monotonic()
                try:
                    await self.pass_once()
                    if self._failing:
                        log.warning("ladder: pairing again")
                    self._failing = False
                except Exception as error:  # a database or Redis outage: try again next pass
                    if not self._failing:
                        log.warning("ladder: a pass failed, trying again every %.0f s: %s", self.interval,
                                    " ".join(str(error).split())[:300])
                    self._failing = True
                await asyncio.sleep(max(0.0, self.interval - (time.monotonic() - started)))
        finally:
            await asyncio.to_thread(self.leader.release)

    async def pass_once(self) -> list[int]:
        """One pass; returns the ids of the matches it scheduled and sent (none when it does
        not lead)."""
        try:
            if not await asyncio.to_thread(self.leader.lead):
                metrics.LADDER_PASSES.labels(outcome="standby").inc()
                return []
            self.passes += 1
            # Reading the mailbox awaits on the server's loop, where the gateway's work goes on
            # meanwhile: its CPU is counted with the gateway's, not here.
            online: dict[int, dict[str, Any]] = {}
            for bot_id in await self.mailbox.online():
                if not await self.mailbox.revoked(bot_id):
                    online[int(bot_id)] = await self.mailbox.prefs(bot_id)
            scheduled = await asyncio.to_thread(self._timed, self._schedule, online)
            if scheduled:
                await asyncio.to_thread(self._timed, self.send, scheduled)
        except Exception:
            metrics.LADDER_PASSES.labels(outcome="error").inc()
            raise
        metrics.LADDER_PASSES.labels(outcome="led").inc()
        metrics.LADDER_SCHEDULED.inc(len(scheduled))
        return scheduled

    @staticmethod
    def _timed(work: Callable[..., Any], *args: Any) -> Any:
        """``work(*args)`` on this thread, its CPU time counted as the ladder's."""
        started = time.thread_time()
        try:
            return work(*args)
        finally:
            metrics.LADDER_CPU.inc(time.thread_time() - started)

    def _schedule(self, online: dict[int, dict[str, Any]]) -> list[int]:
        """Pair and write the groups of this pass, in one transaction; the new match ids."""
        with db.transaction() as connection:
            gone = ladder.retired(connection, online)
            seatings = ladder.ladder_seatings(connection)
            in_play = Counter(bot for _, seating in seatings for bot in set(seating))
            per_board = Counter(board for board, _ in seatings)
            standing = {bot_id: prefs for bot_id, prefs in online.items() if bot_id not in gone}
            entries: list[dict[str, object]] = [
                {"bot_id": bot_id, "games": prefs.get("games") or [], "table_sizes": consent.table_sizes(prefs),
                 "max_matches": _most(prefs), "in_play": in_play[bot_id]} for bot_id, prefs in standing.items()]
            ready = [bot_id for bot_id, prefs in standing.items() if in_play[bot_id] < _most(prefs)]
            wanted = {board for bot_id in ready for board in self._boards(online[bot_id])}
            used: set[int] = set()
            scheduled: list[int] = []
            nonce = secrets.token_hex(8)
            for board in sorted(wanted, key=lambda b: (per_board[b.key], b)):  # the quietest boards first
                seeker_ids = [b for b in ready if b not in used and board in self._boards(online[b])
                              and _room(in_play[b], _most(online[b]), board.players)]
                if not seeker_ids:
                    continue
                fixed = ladder.fixed_points(connection, board.game)
                search = fixed.get("search")
                if search is not None and in_play[search] + board.players > self.search_matches:
                    del fixed["search"]  # the search bot's CPU is bounded
                entrants = ladder.entrants(connection, board.game, seeker_ids, fixed.values())
                seekers = sorted((entrants[b] for b in seeker_ids),
                                 key=lambda e: (e.half <= ratings.PROVISIONAL_HALF_WIDTH, in_play[e.bot_id], e.bot_id))
                groups = ladder.pair(board.players, seekers, [entrants[h] for h in fixed.values()],
                                     self._meetings(board).update(connection))
                scheduled += ladder.schedule(connection, board, groups, self.clock, nonce, self.sent_by)
                for group in groups:
                    used.update(group)
                    for bot in group:
                        in_play[bot] += board.players
            if entries or self._entries_written:  # an idle server writes nothing, pass after pass
                ladder.record_entries(connection, entries)
                self._entries_written = bool(entries)
        if scheduled:
            log.info("ladder: %d matches scheduled for %d bots", len(scheduled), len(used))
        return scheduled

    def _meetings(self, board: ladder.Board) -> ladder.Meetings:
        if board not in self._met:
            self._met[board] = ladder.meetings(board)
        return self._met[board]

    @staticmethod
    def _boards(prefs: dict[str, Any]) -> set[ladder.Board]:
        games = [g for g in (prefs.get("games") or game_names()) if g in game_names()]
        return set(ladder.boards(games, consent.table_sizes(prefs)))


def _room(in_play: int, most: int, rotations: int) -> bool:
    """Whether a bot with ``in_play`` ladder matches not over has room for a group of
    ``rotations`` matches: all of them at once within its ``most``, so that none waits for one
    of its slots holding the other bots' (a group larger than its ``most`` waits for a bot with
    nothing in play, and then plays in turn)."""
    return in_play == 0 or in_play + rotations <= most


def _most(prefs: dict[str, Any]) -> int:
    """The matches at once a bot asked for (as its gateway granted them)."""
    return max(1, int(prefs.get("max_matches", 1)))


def embedded_send(match_ids: list[int]) -> None:
    """Embedded: play the matches in this process, on a thread of their own (as the server
    plays a tournament it was asked for)."""
    from .pool import play

    threading.Thread(target=play, args=(match_ids,), name=f"ladder-{match_ids[0]}", daemon=True).start()


def from_settings(mailbox: Mailbox) -> Ladder:
    """The ladder the settings ask for: embedded it plays here and leads through a lock on the
    store; distributed it sends to Celery and leads through a Redis key."""
    from arena.settings import load

    config = load()
    if config.embedded:
        from arena.store.leader import StoreLeader
        from arena.tournaments.play import worker_name

        leader: Leader = StoreLeader(config.database_url, role="ladder")
        send: Send = embedded_send
        sent_by: str | None = worker_name()
    else:
        import redis

        from .app import make_app
        from .send import Sender
        from .supervisor import RedisLeader

        client = redis.Redis.from_url(config.redis_url or "", socket_timeout=5, socket_connect_timeout=5)
        name = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        leader = RedisLeader(client, f"arena:ladder:{config.queues[0]}", name, config.ladder_seconds)
        send = Sender(make_app())
        sent_by = None
    return Ladder(mailbox, send, leader, config.ladder_seconds, config.ladder_search_matches, sent_by=sent_by)
