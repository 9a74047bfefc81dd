"""Leases and the supervisor on a real Redis and real databases (SQLite and PostgreSQL), in
this process: what the supervisor sends again and what it leaves alone, a live lease keeps a
second delivery away, one supervisor leads at a time, a stopped task hands back what it did
not play. The end-to-end faults with real workers are in ``test_faults.py``."""

from __future__ import annotations

from datetime import timedelta

import pytest
import redis
import sqlalchemy as sa

from arena.store import db
from arena.store.models import Match, utcnow
from arena.store.queries import tournament_status
from arena.tournaments import create_tournament, pending_match_ids
from arena.tournaments.leases import hand_back
from arena.tournaments.play import claim_matches, play_and_record
from tests.helpers import wait_until
from tests.support.platform import fast_games
from workers.app import make_app
from workers.send import Sender, mark_sent, send
from workers.supervisor import Supervisor, queued_match_ids

match_t = Match.__table__
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def supervised(db_url, shared_redis, queue_name, monkeypatch):
    """Settings of a distributed arena on this test's database and queue (no workers)."""
    monkeypatch.setenv("ARENA_REDIS_URL", shared_redis)
    monkeypatch.setenv("ARENA_QUEUE", queue_name)
    monkeypatch.setenv("ARENA_LEASE_SECONDS", "20")
    client = redis.Redis.from_url(shared_redis)
    yield db_url, client
    client.delete(queue_name, f"arena:supervisor:{queue_name}", f"arena:held:{queue_name}")
    client.close()


def supervisor(queue, url, name=None):
    import os

    return Supervisor(os.environ["ARENA_REDIS_URL"], [queue], interval=0.2, lease_seconds=20, url=url, name=name,
                      send=Sender(make_app()))


def tournament(url):
    with db.transaction(url) as connection:
        tid = create_tournament(connection, fast_games(1), ["random", "random-2", "random-3"], sizes=[2], seed=3)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def rows(url, ids):
    with db.transaction(url) as connection:
        return {r.id: r for r in connection.execute(sa.select(match_t).where(match_t.c.id.in_(ids)))}


def age(url, ids, **columns):
    """Move the given time columns of ``ids`` a minute into the past."""
    with db.transaction(url) as connection:
        connection.execute(match_t.update().where(match_t.c.id.in_(ids))
                           .values({name: utcnow() - timedelta(seconds=60) for name in columns}))


def test_a_lapsed_lease_is_sent_again_once(supervised, queue_name):
    url, client = supervised
    _, ids = tournament(url)
    with db.transaction(url) as connection:
        claimed = claim_matches(connection, ids[:2], "gone:1", max_attempts=5, lease_seconds=20)
    assert [spec.id for spec in claimed] == ids[:2]
    boss = supervisor(queue_name, url)
    assert boss.sweep()["lease_lapsed"] == 0  # the leases are live: nothing to do
    age(url, ids[:1], lease_until=True)
    assert boss.sweep()["lease_lapsed"] == 1
    assert queued_match_ids(client, [queue_name]) == {ids[0]}
    now = rows(url, ids)
    assert now[ids[0]].status == "scheduled" and now[ids[0]].lease_until is None and now[ids[0]].sent_at
    assert now[ids[1]].status == "running"
    # Its task is queued now: later sweeps leave it be.
    age(url, ids[:1], sent_at=True)
    assert boss.sweep() == {"lease_lapsed": 0, "no_task": 0, "closed": 0}
    boss.stop()


