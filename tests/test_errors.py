"""``arena.errors``: which failures are outages of the surroundings (and which of those are
worth waiting for), the first line of an error, and the user-facing types that still are the
``KeyError`` or ``ValueError`` their callers catch. Every error here is raised by the real
thing: a database, a Redis, a game's registry."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa
from billiard.exceptions import SoftTimeLimitExceeded

from arena import errors, games
from arena.server.ids import parse_id
from arena.store import house_names
from arena.store.db import SchemaNotReady


def raised(call) -> BaseException:
    try:
        call()
    except Exception as error:
        return error
    raise AssertionError("nothing was raised")


def sql(url: str, statement: str) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql(statement)
    finally:
        engine.dispose()


def test_a_database_out_of_reach_is_an_outage_worth_waiting_for(tmp_path: Path) -> None:
    for error in (raised(lambda: sql("postgresql+psycopg://nobody@127.0.0.1:1/none", "select 1")),
                  raised(lambda: sql(f"sqlite:///{tmp_path / 'no' / 'such' / 'dir.db'}", "select 1"))):
        assert errors.outage(error) == errors.Fault("database", passing=True), error


def test_a_database_refusing_the_sql_is_an_outage_not_worth_waiting_for(tmp_path: Path) -> None:
    error = raised(lambda: sql(f"sqlite:///{tmp_path / 'a.db'}", "selec 1"))
    assert errors.outage(error) == errors.Fault("database", passing=False)


def test_a_broker_out_of_reach_is_an_outage() -> None:
    import redis

    error = raised(lambda: redis.Redis(port=1, socket_connect_timeout=1).ping())
    assert errors.outage(error) == errors.Fault("broker", passing=False)


@pytest.mark.parametrize("error", [ConnectionError("reset"), TimeoutError("late"), ChildProcessError("killed"),
                                   SoftTimeLimitExceeded()])
def test_a_lost_connection_process_or_time_limit_is_an_outage(error: BaseException) -> None:
    assert errors.outage(error) == errors.Fault("", passing=False)


@pytest.mark.parametrize("error", [KeyError("x"), ValueError("x"), TypeError("x"), errors.BadInput("x"),
                                   errors.NotFound("x")])
def test_bugs_and_refusals_are_no_outage(error: BaseException) -> None:
    assert errors.outage(error) is None


def test_the_first_line_is_the_drivers_own_and_never_quoted() -> None:
    error = raised(lambda: sql("postgresql+psycopg://nobody@127.0.0.1:1/none", "select 1"))
    line = errors.first_line(error)
    assert "\n" not in line and "127.0.0.1" in line and "sqlalche.me" not in line and "psycopg" not in line
    assert errors.first_line(KeyError("no tournament 5")) == "no tournament 5"
    assert errors.first_line(errors.NotFound("no match 3")) == "no match 3" == str(errors.NotFound("no match 3"))
    assert errors.first_line(ValueError("'house' is reserved\nand more")) == "'house' is reserved"
    assert errors.first_line(ValueError("")) == "ValueError"


def test_user_errors_are_still_the_types_their_callers_catch() -> None:
    unknown = raised(lambda: games.get("nosuchgame"))
    assert isinstance(unknown, errors.UnknownGame) and isinstance(unknown, KeyError)
    assert str(unknown).startswith("unknown game 'nosuchgame'; known: ")
    no_house_bot = raised(lambda: games.house_bot(games.names()[0], "nobody", 0, 1))
    assert isinstance(no_house_bot, errors.UnknownBot) and isinstance(no_house_bot, KeyError)
    no_strategy = raised(lambda: house_names.house_name("house:nobody"))
    assert isinstance(no_strategy, errors.UnknownBot) and isinstance(no_strategy, ValueError)
    bad_options = raised(lambda: games.get(games.names()[0]).resolve_options({"nosuch": 1}))
    assert isinstance(bad_options, games.BadOptions) and isinstance(bad_options, errors.BadInput)
    assert isinstance(raised(lambda: parse_id("abc", "match")), errors.BadInput)
    assert issubclass(SchemaNotReady, errors.ArenaError) and issubclass(SchemaNotReady, ValueError)
