"""Faults that heal with no operator command, with real processes: workers (``arena worker``
and ``celery worker``), PostgreSQL, Redis, ``arena serve`` and SDK bots.

After each fault the test types nothing: it waits a bounded time and checks that the
tournament closed, that every match was recorded exactly once, and that ``arena ratings
recompute --check`` agrees. The broker's visibility timeout stays at its default (an hour)
throughout: recovery comes from leases and the supervisor, never from redelivery.
(The poison match and the PostgreSQL outage are in ``test_healing.py``.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid

import pytest
import sqlalchemy as sa

from arena.store import db
from arena.store.models import Match
from arena.store.queries import ensure_house_bot
from arena.tournaments import create_tournament, pending_match_ids
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.platform import counts, finished, ratings_table, replayed
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(300)
match_t = Match.__table__
GAME = "crazy_eights"  # about 40 decisions a match: paced at 20 ms, under a second
# A lease and a sweep shorter than their defaults (20 s, 5 s) keep the suite quick; the first
# test runs on the defaults to show they heal well under a minute.
QUICK = {"ARENA_LEASE_SECONDS": "4", "ARENA_SUPERVISOR_SECONDS": "1"}


def environment(url, redis_url, queue, **extra):
    env = {"ARENA_DATABASE_URL": url, "ARENA_REDIS_URL": redis_url, "ARENA_QUEUE": queue, "ARENA_BATCH_SIZE": "2",
           "ARENA_METRICS_PORT": "0", "ARENA_GATEWAY_METRICS_PORT": "0"} | extra
    assert "ARENA_VISIBILITY_TIMEOUT" not in env
    return env


def paced_tournament(url, count=4, think=0.02, reps=2):
    """A round robin of paced random bots (each match its own task), not yet sent."""
    names = [f"paced-{i}" for i in range(count)]
    with db.transaction(url) as connection:
        for name in names:
            ensure_house_bot(connection, name, "random", think=think)
        tid = create_tournament(connection, [GAME], names, sizes=[2], repetitions=reps, seed=31)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def arena(env, *args, timeout=120):
    full = dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env
    done = subprocess.run([ARENA, *args], env=full, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done


def holder(url, worker):
    """The id of a match a process of ``worker`` is playing, if any."""
    pids = {worker.process.pid, *worker.children()}
    with db.read(url) as connection:
        rows = connection.execute(sa.select(match_t.c.id, match_t.c.claimed_by)
                                  .where(match_t.c.status == "running")).all()
    return next((row.id for row in rows if int(row.claimed_by.rsplit(":", 1)[1]) in pids), None)


def attempts(url, ids):
    with db.read(url) as connection:
        return dict(connection.execute(sa.select(match_t.c.id, match_t.c.attempts).where(match_t.c.id.in_(ids))).all())


def healed(env, url, tid, ids, timeout):
    """Wait (no command) for the tournament to close; then every match once, ratings equal."""
    wait_until(lambda: finished(url, tid), timeout=timeout, poll=0.5, what="the tournament to close by itself")
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    with db.read(url) as connection:
        statuses = set(connection.execute(sa.select(match_t.c.status).where(match_t.c.id.in_(ids))).scalars())
    assert statuses == {"done"}
    assert "0 differ" in arena(env, "ratings", "recompute", "--check").stdout
    assert ratings_table(url) == replayed(url)


def test_a_whole_worker_killed_is_healed_on_the_default_settings(pg_url, shared_redis, queue_name, workers):
    env = environment(pg_url, shared_redis, queue_name)
    db.engine(pg_url)
    tid, ids = paced_tournament(pg_url)
    doomed = workers(env, concurrency=1, command="arena")
    survivor = workers(env, concurrency=1)
    arena(env, "tournament", "run", str(tid), "--no-wait")
    victim = wait_until(lambda: holder(pg_url, doomed), timeout=60, what="the doomed worker to play a match")
    doomed.kill()  # main process and pool at once: nothing is handed back, nothing acknowledged
    started = time.monotonic()
    healed(env, pg_url, tid, ids, timeout=150)
    assert attempts(pg_url, [victim])[victim] == 2  # its lease lapsed and it was played again
    assert time.monotonic() - started < 150
    assert "sent again (lease_lapsed)" in survivor.log.read_text()


def test_redis_restarted_empty_is_healed_and_the_waiter_rides_through(pg_url, tmp_path, queue_name, workers):
    from tests.support.services import RedisServer

    server = RedisServer(tmp_path, persist=False)
    server.start()
    env = environment(pg_url, server.url, queue_name, **QUICK)
    db.engine(pg_url)
    tid, ids = paced_tournament(pg_url, reps=3)
    workers(env, concurrency=1)
    workers(env, concurrency=1)
    err = (tmp_path / "waiter.err").open("w+")
    waiter = subprocess.Popen([ARENA, "tournament", "run", str(tid)], env=dict(os.environ) | {"PYTHONPATH": str(ROOT)}
                              | env, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True)
    try:
        wait_until(lambda: counts(pg_url)[0] >= 1, timeout=60, what="a first recorded match")
        assert counts(pg_url)[0] < len(ids) // 2, "the tournament ended before the fault: pace the bots more"
        server.kill()
        server.start()  # empty: every queued task is gone
        out, _ = waiter.communicate(timeout=200)
        healed(env, pg_url, tid, ids, timeout=30)
    finally:
        if waiter.poll() is None:
            waiter.kill()
        server.kill()
    err.seek(0)
    assert waiter.returncode == 0 and "Traceback" not in err.read()
    assert f"{len(ids)}/{len(ids)}" in out and ": done" in out


def test_a_task_stopped_by_its_time_limit_hands_back_the_rest(pg_url, shared_redis, queue_name, workers):
    """Search-bot matches in batches of 16 take far longer than the task's time limit: each
    task records what it finished by its soft limit and hands the rest back, and the
    supervisor sends those again until the tournament is done."""
    # A search match takes about a second (150 ms cap a move), well under the 7.5 s soft limit;
    # a batch of 16, ten or so of them with the search bot, far more. The 2.5 s between the soft
    # and the hard limit cover the move in progress, the recording and the hand-back on a busy
    # machine (1.5 s, with a 6 s limit, once did not).
    env = environment(pg_url, shared_redis, queue_name, ARENA_BATCH_SIZE="16", ARENA_TASK_TIME_LIMIT="10",
                      ARENA_SEARCH_MS="150", ARENA_SEARCH_ITERATIONS="1000000", **QUICK)
    db.engine(pg_url)
    with db.transaction(pg_url) as connection:
        tid = create_tournament(connection, [GAME], ["search", "random", "random-2"], sizes=[2], repetitions=4, seed=8)
    with db.transaction(pg_url) as connection:
        ids = pending_match_ids(connection, tid)
    worker = workers(env, concurrency=1)
    arena(env, "tournament", "run", str(tid), "--no-wait")
    healed(env, pg_url, tid, ids, timeout=240)
    log = worker.log.read_text()
    assert "Soft time limit" in log, "the batch should have outlasted its time limit"
    assert "Hard time limit" not in log  # each task stopped in time, none was killed
    assert "sent again (no_task)" in log
    assert max(attempts(pg_url, ids).values()) < 5  # none came near being given up


def test_a_worker_stopped_with_sigterm_leaves_nothing_behind(pg_url, shared_redis, queue_name, workers):
    env = environment(pg_url, shared_redis, queue_name, **QUICK)
    db.engine(pg_url)
    tid, ids = paced_tournament(pg_url)
    stopping = workers(env, concurrency=2, command="arena")
    workers(env, concurrency=1)
    arena(env, "tournament", "run", str(tid), "--no-wait")
    wait_until(lambda: holder(pg_url, stopping), timeout=60, what="the worker to play a match")
    # To the main process, as Kubernetes stops a container (and systemd with KillMode=mixed):
    # a warm shutdown, which finishes what the pool is playing and hands back what it holds.
    stopping.process.send_signal(signal.SIGTERM)
    assert stopping.process.wait(60) == 0
    healed(env, pg_url, tid, ids, timeout=120)
    assert max(attempts(pg_url, ids).values()) == 1  # nothing had to be played twice


def live_environment(url, redis_url, queue):
    """Paced bots' matches travel on a live queue, to ``arena worker --live``."""
    return environment(url, redis_url, queue, ARENA_LIVE_QUEUE=f"{queue}.live", **QUICK)


