"""Bot names in the store, on SQLite and PostgreSQL: unique whatever their case, held by the
database itself (a unique index on lower(name)), and the migration that adds it renames, never
deletes, the rows that would break it."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from arena.store import bot_tokens, db
from arena.store.models import Bot, BotToken, utcnow

bot_t = Bot.__table__


def test_the_store_refuses_a_second_name_in_another_case(db_url: str) -> None:
    with db.transaction(db_url) as connection:
        bot_tokens.register(connection, "Alice")
    with pytest.raises(sa.exc.IntegrityError):
        with db.transaction(db_url) as connection:
            connection.execute(bot_t.insert().values(name="ALICE", kind="external", think=0.0, created_at=utcnow()))
    with db.transaction(db_url) as connection, pytest.raises(bot_tokens.NameTaken):
        bot_tokens.register(connection, "alice")


@pytest.mark.parametrize("backend", ["sqlite_url", "pg_url"])
def test_the_migration_renames_what_would_clash_and_keeps_every_bot(request: pytest.FixtureRequest,
                                                                     backend: str) -> None:
    url = request.getfixturevalue(backend)
    engine = sa.create_engine(url)
    try:
        db.upgrade(engine, "0004")
        rows = [("Alice", "external"), ("alice", "external"), ("heuristic", "house"), ("Heuristic", "external"),
                ("RANDOM-2", "external"), ("rt-bob\n", "external"), ("carol", "external")]
        with engine.begin() as connection:
            for name, kind in rows:
                connection.execute(bot_t.insert().values(name=name, kind=kind, think=0.0, created_at=utcnow()))
            ids = dict(connection.execute(sa.select(bot_t.c.name, bot_t.c.id)).all())
            connection.execute(BotToken.__table__.insert().values(
                bot_id=ids["alice"], token_hash="h" * 64, owner="", created_at=utcnow()))
        db.upgrade(engine, "head")
        with engine.begin() as connection:
            names = dict(connection.execute(sa.select(bot_t.c.id, bot_t.c.name)).all())
            assert connection.execute(sa.select(BotToken.__table__.c.bot_id)).scalar_one() == ids["alice"]
        assert names == {ids["Alice"]: "Alice", ids["alice"]: f"alice~{ids['alice']}",
                         ids["heuristic"]: "heuristic", ids["Heuristic"]: f"Heuristic~{ids['Heuristic']}",
                         ids["RANDOM-2"]: f"RANDOM-2~{ids['RANDOM-2']}", ids["rt-bob\n"]: f"rt-bob~{ids['rt-bob' + chr(10)]}",
                         ids["carol"]: "carol"}
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(bot_t.insert().values(name="CAROL", kind="external", think=0.0, created_at=utcnow()))
    finally:
        engine.dispose()
