"""Engines, transactions and migrations.

SQLite (the default) runs in WAL mode with a busy timeout, and every transaction starts
with ``BEGIN IMMEDIATE``: a writer takes the write lock before reading anything, so two
writers queue instead of deadlocking on a lock upgrade. PostgreSQL writers lock rows in a
fixed order instead (see ``arena.store.results``).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

from arena.errors import ArenaError
from arena.settings import load

if TYPE_CHECKING:
    from sqlalchemy.dialects.postgresql import Insert as PostgresInsert
    from sqlalchemy.dialects.sqlite import Insert as SqliteInsert

T = TypeVar("T")

MIGRATIONS = Path(__file__).parent / "migrations"
_engines: dict[tuple[str, int], Engine] = {}
_migrated: set[tuple[str, int]] = set()
_lock = threading.Lock()


class SchemaNotReady(ArenaError, ValueError):
    """A reader found a database without the arena's current schema (readers never make it)."""


def normalize_url(url: str) -> str:
    """Plain ``postgresql://`` URLs mean psycopg 3, the driver the arena ships with."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    dbapi_connection.isolation_level = None  # transactions are begun by _sqlite_begin
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=60000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    # Readers (``db.read``) need no write lock: a deferred BEGIN reads a WAL snapshot.
    if connection.get_execution_options().get("arena_read_only"):
        connection.exec_driver_sql("BEGIN")
    else:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_engine(url: str) -> Engine:
    """A new engine for ``url`` with the arena's connection settings."""
    url = normalize_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = sa.create_engine(url, connect_args={"timeout": 60, "check_same_thread": False})
        sa.event.listen(engine, "connect", _sqlite_pragmas)
        sa.event.listen(engine, "begin", _sqlite_begin)
        return engine
    # No pre-ping (a round trip per transaction): a dropped connection fails its
    # transaction, the pool discards it, and the task's retry gets a fresh one.
    size = load().db_pool
    return sa.create_engine(url, pool_size=size, max_overflow=size, pool_recycle=1800)


def engine(url: str | None = None, migrate: bool = True) -> Engine:
    """The shared engine for ``url`` (default ``ARENA_DATABASE_URL``) in this process.

    Writers (``migrate``) bring the schema to the newest revision on first use; readers never
    touch the schema: a database that was never migrated (or an older one) is a
    ``SchemaNotReady`` naming ``arena db upgrade``, and a SQLite file that does not exist is
    not created. Engines are per process: a forked worker child must not reuse its parent's
    sockets."""
    url = normalize_url(url or load().database_url)
    key = (url, os.getpid())
    with _lock:
        found = _engines.get(key)
        if found is None:
            if not migrate:
                _check_exists(url)
            found = _engines[key] = make_engine(url)
        if key not in _migrated:
            if migrate:
                upgrade(found)
            else:
                _check_schema(found)
            _migrated.add(key)
        return found


def missing_file(url: str) -> str | None:
    """The path of ``url``'s SQLite file when that file does not exist (None otherwise):
    readers must not create it by connecting."""
    path = normalize_url(url).split("///", 1)[-1] if url.startswith("sqlite") else ""
    return path if path and path != ":memory:" and not Path(path).exists() else None


def _check_exists(url: str) -> None:
    if path := missing_file(url):
        raise SchemaNotReady(f"no database at {path}: run `arena db upgrade` (or a tournament) first")


def _check_schema(eng: Engine) -> None:
    current, head = current_revision(eng), head_revision()
    if current != head:
        where = eng.url.render_as_string(hide_password=True)
        found = f"at revision {current}" if current else "empty"
        raise SchemaNotReady(f"the database {where} is {found}, this arena needs revision {head}: "
                             "run `arena db upgrade`")


def dispose_all() -> None:
    """Forget this process's engines (after a fork, or at the end of tests)."""
    with _lock:
        for key, eng in list(_engines.items()):
            if key[1] == os.getpid():
                eng.dispose()
            del _engines[key]
            _migrated.discard(key)


@contextmanager
def transaction(url: str | None = None) -> Iterator[Connection]:
    """A connection inside one transaction: committed on success, rolled back on error."""
    with engine(url).begin() as connection:
        yield connection


# A transaction the database rolled back to break a lock cycle (SQLSTATE 40P01) or to keep
# transactions serializable (40001) did nothing: run it again, a few times at most.
ROLLBACK_ATTEMPTS = 5


def rolled_back(error: BaseException) -> bool:
    """Whether ``error`` is PostgreSQL rolling a transaction back for another's sake
    (SQLSTATE class 40: a deadlock victim, a serialization failure)."""
    return str(getattr(getattr(error, "orig", None), "sqlstate", "") or "").startswith("40")


def retrying_rollbacks(call: Callable[[], T]) -> T:
    """``call()`` (one whole transaction), run again while the database rolls it back to
    break a lock cycle: such a rollback is neither an outage nor the transaction's own fault."""
    attempt = 1
    while True:
        try:
            return call()
        except sa.exc.DBAPIError as error:
            if not rolled_back(error) or attempt == ROLLBACK_ATTEMPTS:
                raise
            attempt += 1


@contextmanager
def read(url: str | None = None) -> Iterator[Connection]:
    """A connection for reads only (leaderboards, status): it never takes SQLite's write
    lock, so readers do not queue behind writers."""
    with engine(url, migrate=False).connect() as connection:
        connection = connection.execution_options(arena_read_only=True)
        with connection.begin():
            yield connection


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    """The newest migration revision shipped with this code."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(config).get_current_head() or ""


def current_revision(eng: Engine) -> str | None:
    """The revision the database is at (None for an empty database)."""
    with eng.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(eng: Engine, revision: str = "head") -> None:
    """Run the Alembic migrations up to ``revision``: the only way the schema is made.

    On PostgreSQL an advisory lock keeps two processes from migrating at once."""
    if revision == "head" and current_revision(eng) == head_revision():
        return
    with eng.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SELECT pg_advisory_xact_lock(80310)")
        command.upgrade(_alembic_config(connection), revision)


def conflict_insert(connection: Connection, table: sa.Table) -> PostgresInsert | SqliteInsert:
    """An insert into ``table`` with the dialect's ``ON CONFLICT`` clauses (the two dialects
    the store runs on spell them alike)."""
    if connection.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as postgres_insert

        return postgres_insert(table)
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    return sqlite_insert(table)
