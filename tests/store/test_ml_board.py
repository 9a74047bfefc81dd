"""The maximum-likelihood list read from the store (``arena.store.ml_board``) on SQLite and on
PostgreSQL: the one statement that sums rated results per duplicate group gives both the same
units, and the fit agrees with a plain Bradley-Terry fit of the seats read row by row."""

from __future__ import annotations

import sqlalchemy as sa

from arena.store import db, ml_board
from arena.store.models import Bot, Match, MatchSeat, utcnow
from arena.tournaments import play_and_record
from tests.helpers import plain_bradley_terry
from tests.support.platform import fast_games, small_tournament


def two_player_games(url: str, game: str) -> list[tuple[int, int, float]]:
    """Every rated match of ``game`` as (bot, bot, score of the first), seat by seat."""
    match_t, seat_t = Match.__table__, MatchSeat.__table__
    with db.read(url) as connection:
        seats = connection.execute(
            sa.select(seat_t.c.match_id, seat_t.c.bot_id, seat_t.c.rank)
            .join(match_t, match_t.c.id == seat_t.c.match_id)
            .where(match_t.c.game == game, match_t.c.rated.is_(True))
            .order_by(seat_t.c.match_id, seat_t.c.seat)).all()
    by_match: dict[int, list[tuple[int, int]]] = {}
    for match_id, bot, rank in seats:
        by_match.setdefault(match_id, []).append((bot, rank))
    return [(a, b, 1.0 if ra < rb else 0.5 if ra == rb else 0.0) for (a, ra), (b, rb) in by_match.values()]


def test_the_stored_ml_list_is_the_plain_fit_of_the_stored_seats(db_url):
    game = fast_games(1)[0]
    _, ids = small_tournament(db_url, reps=3)
    play_and_record(ids)
    with db.read(db_url) as connection:
        units = ml_board.rated_units(connection, game)
        listed = ml_board.leaderboard(connection, game, replicas=50)
        names = dict(connection.execute(sa.select(Bot.__table__.c.id, Bot.__table__.c.name)).all())
    games = two_player_games(db_url, game)
    assert len(games) == len(ids)
    # Duplicate groups: one unit per deal with both seatings of it inside, one choice a match.
    assert len(units) == len(ids) // 2
    assert abs(sum(w for unit in units.values() for w in unit.sets.values()) - len(ids)) < 1e-9
    expected = {names[bot]: rating for bot, rating in plain_bradley_terry(games).items()}
    assert {row.bot for row in listed} == set(expected)
    for row in listed:
        assert abs(row.rating - expected[row.bot]) < 1e-6, (row.bot, row.rating, expected[row.bot])


def test_two_processes_keeping_one_games_list_at_once_leave_the_later(pg_url):
    """Two web processes refit one game at the same moment: the second keeps its list once the
    first has committed, instead of failing on the game's key."""
    import threading

    from arena.store.ml_board import MLRow

    db.engine(pg_url)
    first = [MLRow(rank=1, bot="ada", rating=1510.0, low=1490.0, high=1530.0, los_next=None)]
    second = [MLRow(rank=1, bot="bram", rating=1520.0, low=1500.0, high=1540.0, los_next=None)]
    failures: list[BaseException] = []
    with db.transaction(pg_url) as connection:
        ml_board.keep(connection, "yaniv", (1, 2, 3), first)  # not committed yet

        def later() -> None:
            try:
                with db.transaction(pg_url) as other:
                    ml_board.keep(other, "yaniv", (1, 2, 4), second)  # waits for the first
            except BaseException as error:  # noqa: BLE001 - reported below
                failures.append(error)

        racing = threading.Thread(target=later)
        racing.start()
        racing.join(1.0)  # it waits on the game's key
    racing.join(30)
    assert not failures, failures
    with db.read(pg_url) as connection:
        assert ml_board.kept(connection, "yaniv") == ((1, 2, 4), second)


def test_a_list_kept_by_a_release_whose_lines_read_otherwise_is_fitted_again(db_url):
    """A list kept with fields this release's lines do not have is no list at all: the web
    face and the CLI fit the game again instead of failing on it."""
    game = fast_games(1)[0]
    _, ids = small_tournament(db_url, reps=1)
    play_and_record(ids)
    with db.transaction(db_url) as connection:
        stood = ml_board.version(connection, game)
        connection.execute(sa.insert(ml_board.fit_t).values(
            game=game, version=list(stood), rows=[{"place": 1, "bot_id": 1, "name": "ada"}], fitted_at=utcnow()))
    with db.read(db_url) as connection:
        assert ml_board.kept(connection, game) is None
        listed = ml_board.current(connection, game)
        fitted = ml_board.leaderboard(connection, game)
    assert listed and [r.bot for r in listed] == [r.bot for r in fitted]
