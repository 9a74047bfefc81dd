"""The store on SQLite and PostgreSQL: migrations make the schema, results are recorded
exactly once, ratings recompute to the incremental values, concurrent writers agree."""

from __future__ import annotations

import threading
import time

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import SQLModel

from arena.referee import HousePlayer, play_match
from arena.store import db, queries, recompute, record_result
from arena.store.models import Match, RatingHistory, Result
from arena.tournaments import create_tournament, pending_match_ids, play_and_record
from tests.support.platform import fast_games, ratings_table, replayed, small_tournament, table_sizes


def test_migrations_make_exactly_the_modelled_schema(db_url):
    assert db.current_revision(db.engine(db_url)) == db.head_revision()
    with db.engine(db_url).connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), SQLModel.metadata) == []


def test_a_match_is_recorded_once_whatever_the_deliveries(db_url):
    tid, ids = small_tournament(db_url)
    assert play_and_record(ids[:1]) == ids[:1]
    assert play_and_record(ids[:1]) == []  # delivered again: already done
    with db.transaction(db_url) as connection:
        spec = connection.execute(sa.select(Match.__table__).where(Match.__table__.c.id == ids[0])).one()
        players = [HousePlayer(spec.game, "random", s, spec.seed) for s in range(2)]
        result = play_match(spec.game, players, spec.seed)
        # Even past the status check (a racing duplicate), the unique result row holds.
        connection.execute(Match.__table__.update().values(status="running").where(Match.__table__.c.id == ids[0]))
        assert record_result(connection, ids[0], result) is False
        connection.rollback()
    with db.transaction(db_url) as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Result.__table__)).scalar_one() == 1
        # Its twin (the other rotation of the deal) is still to be played: its Elo waits.
        assert connection.execute(sa.select(sa.func.count()).select_from(RatingHistory.__table__)).scalar_one() == 0
    assert play_and_record(ids[1:2]) == ids[1:2]
    assert play_and_record(ids[:2]) == []
    with db.transaction(db_url) as connection:
        # The group is over: both rotations rated, once.
        assert connection.execute(sa.select(sa.func.count()).select_from(RatingHistory.__table__)).scalar_one() == 4


def test_tournament_completes_and_recompute_equals_incremental(db_url):
    tid, ids = small_tournament(db_url, reps=2)
    play_and_record(ids)
    with db.transaction(db_url) as connection:
        status = queries.tournament_status(connection, tid)
        board = queries.leaderboard(connection, fast_games(1)[0])
    assert status["status"] == "done"
    assert all(g["done"] == g["total"] == len(ids) for g in status["games"].values())
    assert len(board) == 3 and sum(row.matches for row in board) == 2 * len(ids)
    assert all(row.low < row.elo < row.high for row in board)
    incremental = ratings_table(db_url)
    assert incremental == replayed(db_url)
    with db.transaction(db_url) as connection:
        recompute(connection)
    assert ratings_table(db_url) == incremental


def test_a_duplicate_group_is_rated_once_it_is_over(db_url):
    """The leaderboard once told a finished rotation's result while its twin was
    played. A group's Elo now moves when its last rotation is recorded, or when its other
    rotations end without a result (cancelled, failed); ratings replay agrees at every step."""
    from arena.store.models import Result
    from arena.store.results import finish_if_complete
    from arena.tournaments import cancel_tournament

    def elo_moved() -> dict[int, int]:
        with db.transaction(db_url) as connection:
            return dict(connection.execute(sa.select(RatingHistory.__table__.c.match_id, sa.func.count())
                                           .group_by(RatingHistory.__table__.c.match_id)).all())

    def check_replay() -> None:
        assert ratings_table(db_url) == replayed(db_url)

    tid, ids = small_tournament(db_url)  # 3 groups of 2 rotations: ids[0:2], ids[2:4], ids[4:6]
    play_and_record([ids[0], ids[2]])
    assert elo_moved() == {}
    assert all(row[2] == 0 and row[0] == 1500.0 for row in ratings_table(db_url).values())
    check_replay()
    play_and_record([ids[1]])
    assert elo_moved() == {ids[0]: 2, ids[1]: 2}
    check_replay()
    play_and_record([ids[4]])  # the third group: one rotation is recorded, then the other fails
    assert set(elo_moved()) == {ids[0], ids[1]}
    with db.transaction(db_url) as connection:
        connection.execute(Match.__table__.update().where(Match.__table__.c.id == ids[5]).values(status="failed"))
    with db.transaction(db_url) as connection:  # as after every batch
        assert not finish_if_complete(connection, tid)
    assert set(elo_moved()) == {ids[0], ids[1], ids[4]}
    check_replay()
    with db.transaction(db_url) as connection:
        assert cancel_tournament(connection, tid) == 1  # ids[3]: ids[2] is rated as it stands
        assert not finish_if_complete(connection, tid)  # cancelled, and rating again changes nothing
    assert set(elo_moved()) == {ids[0], ids[1], ids[2], ids[4]}
    check_replay()
    incremental = ratings_table(db_url)
    with db.transaction(db_url) as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Result.__table__)
                                  .where(Result.__table__.c.rating_round.is_(None))).scalar_one() == 0
        recompute(connection)
    assert ratings_table(db_url) == incremental


