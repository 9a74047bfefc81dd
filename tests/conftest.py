"""Fixtures every test folder may use: real Redis servers, real databases (SQLite files and
PostgreSQL scratch databases, schema made by the migrations), real Celery workers, and real gRPC
servers on free loopback ports, each on its own event loop in a background thread so tests can
use ordinary blocking clients. A folder's own conftest may add to them (the web face's
``server`` is its web server).

Everything is safe under pytest-xdist: database names, ports and queue names are unique per
test."""

from __future__ import annotations

import os
import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from arena_bot.v1 import arena_pb2_grpc, gateway_pb2_grpc

from arena.referee import external
from arena.referee.gateway import Gateway
from arena.referee.mailbox import LocalMailbox, Mailbox, RedisMailbox
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.store import db
from tests.helpers import ARENA, CELERY, ROOT, wait_until
from tests.support.grpc import ServerThread, by_token
from tests.support.services import postgres_admin_url, private_redis, redis_answers


@pytest.fixture(scope="session", autouse=True)
def no_ladder_unless_asked() -> Iterator[None]:
    """``arena serve`` runs the ladder by default, which pairs every connected bot: the tests of
    other things count their matches exactly, so the ladder runs only where a test asks for it
    (``tests/server/test_ladder.py`` and its neighbours)."""
    before = os.environ.get("ARENA_LADDER")
    os.environ["ARENA_LADDER"] = "0"
    yield
    if before is None:
        os.environ.pop("ARENA_LADDER", None)
    else:
        os.environ["ARENA_LADDER"] = before


@pytest.fixture(scope="session")
def shared_redis(tmp_path_factory):
    """A Redis URL: the machine's Redis when it answers, else a private server."""
    if redis_answers("127.0.0.1", 6379):
        yield "redis://127.0.0.1:6379/0"
        return
    with private_redis(tmp_path_factory.mktemp("redis")) as url:
        yield url


@pytest.fixture
def own_redis(tmp_path):
    """A private Redis server on a free port, for tests that kill or restart it."""
    with private_redis(tmp_path) as url:
        yield url


# Databases and workers.

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
        elif command == "arena-live":  # concurrency: matches at once on its loop
            argv = [ARENA, "worker", "--live", "--concurrency", str(concurrency)]
        else:
            argv = [CELERY, "-A", "workers.app", "worker", "--loglevel", "INFO",
                    "--pool", "prefork", "--concurrency", str(concurrency), "--without-gossip",
                    "--without-mingle", "--without-heartbeat", "-Q", env["ARENA_QUEUE"],
                    "-n", f"w{uuid.uuid4().hex[:8]}@%h"]
        self.process = subprocess.Popen(
            argv,
            cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True,
        )

    def ready(self, timeout: float = 60) -> None:
        """Wait until the worker consumes (Celery logs ``<name> ready.``): a test that needs
        tasks to reach a given worker starts its work only then."""
        wait_until(lambda: " ready." in self.log.read_text(errors="replace"), timeout=timeout,
                   what=f"the worker logging to {self.log.name} to be ready")

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


# gRPC servers.

@pytest.fixture
def rules_server() -> Iterator[ServerThread]:
    server = ServerThread(ServerSettings(address="127.0.0.1:0"), [])
    yield server
    server.stop()


@pytest.fixture
def channel(rules_server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(rules_server.address) as chan:
        yield chan


@pytest.fixture
def gateway(request: pytest.FixtureRequest) -> Iterator[tuple[ServerThread, Mailbox]]:
    """A gateway on the in-process mailbox, or on the Redis one when parametrized indirectly
    with ``"redis"``; bots alice (token tok-alice) and bob. The mailbox handed to the test is
    the runner's side: the gateway's own for the in-process one, one of the same keys on its
    own connections for Redis (use it through ``helpers.run_with``)."""
    kind = getattr(request, "param", "local")
    if kind == "local":
        mailbox: Mailbox = LocalMailbox()
        runner: Mailbox = mailbox
    else:
        url = request.getfixturevalue("shared_redis")
        prefix = f"test:{uuid.uuid4().hex}:"  # this test's keys only: the Redis may be shared
        mailbox, runner = (RedisMailbox(url, prefix=prefix, presence_ttl=2.0) for _ in range(2))
    servicer = Gateway(mailbox, by_token, heartbeat=0.2)
    server = ServerThread(ServerSettings(address="127.0.0.1:0"),
                          [(gateway_pb2_grpc.add_BotGatewayServicer_to_server, servicer, "arena.v1.BotGateway")])
    yield server, runner
    server.stop()


@pytest.fixture
def server_settings() -> ServerSettings:
    """The settings ``server`` runs with (a test module may override it)."""
    return ServerSettings(address="127.0.0.1:0", admin_token="admin-secret")


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server_settings: ServerSettings) -> Iterator[BackgroundServer]:
    """The whole server as ``arena serve`` runs it (gateway, Arena and Rules services) on a
    fresh SQLite store."""
    monkeypatch.setenv("ARENA_DATABASE_URL", f"sqlite:///{tmp_path / 'arena.db'}")
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    monkeypatch.setenv("ARENA_GRACE_SECONDS", "1.5")
    external.forget()  # bot ids start again at 1 in the fresh database
    running = BackgroundServer(server_settings)
    yield running
    running.stop()
    # Tournaments and challenges play on background threads that read the database from the
    # environment: one left running would play on in the next test's fresh database.
    for thread in threading.enumerate():
        if thread.name.startswith(("tournament-", "challenge-", "test-")):
            thread.join(60)
    db.dispose_all()


@pytest.fixture
def arena(server: BackgroundServer) -> Iterator[arena_pb2_grpc.ArenaStub]:
    with grpc.insecure_channel(server.address) as channel:
        yield arena_pb2_grpc.ArenaStub(channel)
