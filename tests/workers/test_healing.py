"""Tournaments that heal themselves, with real processes and real databases: a poison match
fails alone (with its error) while the rest of its batch is recorded once, the tournament
closes whoever ends last, the operator retries failures explicitly; a PostgreSQL stopped
mid-tournament is waited out by the worker's task and by the ``--run`` waiter."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from arena.store import db, queries
from arena.store.models import Match, Tournament
from arena.store.queries import ensure_house_bot
from arena.tournaments import create_tournament, pending_match_ids, play_and_record
from tests.helpers import ARENA, ROOT, wait_until
from tests.support.platform import counts, fast_games, ratings_table, replayed

pytestmark = pytest.mark.timeout(180)

match_t = Match.__table__
GAME = "crazy_eights" if "crazy_eights" in fast_games(5) else fast_games(1)[0]


def arena(env, *args, timeout=120, check=True):
    """The arena command line in its own process."""
    full = dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env
    done = subprocess.run([ARENA, *args], env=full, cwd=ROOT,
                          capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, done.stderr
    return done


def tournament(url, bots, seed=5):
    with db.transaction(url) as connection:
        tid = create_tournament(connection, [GAME], bots, sizes=[2], seed=seed)
    with db.transaction(url) as connection:
        return tid, pending_match_ids(connection, tid)


def set_options(url, match_id, options):
    with db.transaction(url) as connection:
        connection.execute(match_t.update().where(match_t.c.id == match_id).values(options=options))


def matches(url, ids):
    with db.transaction(url) as connection:
        rows = connection.execute(sa.select(match_t).where(match_t.c.id.in_(ids))).all()
    return {row.id: row for row in rows}


def closed(url, tid):
    with db.transaction(url) as connection:
        return queries.tournament_status(connection, tid)["status"] == "done"


def test_poison_matches_fail_alone_and_are_retried_by_hand(cluster, workers):
    url = cluster["ARENA_DATABASE_URL"]
    cluster = cluster | {"ARENA_BATCH_SIZE": "16"}
    tid, ids = tournament(url, ["random", "random-2", "random-3", "random-4"])
    assert len(ids) == 12  # one batch of 16: the poison shares its task with every other match
    bad_play, bad_setup = ids[4], ids[7]
    set_options(url, bad_play, {"no_such_option": 1})  # the rules refuse it when the match starts
    set_options(url, bad_setup, "not a mapping")  # the row itself cannot be read as options
    workers(cluster, concurrency=1)
    started = time.monotonic()
    done = arena(cluster, "tournament", "run", str(tid), check=False)
    out = done.stdout
    assert time.monotonic() - started < 60
    assert done.returncode == 1, done.stderr  # a script can tell a tournament with failures
    assert "done with 2 failed" in out
    assert f"match {bad_play} ({GAME}): play: BadOptions:" in out and "no_such_option" in out
    assert f"match {bad_setup} ({GAME}): setup: ValueError:" in out

    rows = matches(url, ids)
    good = [m for m in ids if m not in (bad_play, bad_setup)]
    assert all(rows[m].status == "done" and rows[m].attempts == 1 and rows[m].error is None for m in good)
    assert rows[bad_play].status == rows[bad_setup].status == "failed"
    assert "no_such_option" in rows[bad_play].error and rows[bad_setup].error.startswith("setup: ")
    assert closed(url, tid)
    assert counts(url) == (len(good), 0, 2 * len(good))  # every playable match once, nothing more

    status = arena(cluster, "tournament", "status", str(tid)).stdout
    assert "done with 2 failed" in status and "10/12" in status and f"match {bad_play}" in status
    shown = arena(cluster, "match", "show", str(bad_play)).stdout
    assert "failed" in shown and "error: play: BadOptions" in shown

    # The operator fixes the rows and asks for the failures to be played again.
    set_options(url, bad_play, {})
    set_options(url, bad_setup, {})
    out = arena(cluster, "tournament", "retry-failed", str(tid)).stdout
    assert "2 failed matches scheduled again" in out and f"{GAME}" in out and "12/12" in out
    rows = matches(url, ids)
    assert all(row.status == "done" and row.error is None for row in rows.values())
    assert closed(url, tid)
    assert counts(url) == (len(ids), 0, 2 * len(ids))
    assert ratings_table(url) == replayed(url)


def failures_counted(reason):
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("arena_match_failures_total", {"game": GAME, "reason": reason}) or 0.0


def test_tournament_closes_when_its_last_match_fails(db_url, monkeypatch):
    """In-process on SQLite and PostgreSQL: whether the last match to end fails while it is
    played or is given up after too many deliveries, its tournament closes."""
    monkeypatch.setenv("ARENA_MAX_ATTEMPTS", "3")
    errors, attempts = failures_counted("error"), failures_counted("attempts")
    tid, ids = tournament(db_url, ["random", "random-2", "random-3"])
    set_options(db_url, ids[-1], {"no_such_option": True})
    assert sorted(play_and_record(ids[:-1])) == ids[:-1]
    assert not closed(db_url, tid)
    assert play_and_record(ids[-1:]) == []
    assert closed(db_url, tid)
    assert matches(db_url, ids[-1:])[ids[-1]].status == "failed"

    tid, ids = tournament(db_url, ["random", "random-2", "random-3"], seed=6)
    play_and_record(ids[:-1])
    with db.transaction(db_url) as connection:  # as if three deliveries had died playing it
        connection.execute(match_t.update().where(match_t.c.id == ids[-1]).values(status="running", attempts=3))
    assert play_and_record(ids[-1:]) == []
    row = matches(db_url, ids[-1:])[ids[-1]]
    assert row.status == "failed" and "delivered 3 times" in row.error
    assert closed(db_url, tid)
    assert (failures_counted("error"), failures_counted("attempts")) == (errors + 1, attempts + 1)
    with db.transaction(db_url) as connection:
        finished = connection.execute(
            sa.select(Tournament.__table__.c.finished_at).where(Tournament.__table__.c.id == tid)).scalar_one()
    assert finished is not None


def test_a_database_that_never_comes_back_ends_in_one_line(tmp_path):
    """Nothing listens on the port: ``tournament status`` waits ``ARENA_OUTAGE_SECONDS``, says
    so once, then gives up in one line; the seconds waited are counted."""
    from prometheus_client import REGISTRY

    from tests.support.services import free_port
    from workers.outage import Outage, ride_out

    url = f"postgresql://arena@127.0.0.1:{free_port()}/arena"
    started = time.monotonic()
    done = arena({"ARENA_DATABASE_URL": url, "ARENA_OUTAGE_SECONDS": "2"}, "tournament", "status", "1",
                 check=False)
    assert 2 <= time.monotonic() - started < 30
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 2, done.stderr
    assert "database unreachable, retrying" in lines[0] and "giving up" in lines[1]

    def waited():
        return REGISTRY.get_sample_value("arena_outage_seconds_total", {"waiter": "command"}) or 0.0

    before, heard = waited(), []

    def read():
        with db.read(url) as connection:
            return connection.exec_driver_sql("SELECT 1").scalar_one()

    with pytest.raises(Outage):
        ride_out(read, "command", limit=1.0, notice=heard.append)
    assert len(heard) == 1 and 0.9 <= waited() - before <= 1.1
    db.dispose_all()


class PrivatePostgres:
    """A PostgreSQL server of this test alone (from the ``pgserver`` wheel), which it may stop
    and start again on the same data directory and socket."""

    def __init__(self, data: Path) -> None:
        import pgserver

        self.data = data
        self.server = pgserver.get_server(data, cleanup_mode="stop")
        self.socket_dir = self.server.get_postmaster_info().socket_dir
        self.user = "pgserver" if os.geteuid() == 0 else None  # postgres refuses to run as root
        self.admin_url = self.server.get_uri().replace("postgresql://", "postgresql+psycopg://")

    def stop(self) -> None:
        from pgserver._commands import pg_ctl

        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.data, user=self.user, timeout=30)

    def start(self) -> None:
        from pgserver._commands import pg_ctl

        pg_ctl(["-w", "-o", '-h ""', "-o", f"-k {self.socket_dir}", "-l", str(self.data / "log"), "start"],
               pgdata=self.data, user=self.user, timeout=30)


@pytest.fixture
def private_pg():
    import shutil
    import tempfile

    # Not under pytest's tmp_path: the server runs as another user where we are root, and
    # every pytest session (other runs on this machine too) makes that tree private again.
    data = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    try:
        server = PrivatePostgres(data / "pgdata")
    except Exception as error:  # pragma: no cover - depends on the machine
        shutil.rmtree(data, ignore_errors=True)
        pytest.skip(f"cannot start a private PostgreSQL here: {error}")
    try:
        admin = sa.create_engine(server.admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql('CREATE DATABASE "arena_outage"')
        admin.dispose()
        yield server, sa.engine.make_url(server.admin_url).set(database="arena_outage").render_as_string(
            hide_password=False)
    finally:
        db.dispose_all()
        try:
            server.stop()
        except Exception:
            pass
        shutil.rmtree(data, ignore_errors=True)


def test_postgres_stopped_mid_tournament_is_waited_out(private_pg, shared_redis, queue_name, monkeypatch,
                                                       workers, tmp_path):
    server, url = private_pg
    env = {"ARENA_DATABASE_URL": url, "ARENA_REDIS_URL": shared_redis, "ARENA_QUEUE": queue_name}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db.engine(url)
    with db.transaction(url) as connection:  # paced bots: the tournament lasts long enough to be hit
        for name in ("paced-h", "paced-i", "paced-j"):
            ensure_house_bot(connection, name, "random", think=0.02)
    worker = workers(env, concurrency=1)
    err = (tmp_path / "waiter.err").open("w+")
    waiter = subprocess.Popen(
        [ARENA, "tournament", "create", "--game", GAME,
         "--bots", "paced-h,paced-i,paced-j", "--sizes", "2", "--seed", "9", "--run"],
        env=dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env, cwd=ROOT, stdout=subprocess.PIPE, stderr=err,
        text=True,
    )
    try:
        wait_until(lambda: counts(url)[0] >= 1, timeout=60, what="a first recorded match")
        assert counts(url)[0] < 6, "the tournament ended before the outage: pace the bots more"
        db.dispose_all()
        server.stop()
        time.sleep(10)
        server.start()
        out, _ = waiter.communicate(timeout=120)
    finally:
        if waiter.poll() is None:
            waiter.kill()
    err.seek(0)
    stderr = err.read()
    assert waiter.returncode == 0, stderr
    assert "Traceback" not in stderr
    notices = [line for line in stderr.splitlines() if "database unreachable, retrying" in line]
    assert len(notices) == 1, stderr
    assert "6/6" in out and ": done" in out

    with db.transaction(url) as connection:
        tid = connection.execute(sa.select(sa.func.max(Tournament.__table__.c.id))).scalar_one()
        rows = connection.execute(sa.select(match_t).where(match_t.c.tournament_id == tid)).all()
    assert closed(url, tid)
    assert len(rows) == 6 and all(row.status == "done" for row in rows)
    assert counts(url) == (6, 0, 12)  # every match recorded exactly once
    check = arena(env, "ratings", "recompute", "--check")
    assert "0 differ" in check.stdout
    assert ratings_table(url) == replayed(url)
    log = worker.log.read_text()
    assert "database unreachable, retrying" in log  # the task in flight waited instead of failing
