"""Celery on a real Redis with real worker subprocesses and PostgreSQL: a tournament
completes; duplicate deliveries record once; two workers rating the same bots at once give
the sequential result; a worker SIGKILLed mid-match loses and doubles nothing."""

from __future__ import annotations

import os

import pytest
import sqlalchemy as sa

from arena.store import db, queries, replay_ratings
from arena.store.models import Match
from arena.store.queries import ensure_house_bot
from tests.helpers import wait_until
from tests.support.platform import cli, counts, fast_games, finished, make_tournament, ratings_table, replayed

pytestmark = pytest.mark.timeout(180)


def send(env, batch, task_id=None):
    from workers.app import make_app

    app = make_app()
    with app.connection_for_write() as connection:
        app.send_task("arena.play_matches", args=[batch], queue=env["ARENA_QUEUE"], task_id=task_id,
                      connection=connection)


def test_tournament_completes_and_duplicates_record_once(cluster, workers):
    url = cluster["ARENA_DATABASE_URL"]
    workers(cluster, concurrency=2)
    tid, ids = make_tournament(url, ["random", "random-2", "random-3"])
    out = cli(cluster, "tournament", "run", str(tid))
    assert "done" in out
    with db.transaction(url) as connection:
        status = queries.tournament_status(connection, tid)
    assert status["status"] == "done" and all(g["done"] == g["total"] for g in status["games"].values())
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    # The same tasks delivered again, twice, with the same and with new task ids.
    before = ratings_table(url)
    for batch in (ids[:2], ids[2:4]):
        send(cluster, batch, task_id=f"dup-{batch[0]}")
        send(cluster, batch, task_id=f"dup-{batch[0]}")
        send(cluster, batch)
    tid2, ids2 = make_tournament(url, ["random", "random-2", "random-3"], games=fast_games(1))
    for batch in (ids2[:3], ids2[3:]):
        send(cluster, batch, task_id=f"new-{batch[0]}")
        send(cluster, batch, task_id=f"new-{batch[0]}")
    wait_until(lambda: finished(url, tid2), what="second tournament")
    total = len(ids) + len(ids2)
    assert counts(url) == (total, 0, 2 * total)
    after = ratings_table(url)
    assert after == replayed(url)
    assert {k: v for k, v in after.items() if k[1] != fast_games(1)[0]} == {
        k: v for k, v in before.items() if k[1] != fast_games(1)[0]}


def test_two_workers_rating_the_same_bots_give_the_sequential_result(cluster, workers):
    url = cluster["ARENA_DATABASE_URL"]
    env = cluster | {"ARENA_BATCH_SIZE": "1"}
    workers(env, concurrency=2)
    workers(env, concurrency=2)
    tid, ids = make_tournament(url, ["random", "random-2", "random-3"], reps=4, games=fast_games(1))
    cli(env, "tournament", "run", str(tid))
    with db.transaction(url) as connection:
        claimed = {row.claimed_by.split(":")[1] for row in connection.execute(sa.select(Match.__table__))}
        standings = replay_ratings(connection)
    assert len(claimed) >= 2, "the matches should have been shared by several processes"
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    assert ratings_table(url) == replayed(url)
    assert sum(s.matches for s in standings.values()) == 2 * len(ids)


def test_worker_sigkilled_mid_match_loses_and_doubles_nothing(cluster, workers):
    url = cluster["ARENA_DATABASE_URL"]
    # The visibility timeout stays at its hour: the dead worker's lease lapses and the new
    # worker's supervisor sends the match again.
    env = cluster | {"ARENA_LEASE_SECONDS": "4", "ARENA_SUPERVISOR_SECONDS": "1"}
    with db.transaction(url) as connection:
        # Paced so that a match lasts seconds: on a loaded machine a quicker one could end
        # between being seen running and the kill.
        for name in ("paced-a", "paced-b"):
            ensure_house_bot(connection, name, "random", think=0.1)
    tid, ids = make_tournament(url, ["paced-a", "paced-b"], games=fast_games(1))
    first = workers(env, concurrency=1)
    cli(env, "tournament", "run", str(tid), "--no-wait")

    def running():
        with db.transaction(url) as connection:
            return connection.execute(
                sa.select(Match.__table__.c.id).where(Match.__table__.c.status == "running")
            ).scalar_one_or_none()

    victim = wait_until(running, what="a match in progress")
    first.kill()
    results, _, _ = counts(url)
    assert results < len(ids)
    workers(env, concurrency=1)
    wait_until(lambda: finished(url, tid), timeout=120, what="the killed match to be redelivered and finished")
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    assert ratings_table(url) == replayed(url)
    with db.transaction(url) as connection:
        attempts = connection.execute(
            sa.select(Match.__table__.c.attempts).where(Match.__table__.c.id == victim)
        ).scalar_one()
    assert attempts == 2


def test_pool_process_sigkilled_mid_match_is_replayed_once(cluster, workers):
    """The prefork child playing the match dies; its task goes back to the queue at once
    (reject on worker lost) and a new child plays the match again."""
    url = cluster["ARENA_DATABASE_URL"]
    with db.transaction(url) as connection:
        for name in ("paced-c", "paced-d"):
            ensure_house_bot(connection, name, "random", think=0.04)
    tid, ids = make_tournament(url, ["paced-c", "paced-d"], games=fast_games(1))
    worker = workers(cluster, concurrency=1)
    cli(cluster, "tournament", "run", str(tid), "--no-wait")

    def running_in_child():
        with db.transaction(url) as connection:
            row = connection.execute(
                sa.select(Match.__table__.c.claimed_by).where(Match.__table__.c.status == "running")
            ).first()
        return row and int(row.claimed_by.rsplit(":", 1)[1])

    child = wait_until(running_in_child, what="a match in progress")
    assert child in worker.children()
    os.kill(child, 9)
    wait_until(lambda: finished(url, tid), timeout=60, what="the match to be played again")
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    assert ratings_table(url) == replayed(url)


def test_redis_killed_and_restarted_mid_tournament(pg_url, tmp_path, queue_name, monkeypatch, workers):
    """Our own Redis (never the shared one) dies with tasks queued and comes back from its
    append-only file: the workers reconnect and the tournament completes, once."""
    from tests.support.services import RedisServer

    server = RedisServer(tmp_path)
    server.start()
    try:
        # The visibility timeout stays at its hour: tasks caught in flight come back through
        # the supervisor (short lease and sweep here, for a quick test).
        env = {"ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": server.url, "ARENA_QUEUE": queue_name,
               "ARENA_BATCH_SIZE": "1", "ARENA_LEASE_SECONDS": "4", "ARENA_SUPERVISOR_SECONDS": "1"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        db.engine(pg_url)
        with db.transaction(pg_url) as connection:
            for name in ("paced-e", "paced-f", "paced-g"):
                ensure_house_bot(connection, name, "random", think=0.01)
        tid, ids = make_tournament(pg_url, ["paced-e", "paced-f", "paced-g"], games=fast_games(1))
        cli(env, "tournament", "run", str(tid), "--no-wait")
        workers(env, concurrency=1)
        wait_until(lambda: counts(pg_url)[0] >= 1, what="a first recorded match")
        server.kill()
        server.start()
        # The workers' reconnection backs off (seconds growing to tens of seconds): on a loaded
        # 2-core machine the bound is generous; a lost task would still fail it.
        wait_until(lambda: finished(pg_url, tid), timeout=300, what="the tournament to complete after the restart")
        assert counts(pg_url) == (len(ids), 0, 2 * len(ids))
        assert ratings_table(pg_url) == replayed(pg_url)
    finally:
        server.kill()