def test_a_live_worker_killed_mid_match_is_healed(pg_url, shared_redis, queue_name, workers):
    """A live worker acknowledges a task once its match is on the loop: killed, what it plays
    is held by leases alone, and the supervisor sends it again once they lapse."""
    env = live_environment(pg_url, shared_redis, queue_name)
    db.engine(pg_url)
    tid, ids = paced_tournament(pg_url, reps=3, think=0.1)  # matches of seconds: some in play at the kill
    doomed = workers(env, concurrency=50, command="arena-live")
    survivor = workers(env, concurrency=50, command="arena-live")
    # Both consuming before the matches are sent: the first one ready would take them all.
    doomed.ready()
    survivor.ready()
    arena(env, "tournament", "run", str(tid), "--no-wait")
    victim = wait_until(lambda: holder(pg_url, doomed), timeout=60, what="the doomed live worker to play a match")
    doomed.kill()
    healed(env, pg_url, tid, ids, timeout=120)
    assert attempts(pg_url, [victim])[victim] == 2  # its lease lapsed and it was played again
    assert "sent again (lease_lapsed)" in survivor.log.read_text()


def test_a_live_worker_stopped_with_sigterm_ends_its_matches_first(pg_url, shared_redis, queue_name, workers):
    """A warm shutdown of a live worker waits for the matches on its loop: none is played twice."""
    env = live_environment(pg_url, shared_redis, queue_name)
    db.engine(pg_url)
    tid, ids = paced_tournament(pg_url, reps=3, think=0.1)  # matches of seconds: some in play at the stop
    stopping = workers(env, concurrency=50, command="arena-live")
    other = workers(env, concurrency=50, command="arena-live")
    stopping.ready()  # both consuming before the matches are sent (the first would take them all)
    other.ready()
    arena(env, "tournament", "run", str(tid), "--no-wait")
    wait_until(lambda: holder(pg_url, stopping), timeout=60, what="the live worker to play a match")
    stopping.process.send_signal(signal.SIGTERM)
    assert stopping.process.wait(60) == 0
    healed(env, pg_url, tid, ids, timeout=120)
    assert max(attempts(pg_url, ids).values()) == 1  # nothing had to be played twice
    assert "live batches in play to end" in stopping.log.read_text()


