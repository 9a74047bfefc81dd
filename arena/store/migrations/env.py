"""Alembic environment: migrations run on the connection ``arena.store.db`` hands over,
or on ``ARENA_DATABASE_URL`` when run by the ``alembic`` command itself."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

from arena.store import models  # noqa: F401  (the tables, for autogenerate)

target_metadata = SQLModel.metadata


def run() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        from arena.settings import load
        from arena.store.db import make_engine

        with make_engine(load().database_url).begin() as own:
            _migrate(own)
    else:
        _migrate(connection)


def _migrate(connection) -> None:
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


run()