def test_unrated_tournament_leaves_ratings_alone(db_url):
    tid, ids = small_tournament(db_url, rated=False)
    play_and_record(ids)
    assert ratings_table(db_url) == {}


def test_concurrent_writers_give_the_sequential_result(db_url):
    """Threads recording matches among the same bots at once: the stored ratings are
    exactly the replay of the results in completion order."""
    tid, ids = small_tournament(db_url, reps=4)
    errors = []

    def work(part):
        try:
            play_and_record(part)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(ids[i::4],)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert ratings_table(db_url) == replayed(db_url)
    with db.transaction(db_url) as connection:
        assert queries.tournament_status(connection, tid)["status"] == "done"


def test_cancel_stops_scheduled_matches(db_url):
    from arena.tournaments import cancel_tournament

    tid, ids = small_tournament(db_url)
    play_and_record(ids[:2])
    with db.transaction(db_url) as connection:
        assert cancel_tournament(connection, tid) == len(ids) - 2
    assert play_and_record(ids) == []
    with db.transaction(db_url) as connection:
        status = queries.tournament_status(connection, tid)
    assert status["status"] == "cancelled"
    assert sum(g["done"] for g in status["games"].values()) == 2


@pytest.mark.parametrize("attempts", [3])
def test_a_poison_match_is_failed_after_too_many_deliveries(db_url, monkeypatch, attempts):
    monkeypatch.setenv("ARENA_MAX_ATTEMPTS", str(attempts))
    tid, ids = small_tournament(db_url)
    with db.transaction(db_url) as connection:
        connection.execute(Match.__table__.update().where(Match.__table__.c.id == ids[0]).values(attempts=attempts))
    assert play_and_record(ids[:1]) == []
    with db.transaction(db_url) as connection:
        status = connection.execute(sa.select(Match.__table__.c.status).where(Match.__table__.c.id == ids[0])).scalar_one()
    assert status == "failed"


def test_listing_by_bot_finds_its_matches_and_reads_a_bounded_window(sqlite_url):
    """ListMatches(bot=...) is open to anyone: it must find the bot's matches among others and
    never read more than its window of newest matches, whatever the bot."""
    with db.transaction(sqlite_url) as connection:
        tid = create_tournament(connection, fast_games(1), ["random", "heuristic", "random-2"], sizes=[2], repetitions=4, seed=3)
        listed = queries.recent_matches(connection, bot="random-2", limit=1000)
        everything = queries.recent_matches(connection, tournament_id=tid, limit=1000)
        mine = [m["id"] for m in everything if "random-2" in m["seating"]]
        assert [m["id"] for m in listed] == mine and len(mine) == 16
        query = sa.select(Match.__table__).order_by(Match.__table__.c.id.desc())
        bot_id = connection.execute(sa.text("select id from bot where name = 'random'")).scalar_one()
        window = queries._with_bot(connection, query, bot_id, limit=1000, page=5, scan=10)
        assert len(window) <= 10 and {m.id for m in window} <= {m["id"] for m in everything[:10]}