def test_arena_serve_stopped_with_sigterm_mid_tournament(pg_url, shared_redis, queue_name, workers, tmp_path):
    """The gateway goes away under a tournament of connected SDK bots: the matches in play end
    by the rules for bots that vanished (forfeit after the grace time), the rest are played
    with the bots absent, the tournament closes, and ``arena serve`` exits cleanly."""
    import grpc
    from arena_bot.v1 import arena_pb2, arena_pb2_grpc

    address = f"127.0.0.1:{free_port()}"
    env = environment(pg_url, shared_redis, queue_name, ARENA_GRPC_ADDRESS=address, ARENA_ADMIN_TOKEN="fault0admin0token0for0the0arena0tests0ok",
                      ARENA_MAILBOX_PREFIX=f"test:{uuid.uuid4().hex}:", ARENA_GRACE_SECONDS="2", **QUICK)
    full = dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env
    full.pop("PROMETHEUS_MULTIPROC_DIR", None)
    db.engine(pg_url)
    serve = subprocess.Popen([ARENA, "serve"], env=full, cwd=ROOT, stdout=(tmp_path / "serve.log").open("ab"),
                             stderr=subprocess.STDOUT)
    bots: list[subprocess.Popen] = []
    try:
        channel = grpc.insecure_channel(address)
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = arena_pb2_grpc.ArenaStub(channel)
        names = ["sdk-a", "sdk-b"]
        for name in names:
            token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token
            bots.append(subprocess.Popen([sys.executable, "-m", "arena_bot.examples.random_bot"], cwd=ROOT,
                                         env=full | {"ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": address},
                                         stdout=(tmp_path / f"{name}.log").open("ab"), stderr=subprocess.STDOUT))
        wait_until(lambda: all("connected as" in (tmp_path / f"{n}.log").read_text() for n in names),
                   timeout=60, what="the bots to connect")
        channel.close()
        workers(env, concurrency=2, command="arena")
        with db.transaction(pg_url) as connection:
            tid = create_tournament(connection, [GAME], [*names, "random"], sizes=[2], repetitions=4, seed=4)
        with db.transaction(pg_url) as connection:
            ids = pending_match_ids(connection, tid)
        arena(env, "tournament", "run", str(tid), "--no-wait")
        wait_until(lambda: counts(pg_url)[0] >= 2, timeout=60, what="matches played through the gateway")
        assert counts(pg_url)[0] < len(ids), "the tournament ended before the fault"
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(60) == 0
        healed(env, pg_url, tid, ids, timeout=180)
    finally:
        for process in [serve, *bots]:
            if process.poll() is None:
                process.kill()
                process.wait(10)
