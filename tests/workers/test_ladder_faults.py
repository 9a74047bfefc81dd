"""The ladder's leader killed mid-round, with real processes: two ``arena serve`` on one Redis
and one PostgreSQL, an ``arena worker`` and SDK bots. The other server takes the lead by
itself; nothing the dead leader wrote is lost, no group is written twice for the same room,
every match is recorded once and the ratings replay to what the store holds."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path

import grpc
import pytest
import redis
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Match, Result, Tournament
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.platform import ratings_table, replayed
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(300)
GAME = "crazy_eights"
MOST = 2  # matches at once each bot asks for

BOT = f"""
import os, random, time
from arena_bot.sdk import Bot, Connection, run

class Ladderer(Bot):
    games = ["{GAME}"]
    max_matches = {MOST}

    def act(self, turn):
        time.sleep(0.01)
        return random.choice(list(turn.legal_actions))

run(Ladderer(), Connection(address=os.environ["ARENA_ADDRESS"], token=os.environ["ARENA_BOT_TOKEN"]))
"""


def ladder_rows(url: str) -> list[sa.Row]:
    match_t, tournament_t = Match.__table__, Tournament.__table__
    with db.read(url) as connection:
        return list(connection.execute(
            sa.select(match_t.c.id, match_t.c.seed, match_t.c.status, match_t.c.seating, match_t.c.tournament_id)
            .join(tournament_t, tournament_t.c.id == match_t.c.tournament_id)
            .where(tournament_t.c.kind == "ladder")).all())


def most_in_play(url: str) -> int:
    """The most ladder matches not over that any one bot has now."""
    pending = Counter(bot for row in ladder_rows(url) if row.status in ("scheduled", "running")
                      for bot in set(row.seating))
    external = set(external_ids(url))
    return max((n for bot, n in pending.items() if bot in external), default=0)


def external_ids(url: str) -> list[int]:
    with db.read(url) as connection:
        return list(connection.execute(sa.text("SELECT id FROM bot WHERE kind = 'external'")).scalars())


def serve(env: dict[str, str], port: int, log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([ARENA, "serve"], env=env | {"ARENA_GRPC_ADDRESS": f"127.0.0.1:{port}"}, cwd=ROOT,
                            stdout=log.open("ab"), stderr=subprocess.STDOUT)


def ready(port: int) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        grpc.channel_ready_future(channel).result(timeout=60)


def test_a_ladder_leader_killed_mid_round_loses_nothing_and_doubles_nothing(
        pg_url, shared_redis, queue_name, workers, tmp_path: Path) -> None:
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis,
        "ARENA_QUEUE": queue_name, "ARENA_MAILBOX_PREFIX": f"test:{uuid.uuid4().hex}:",
        "ARENA_METRICS_PORT": "0", "ARENA_GATEWAY_METRICS_PORT": "0", "ARENA_LADDER": "1",
        "ARENA_LADDER_SECONDS": "0.5", "ARENA_LADDER_SEARCH_MATCHES": "0", "ARENA_GRACE_SECONDS": "3",
        "ARENA_LEASE_SECONDS": "4", "ARENA_SUPERVISOR_SECONDS": "1", "ARENA_REGISTRATION": "open",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    db.engine(pg_url)
    key = f"arena:ladder:{queue_name}"
    client = redis.Redis.from_url(shared_redis)
    first_port, second_port = free_port(), free_port()
    first = serve(env, first_port, tmp_path / "first.log")
    processes: list[subprocess.Popen[bytes]] = [first]
    try:
        ready(first_port)
        wait_until(lambda: (client.get(key) or b"").split(b":")[1:2] == [str(first.pid).encode()],
                   timeout=30, what="the first server to lead the ladder")
        second = serve(env, second_port, tmp_path / "second.log")
        processes.append(second)
        ready(second_port)
        workers({k: v for k, v in env.items() if k.startswith("ARENA_")}, concurrency=4, command="arena")
        with grpc.insecure_channel(f"127.0.0.1:{second_port}") as channel:
            stub = arena_pb2_grpc.ArenaStub(channel)
            tokens = [stub.RegisterBot(arena_pb2.RegisterBotRequest(name=f"lad-{n}")).token for n in range(3)]
        for token in tokens:  # on the server that stays
            processes.append(subprocess.Popen(
                [sys.executable, "-c", BOT], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env | {"ARENA_ADDRESS": f"127.0.0.1:{second_port}", "ARENA_BOT_TOKEN": token}))
        peaks = []
        wait_until(lambda: peaks.append(most_in_play(pg_url)) or len({r.seed for r in ladder_rows(pg_url)}) >= 3,
                   timeout=60, what="groups scheduled by the first leader")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        before = len(ladder_rows(pg_url))
        wait_until(lambda: (client.get(key) or b"").split(b":")[1:2] == [str(second.pid).encode()],
                   timeout=30, what="the second server to take the lead")
        wait_until(lambda: peaks.append(most_in_play(pg_url)) or len(ladder_rows(pg_url)) >= before + 6,
                   timeout=90, what="the new leader to schedule groups")
        for bot in processes[2:]:
            bot.send_signal(signal.SIGTERM)
            bot.wait(15)
        wait_until(lambda: peaks.append(most_in_play(pg_url)) or all(
            r.status in ("done", "failed", "cancelled") for r in ladder_rows(pg_url)),
            timeout=150, poll=0.5, what="every ladder match to be over")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(10)
    rows = ladder_rows(pg_url)
    assert {r.status for r in rows} == {"done"}, "nothing the dead leader wrote was lost"
    by_group = Counter((r.tournament_id, r.seed) for r in rows)
    assert set(by_group.values()) == {2}, "every group whole: one deal, both rotations"
    # A pass schedules a group (two matches) for a bot only when all of it fits in its MOST
    # matches at once: more than MOST would be a group written twice.
    assert max(peaks) <= MOST, peaks
    with db.read(pg_url) as connection:
        results = Counter(connection.execute(sa.select(Result.__table__.c.match_id)).scalars())
    assert set(results) == {r.id for r in rows} and set(results.values()) == {1}, "every match recorded once"
    assert ratings_table(pg_url) == replayed(pg_url)