def test_head_to_head_counts_the_pairwise_games_elo_counts(db_url):
    game = fast_games(1)[0]
    bots = ["random", "heuristic", "random-2"]
    with db.transaction(db_url) as connection:
        rated = create_tournament(connection, [game], bots, sizes=table_sizes(game), repetitions=2, seed=5)
        unrated = create_tournament(connection, [game], bots, sizes=[2], repetitions=1, seed=6, rated=False)
        ids = pending_match_ids(connection, rated) + pending_match_ids(connection, unrated)
    play_and_record(ids)
    with db.transaction(db_url) as connection:
        meetings = queries.head_to_head(connection, game, bots + ["nobody"])
        expected: dict[tuple[str, str], list[int]] = {}
        for match in queries.recent_matches(connection, tournament_id=rated, limit=1000):
            seats = queries.match_detail(connection, match["id"])["seats"]
            for mine in seats:
                for theirs in seats:
                    if mine["bot"] != theirs["bot"]:
                        tally = expected.setdefault((mine["bot"], theirs["bot"]), [0, 0, 0])
                        tally[(mine["rank"] >= theirs["rank"]) + (mine["rank"] > theirs["rank"])] += 1
    assert {key: [m.wins, m.draws, m.losses] for key, m in meetings.items()} == expected
    assert len(expected) == 6 and all(sum(t) >= 4 for t in expected.values())
    assert meetings[("random", "heuristic")].wins == meetings[("heuristic", "random")].losses


def test_duplicate_pairs_are_the_two_seatings_of_one_deal_between_two_bots(db_url):
    game = fast_games(1)[0]
    bots = ["random", "heuristic", "random-2"]
    with db.transaction(db_url) as connection:
        # Two-player tables give pairs; the three-player table and the unrated tournament none.
        rated = create_tournament(connection, [game], bots, sizes=[2, 3], repetitions=3, seed=5)
        unrated = create_tournament(connection, [game], bots, sizes=[2], repetitions=1, seed=6, rated=False)
        ids = pending_match_ids(connection, rated) + pending_match_ids(connection, unrated)
    play_and_record(ids[:-1])  # the unrated tournament's last match stays unplayed
    with db.transaction(db_url) as connection:
        pairs = queries.duplicate_pairs(connection, game, "heuristic", "random")
        # Expected from the match documents: per deal, the heuristic's score in each seating.
        by_deal: dict[int, list[float]] = {}
        for match in queries.recent_matches(connection, tournament_id=rated, limit=1000):
            seats = queries.match_detail(connection, match["id"])["seats"]
            if {s["bot"] for s in seats} != {"heuristic", "random"}:
                continue
            mine, theirs = sorted(seats, key=lambda s: s["bot"] != "heuristic")
            by_deal.setdefault(match["seed"], []).append(
                1.0 if mine["rank"] < theirs["rank"] else 0.5 if mine["rank"] == theirs["rank"] else 0.0)
        assert queries.duplicate_pairs(connection, game, "heuristic", "nobody") == []
    assert len(pairs) == 3 and all(len(scores) == 2 for scores in by_deal.values())
    assert sorted(g.outcome for g in pairs) == sorted(sum(s) / 2 for s in by_deal.values())
    assert all(g.shared and g.candidate[i] + g.base[i] == 1 for g in pairs for i in (0, 1))


def test_a_recording_chosen_as_a_deadlock_victim_is_recorded_again_not_replayed(pg_url, monkeypatch):
    """PostgreSQL breaks a lock cycle by rolling one transaction back. When that is the
    recording of finished matches, the recording is simply tried again: the match is recorded
    once and never played a second time (a deadlock is not an outage)."""
    from arena.store.results import lock_ratings
    from arena.tournaments import play as play_module

    monkeypatch.setenv("ARENA_DATABASE_URL", pg_url)
    tid, ids = small_tournament(pg_url)
    with db.transaction(pg_url) as connection:
        match = connection.execute(sa.select(Match.__table__).where(Match.__table__.c.id == ids[0])).one()
    low, high = sorted(match.seating)
    played = []
    runner = play_module._runner()
    monkeypatch.setattr(play_module, "_runner", lambda: lambda *a, **k: played.append(a[0]) or runner(*a, **k))
    outcome: dict[str, object] = {}
    holding = threading.Event()

    def record() -> None:
        holding.wait(10)
        try:
            outcome["recorded"] = play_and_record(ids[:1])
        except Exception as error:
            outcome["error"] = error

    recorder = threading.Thread(target=record)
    recorder.start()
    with db.transaction(pg_url) as connection:
        lock_ratings(connection, [(high, match.game)])  # the recording locks low, then waits here
        holding.set()
        time.sleep(0.6)  # the recorder waits first: its deadlock check runs first, so it is the victim
        lock_ratings(connection, [(low, match.game)])  # and now a cycle
    recorder.join(60)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["recorded"] == ids[:1] and played == [match.game], "recorded once, played once"
    with db.transaction(pg_url) as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(Result.__table__)).scalar_one() == 1