def test_only_sent_matches_with_no_queued_task_are_sent_again(supervised, queue_name):
    url, client = supervised
    _, ids = tournament(url)
    never_sent, queued, lost = ids[0], ids[1], ids[2:]
    app = make_app()
    send([queued], app)
    mark_sent(lost)
    age(url, [queued, *lost], sent_at=True)
    boss = supervisor(queue_name, url)
    done = boss.sweep()
    assert done["no_task"] == len(lost)
    assert queued_match_ids(client, [queue_name]) == {queued, *lost}
    assert client.llen(queue_name) == 1 + -(-len(lost) // 16)  # one task per batch, none for the queued one
    assert rows(url, [never_sent])[never_sent].sent_at is None  # created without --run: the operator's
    assert boss.sweep()["no_task"] == 0
    boss.stop()
    app.close()


def test_tasks_a_live_worker_reports_holding_are_not_sent_again(supervised, queue_name):
    """A worker holds tasks the queue no longer shows (reserved, or begun and not yet
    claimed): each sweep its supervisor reports their match ids with the time. A report
    younger than a lease keeps them from being sent again; an older one (a dead worker's)
    does not."""
    import time

    url, client = supervised
    _, ids = tournament(url)
    mark_sent(ids[:2])
    age(url, ids[:2], sent_at=True)
    boss = supervisor(queue_name, url)
    held = f"arena:held:{queue_name}"
    client.zadd(held, {ids[0]: time.time(), ids[1]: time.time() - 1000})
    done = boss.sweep()
    assert done["no_task"] == 1 and queued_match_ids(client, [queue_name]) == {ids[1]}
    assert boss.report_held() == 0  # no Celery worker in this process: nothing held
    assert client.zscore(held, ids[1]) is None  # reports past ten leases are forgotten
    client.delete(held)
    boss.stop()


def test_a_live_lease_keeps_a_second_delivery_away(supervised):
    url, _ = supervised
    _, ids = tournament(url)
    with db.transaction(url) as connection:
        assert len(claim_matches(connection, ids, "first:1", 5, lease_seconds=20)) == len(ids)
    with db.transaction(url) as connection:
        assert claim_matches(connection, ids, "second:2", 5, lease_seconds=20) == []
        # The holder's own task trying again (after an outage) takes its matches back.
        assert len(claim_matches(connection, ids[:1], "first:1", 5, lease_seconds=20)) == 1
    age(url, ids[1:2], lease_until=True)
    with db.transaction(url) as connection:
        taken = claim_matches(connection, ids, "second:2", 5, lease_seconds=20)
    assert [spec.id for spec in taken] == [ids[1]]
    assert rows(url, ids)[ids[1]].attempts == 2


def test_leases_are_renewed_while_held_and_lapse_once_let_go(supervised):
    from arena.tournaments.leases import LeaseKeeper

    url, _ = supervised
    _, ids = tournament(url)
    with db.transaction(url) as connection:
        claim_matches(connection, ids, "keeper:1", 5, lease_seconds=0.6)
    renewing = healing_cpu("leases")

    def lapsed(match_ids):
        now = rows(url, match_ids)
        return all(_aware(now[m].lease_until) < utcnow() for m in match_ids)

    with LeaseKeeper(ids[:2], "keeper:1", 0.6, url):
        # Past the first lease: the matches never held have lapsed by now.
        wait_until(lambda: lapsed(ids[2:]), 10, 0.05, "the leases not held to lapse")
        wait_until(lambda: healing_cpu("leases") > renewing, 10, 0.05, "the renewals' CPU on /metrics")
        now = rows(url, ids)
        assert all(_aware(now[m].lease_until) > utcnow() for m in ids[:2])  # renewed
    wait_until(lambda: lapsed(ids), 10, 0.05, "every lease to lapse once let go")


def healing_cpu(part):
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("arena_healing_cpu_seconds_total", {"part": part})


def test_the_supervisor_counts_the_cpu_of_its_sweeps(supervised, queue_name):
    url, _ = supervised
    before = healing_cpu("supervisor")
    running = supervisor(queue_name, url, "counted").start()
    try:
        wait_until(lambda: healing_cpu("supervisor") != before, 10, what="a sweep's CPU on /metrics")
    finally:
        running.stop()
    assert 0 < healing_cpu("supervisor") - before < 10


def _aware(when):
    from datetime import UTC

    return when if when.tzinfo else when.replace(tzinfo=UTC)


def test_a_holder_process_gone_from_this_machine_holds_nothing(supervised):
    """A killed pool process's task comes back at once: its matches need not wait for the
    dead process's lease to lapse. A holder on another machine is not judged from here."""
    import socket
    import subprocess
    import sys

    url, _ = supervised
    _, ids = tournament(url)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    here = socket.gethostname()
    with db.transaction(url) as connection:
        claim_matches(connection, ids[:1], f"{here}:{ended.pid}", 5, lease_seconds=20)
        claim_matches(connection, ids[1:2], f"elsewhere:{ended.pid}", 5, lease_seconds=20)
    with db.transaction(url) as connection:
        taken = claim_matches(connection, ids[:2], f"{here}:{1 << 30}", 5, lease_seconds=20)
    assert [spec.id for spec in taken] == ids[:1]


def test_one_supervisor_leads_and_hands_over_when_stopped(supervised, queue_name):
    url, _ = supervised
    first, second = supervisor(queue_name, url, "first"), supervisor(queue_name, url, "second")
    assert first.sweep() != {} and second.sweep() == {}
    assert first.sweep() != {} and second.sweep() == {}
    first.stop()
    assert second.sweep() != {}
    second.stop()


def test_a_stopped_task_hands_back_what_it_did_not_play(supervised):
    url, _ = supervised
    _, ids = tournament(url)
    with db.transaction(url) as connection:
        claim_matches(connection, ids, "stopping:1", 5, lease_seconds=20)
    with db.transaction(url) as connection:
        assert hand_back(connection, ids, "stopping:1", started=[ids[0]]) == len(ids)
    now = rows(url, ids)
    assert all(row.status == "scheduled" and row.lease_until is None for row in now.values())
    assert now[ids[0]].attempts == 1  # it was being played: the delivery counts
    assert all(now[m].attempts == 0 for m in ids[1:])
    assert all(row.sent_at.year == 2000 for row in now.values())  # long ago: the next sweep sends them


def test_the_supervisor_closes_a_tournament_nobody_closed(supervised, queue_name):
    url, _ = supervised
    tid, ids = tournament(url)
    play_and_record(ids, url)  # as a worker would
    with db.transaction(url) as connection:  # as if the last recorder died before closing
        connection.execute(sa.text("UPDATE tournament SET status = 'running', finished_at = NULL"))
        assert tournament_status(connection, tid)["status"] == "running"
    boss = supervisor(queue_name, url)
    assert boss.sweep()["closed"] == 1
    with db.read(url) as connection:
        assert tournament_status(connection, tid)["status"] == "done"
    boss.stop()
