"""Fixtures for the platform tests: real databases (SQLite files and PostgreSQL scratch
databases, schema made by the migrations), real Redis servers, real Celery workers.

Everything is safe under pytest-xdist: database names, ports and queue names are unique
per test."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from arena.store import db
from tests.helpers import ARENA, CELERY, ROOT

from .services import postgres_admin_url


@pytest.fixture(scope="session")
def pg_admin():
    """A PostgreSQL server to make scratch databases on: the local one when it answers,
    else a private server from the ``pgserver`` wheel."""
    url = postgres_admin_url()
    if url is not None:
        yield url
        return
    import tempfile

    import pgserver

    with tempfile.TemporaryDirectory() as data:
        server = pgserver.get_server(data, cleanup_mode="stop")
        yield server.get_uri().replace("postgresql://", "postgresql+psycopg://")


def _scratch_pg(admin_url: str):
    import sqlalchemy as sa

    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    # Through the URL object: a private server's URL names its socket directory in the
    # query string, which splitting the text at the last "/" would cut.
    url = sa.engine.make_url(admin_url).set(database=name)
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        db.dispose_all()
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture
def pg_url(pg_admin):
    """A fresh, empty PostgreSQL database for one test, dropped afterwards."""
    yield from _scratch_pg(pg_admin)


@pytest.fixture
def sqlite_url(tmp_path):
    """A fresh SQLite file for one test."""
    yield f"sqlite:///{tmp_path / 'arena.db'}"
    db.dispose_all()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, monkeypatch):
    """Each store test runs on SQLite and on PostgreSQL, migrated to the newest schema
    and set as ``ARENA_DATABASE_URL``."""
    url = request.getfixturevalue("sqlite_url" if request.param == "sqlite" else "pg_url")
    monkeypatch.setenv("ARENA_DATABASE_URL", url)
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    db.engine(url)
    return url


@pytest.fixture
def embedded(sqlite_url, monkeypatch):
    """The embedded default: a SQLite file and no Redis."""
    monkeypatch.setenv("ARENA_DATABASE_URL", sqlite_url)
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    return sqlite_url


@pytest.fixture
def queue_name():
    """A Celery queue of this test alone (tests share one Redis)."""
    return f"arena-test-{uuid.uuid4().hex[:10]}"


class Worker:
    """A real ``celery worker`` subprocess running the arena's tasks."""

    def __init__(self, env: dict[str, str], concurrency: int, log: Path, command: str = "celery") -> None:
        self.log = log
        if command == "arena":
            argv = [ARENA, "worker", "--concurrency", str(concurrency)]
        else:
            argv = [CELERY, "-A", "workers.app", "worker", "--loglevel", "INFO",
                    "--pool", "prefork", "--concurrency", str(concurrency), "--without-gossip",
                    "--without-mingle", "--without-heartbeat", "-Q", env["ARENA_QUEUE"],
                    "-n", f"w{uuid.uuid4().hex[:8]}@%h"]
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )

    def children(self) -> list[int]:
        out = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout
        return [int(p) for p in out.split()]

    def kill(self) -> None:
        """SIGKILL the whole worker (main process and pool children)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, 9)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def workers(tmp_path):
    """Start Celery workers with ``start(env, concurrency)``; all are stopped afterwards."""
    started: list[Worker] = []

    def start(env_overrides: dict[str, str], concurrency: int = 1, command: str = "celery",
              metrics_port: int = 0) -> Worker:
        env = dict(os.environ) | {"PYTHONPATH": str(ROOT), "ARENA_METRICS_PORT": str(metrics_port)} | env_overrides
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        if metrics_port and command != "arena":  # ``arena worker`` makes its own
            env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path / f"metrics{len(started)}")
            Path(env["PROMETHEUS_MULTIPROC_DIR"]).mkdir()
        worker = Worker(env, concurrency, tmp_path / f"worker{len(started)}.log", command)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        # Nothing is in flight once a test has its answer: no need for a warm shutdown.
        worker.kill()


@pytest.fixture
def cluster(pg_url, shared_redis, queue_name, monkeypatch):
    """Settings for one test's slice of the services: its own database and queue."""
    env = {"ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis, "ARENA_QUEUE": queue_name,
           "ARENA_BATCH_SIZE": "2"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db.engine(pg_url)  # migrate before any worker starts
    yield env
    import redis

    redis.Redis.from_url(shared_redis).delete(queue_name, f"{queue_name}\x06\x163")
