"""Live bots at a small scale, with real processes: 50 SDK bots (asyncio, two fleet processes)
connected to two `arena serve` gateways sharing one Redis, a round robin over three games
played by one `arena worker --live` (many matches at once on one event loop) while house-bot
batches go to a prefork `arena worker`. Correctness, not speed: every match recorded once,
no strike for bots that answer in time, matches in flight at once in the one live process,
bots of both gateways meeting in every pairing, ratings equal to a replay. (`make bench` runs the large version.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Match, MatchSeat
from arena.tournaments import create_tournament, pending_match_ids
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.platform import counts, finished, ratings_table, replayed
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(300)
BOTS = 50
PLAYING = 6  # of them in the round robin: 15 pairs, both seat orders, three games


def spawn(env, argv, log):
    return subprocess.Popen(argv, env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def test_fifty_bots_two_gateways_one_live_worker(pg_url, shared_redis, queue_name, tmp_path):
    gateways = [f"127.0.0.1:{free_port()}" for _ in range(2)]
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis,
        "ARENA_QUEUE": queue_name, "ARENA_LIVE_QUEUE": f"{queue_name}.live",
        "ARENA_MAILBOX_PREFIX": f"test:{uuid.uuid4().hex}:", "ARENA_GATEWAY_METRICS_PORT": "0",
        "ARENA_METRICS_PORT": "0", "ARENA_MAX_MATCHES_PER_BOT": "16",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    db.engine(pg_url)
    processes = [spawn(env | {"ARENA_GRPC_ADDRESS": address}, [ARENA, "serve"], tmp_path / f"serve{n}.log")
                 for n, address in enumerate(gateways)]
    try:
        tokens: list[list[str]] = [[], []]
        for n, address in enumerate(gateways):
            with grpc.insecure_channel(address) as channel:
                grpc.channel_ready_future(channel).result(timeout=60)
                stub = arena_pb2_grpc.ArenaStub(channel)
                for i in range(n, BOTS, 2):  # registered on either gateway: one store
                    token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name=f"fleet-{i}")).token
                    tokens[n].append(f"fleet-{i} {token}")
        for n, address in enumerate(gateways):
            file = tmp_path / f"tokens{n}"
            file.write_text("\n".join(tokens[n]) + "\n")
            processes.append(spawn(env, [sys.executable, "-m", "bots.fleet", "--tokens-file", str(file),
                                         "--address", address, "--max-matches", "16", "--seed", str(n)],
                                   tmp_path / f"fleet{n}.log"))
        processes.append(spawn(env, [ARENA, "worker", "--live", "--concurrency", "100"], tmp_path / "live.log"))
        processes.append(spawn(env, [ARENA, "worker", "--concurrency", "1"], tmp_path / "worker.log"))

        def connected():
            from arena.referee import external

            with db.read(pg_url) as connection:
                ids = list(connection.execute(sa.text("SELECT id FROM bot WHERE name LIKE 'fleet-%'")).scalars())
            return len(ids) == BOTS and external.wait_connected(ids, timeout=0.5)

        os.environ.update({k: env[k] for k in ("ARENA_REDIS_URL", "ARENA_MAILBOX_PREFIX")})
        try:
            wait_until(connected, timeout=90, poll=1, what=f"{BOTS} bots to connect")
        finally:
            from arena.referee import external

            external.forget()
        players = [f"fleet-{i}" for i in range(PLAYING)]  # even ones on one gateway, odd on the other
        games = ["crazy_eights", "bastard_brag", "card_trip_europe"]  # the shortest, at 40-60 moves
        with db.transaction(pg_url) as connection:
            tid = create_tournament(connection, games, [*players, "random", "random-2"], sizes=[2], repetitions=1, seed=12,
                                    move_time=5.0, time_bank=30.0)
        with db.transaction(pg_url) as connection:
            ids = pending_match_ids(connection, tid)
        done = subprocess.run([ARENA, "tournament", "run", str(tid), "--no-wait"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr

        peak = [0]

        def over():
            with db.read(pg_url) as connection:
                running = connection.execute(
                    sa.select(sa.func.count()).select_from(Match.__table__)
                    .where(Match.__table__.c.status == "running")
                ).scalar_one()
            peak[0] = max(peak[0], running)
            return finished(pg_url, tid)

        wait_until(over, timeout=240, poll=0.2, what="the round robin to finish")
        with db.read(pg_url) as connection:
            unfinished = connection.execute(sa.select(Match.__table__.c.id, Match.__table__.c.status,
                                                      Match.__table__.c.error)
                                            .where(Match.__table__.c.status != "done")).all()
        assert not unfinished
        assert counts(pg_url) == (len(ids), 0, 2 * len(ids))  # every match once
        with db.read(pg_url) as connection:
            seats = connection.execute(sa.select(MatchSeat.__table__)).all()
        assert seats and all(seat.strikes == 0 and not seat.forfeited for seat in seats)
        assert ratings_table(pg_url) == replayed(pg_url)
        assert peak[0] >= 8, f"the live worker played at most {peak[0]} matches at once"
        live_log, house_log = (tmp_path / "live.log").read_text(), (tmp_path / "worker.log").read_text()
        assert "arena.play_matches" in live_log and "Traceback" not in live_log
        assert "arena.play_matches" in house_log  # the house-bot pairs went to the prefork worker
        with db.read(pg_url) as connection:
            holders = dict(connection.execute(sa.select(Match.__table__.c.id, Match.__table__.c.claimed_by)
                                              .where(Match.__table__.c.id.in_(ids))).all())
        assert len({holder.rsplit(":", 1)[1] for holder in holders.values()}) == 2  # one live process, one pool
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()


def test_database_pool_follows_its_setting_and_a_live_worker_keeps_enough(pg_url, monkeypatch):
    """ARENA_DB_POOL sizes every process's PostgreSQL pool; a live worker keeps one connection
    for each thread that claims or records, and two more, whatever its matches in flight."""
    from arena.settings import adopt
    from workers import live

    monkeypatch.setenv("ARENA_DB_POOL", "7")
    db.dispose_all()
    pool = db.engine(pg_url).pool
    assert (pool.size(), pool._max_overflow) == (7, 7)
    with db.engine(pg_url).connect() as connection:  # a real connection through it
        assert connection.exec_driver_sql("select 1").scalar_one() == 1

    monkeypatch.delenv("ARENA_DB_POOL")
    try:
        assert live.size_database_pool() == live.HAND_OVER_THREADS + live.STORE_THREADS + 2 == 10
        assert db.engine(pg_url).pool.size() == 10  # engines made before were replaced
        adopt(None)  # another live worker, reading its settings afresh
        monkeypatch.setenv("ARENA_DB_POOL", "50")
        assert live.size_database_pool() == 50  # a larger setting stands
        monkeypatch.setenv("ARENA_DB_POOL", "0")
        with pytest.raises(ValueError, match="db_pool"):  # the command line names ARENA_DB_POOL
            live.size_database_pool()
    finally:
        adopt(None)
        monkeypatch.delenv("ARENA_DB_POOL", raising=False)
        db.dispose_all()


def test_a_stopped_live_worker_never_costs_a_quick_bot_its_clock(pg_url, shared_redis, queue_name, tmp_path):
    """Clock fairness in distributed mode: a quick SDK bot stops the live worker (SIGSTOP) for
    a second on each of its first three turns, right before it answers, while the gateway
    (`arena serve`) runs on; the worker reads every answer late. With a 500 ms move clock and
    a 200 ms bank the quick bot is struck never, spends no bank, and the transcript charges
    it what the gateway measured; a bot that sleeps past its clock still times out and
    forfeits."""
    address = f"127.0.0.1:{free_port()}"
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis,
        "ARENA_QUEUE": queue_name, "ARENA_LIVE_QUEUE": f"{queue_name}.live", "ARENA_GRPC_ADDRESS": address,
        "ARENA_MAILBOX_PREFIX": f"test:{uuid.uuid4().hex}:", "ARENA_GATEWAY_METRICS_PORT": "0",
        "ARENA_METRICS_PORT": "0",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    db.engine(pg_url)
    processes = [spawn(env, [ARENA, "serve"], tmp_path / "serve.log")]
    try:
        live = spawn(env, [ARENA, "worker", "--live", "--concurrency", "4"], tmp_path / "live.log")
        processes.append(live)
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            stub = arena_pb2_grpc.ArenaStub(channel)
            tokens = {name: stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token
                      for name in ("quick", "sleepy")}
        bots = {
            "quick": spawn(env | {"ARENA_ADDRESS": address, "ARENA_BOT_TOKEN": tokens["quick"]},
                           [sys.executable, "-m", "tests.referee.clock_bot", "quick", str(live.pid), "3"],
                           tmp_path / "quick.log"),
            "sleepy": spawn(env | {"ARENA_ADDRESS": address, "ARENA_BOT_TOKEN": tokens["sleepy"]},
                            [sys.executable, "-m", "tests.referee.clock_bot", "sleepy"], tmp_path / "sleepy.log"),
        }
        processes += bots.values()

        def connected():
            from arena.referee import external

            with db.read(pg_url) as connection:
                ids = list(connection.execute(sa.text("SELECT id FROM bot WHERE name IN ('quick', 'sleepy')")).scalars())
            return len(ids) == 2 and external.wait_connected(ids, timeout=0.5)

        os.environ.update({k: env[k] for k in ("ARENA_REDIS_URL", "ARENA_MAILBOX_PREFIX")})
        try:
            wait_until(connected, timeout=90, poll=1, what="both bots to connect")
        finally:
            from arena.referee import external

            external.forget()
        with db.transaction(pg_url) as connection:  # quick against a house bot, sleepy against a house bot
            tid = create_tournament(connection, ["crazy_eights"], ["quick", "sleepy", "random"], sizes=[2],
                                    repetitions=1, seed=5, move_time=0.5, time_bank=0.2)
        done = subprocess.run([ARENA, "tournament", "run", str(tid), "--no-wait"], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        wait_until(lambda: finished(pg_url, tid), timeout=240, poll=0.5, what="the tournament to finish")
        with db.read(pg_url) as connection:
            rows = connection.execute(sa.text(
                "SELECT b.name, s.seat, s.strikes, s.forfeited, t.data FROM match_seat s JOIN bot b ON b.id = s.bot_id "
                "JOIN transcript t ON t.match_id = s.match_id WHERE b.name IN ('quick', 'sleepy')")).all()
    finally:
        for process in processes:
            if process.poll() is None:
                process.terminate()
        for process in processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
    assert (tmp_path / "quick.log").read_text().count('"stopped"') == 3, "the worker was stopped three times"
    quick = [row for row in rows if row.name == "quick"]
    sleepy = [row for row in rows if row.name == "sleepy"]
    assert quick and sleepy
    for row in quick:
        data = row.data if isinstance(row.data, dict) else json.loads(row.data)
        assert row.strikes == 0 and not row.forfeited
        assert {d[4] for d in data["decisions"] if d[1] == row.seat} - {"forced"} == {"ok"}
    turns = [json.loads(line) for line in (tmp_path / "quick.log").read_text().splitlines()
             if line.startswith('{"match"')]
    assert {t["bank_ms"] for t in turns} == {200}, "no bank spent"
    for row in sleepy:
        assert row.forfeited and row.strikes == 3
