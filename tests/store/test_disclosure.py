"""The disclosure rule in the store, on SQLite and PostgreSQL: a finished match stays sealed
while any match dealing the same cards is unfinished, whatever its tournament's status, and
challenges count too; sums of results leave sealed matches out."""

from __future__ import annotations

import sqlalchemy as sa

from arena.server import challenge
from arena.store import db, disclosure
from arena.store.models import Match
from arena.store.queries import head_to_head, match_detail, recent_matches
from arena.tournaments import (
    cancel_tournament,
    claim_matches,
    create_tournament,
    pending_match_ids,
    play_and_record,
    same_deals,
)
from tests.support.platform import fast_games

match_t = Match.__table__


def rows(connection, tournament_id):  # type: ignore[no-untyped-def]
    return connection.execute(sa.select(match_t).where(match_t.c.tournament_id == tournament_id)
                              .order_by(match_t.c.id)).all()


def shown_in_sums(connection, tournament_id) -> int:  # type: ignore[no-untyped-def]
    return connection.execute(sa.select(sa.func.count()).select_from(match_t).where(
        match_t.c.tournament_id == tournament_id, match_t.c.status == "done", disclosure.results_shown())).scalar_one()


def test_a_deal_stays_sealed_while_any_match_deals_it(db_url):
    game = fast_games(1)[0]
    with db.transaction() as connection:
        first = create_tournament(connection, [game], ["random", "random-2"], sizes=[2], seed=5)
        other = create_tournament(connection, [game], ["random", "random-2"], sizes=[2], seed=5)  # another key
        ids = pending_match_ids(connection, first)
    play_and_record(ids)
    with db.transaction() as connection:
        cancel_tournament(connection, other)
        seed, key = same_deals(connection, first)
        rerun = create_tournament(connection, [game], ["random", "random-3"], sizes=[2], seed=seed, deal_key=key)
    with db.read() as connection:
        assert {m.seed for m in rows(connection, rerun)} == {m.seed for m in rows(connection, first)}
        assert not {m.seed for m in rows(connection, other)} & {m.seed for m in rows(connection, first)}
        # The rerun's matches are scheduled: the deal is in play again.
        assert disclosure.sealed_ids(connection, rows(connection, first)) == set(ids)
        assert shown_in_sums(connection, first) == 0
    with db.transaction() as connection:
        claim_matches(connection, pending_match_ids(connection, rerun)[:1], "test:1", 5)
        assert cancel_tournament(connection, rerun) == 1  # the other rotation, not started
    with db.read() as connection:
        assert {m.status for m in rows(connection, rerun)} == {"running", "cancelled"}
        done = rows(connection, first)
        assert all(disclosure.sealed(connection, m) for m in done)
        detail = disclosure.public_detail(connection, match_detail(connection, ids[0]))
        assert detail["sealed"] and detail["seed"] is None and detail["seats"] == [] and detail["transcript"] is None
        listed = disclosure.seal_listing(connection, recent_matches(connection, tournament_id=first))
        assert all(m["sealed"] and m["seats"] == [] for m in listed)
        assert shown_in_sums(connection, first) == 0
        assert head_to_head(connection, game, ["random", "random-2"]) == {}  # `arena leaderboard --head-to-head`
    with db.transaction() as connection:  # the started match ends (here: it fails): the deal is over
        connection.execute(match_t.update().where(match_t.c.tournament_id == rerun, match_t.c.status == "running")
                           .values(status="failed"))
    with db.read() as connection:
        assert disclosure.sealed_ids(connection, rows(connection, first)) == set()
        assert not disclosure.public_detail(connection, match_detail(connection, ids[0]))["sealed"]
        assert shown_in_sums(connection, first) == len(ids)
        met = head_to_head(connection, game, ["random", "random-2"])[("random", "random-2")]
        assert met.wins + met.draws + met.losses == len(ids)
    with db.transaction() as connection:  # the admin's challenge on the same deal
        deal = rows(connection, first)[0].seed
        challenge.create(connection, challenge.prepare(connection, game, ["random", "random-3"], {}, 2.0, 10.0), deal)
    with db.read() as connection:
        assert disclosure.sealed_ids(connection, rows(connection, first)) == set(ids)
        assert shown_in_sums(connection, first) == 0


def test_a_store_from_before_keys_and_rounds_replays_as_it_did(db_url):
    """Migration 0006 on a store with results: they were rated as recorded, so their round is
    their own ``seq`` (0 when unrated), and their tournaments have no deal key."""
    from alembic import command

    from arena.store.results import replay_ratings

    eng = db.engine(db_url)
    with eng.begin() as connection:
        command.downgrade(db._alembic_config(connection), "0004")
    now = {"now": "2026-12-01 00:00:00+00:00"}
    with eng.begin() as connection:
        for name in ("a", "b"):
            connection.execute(sa.text("INSERT INTO bot (name, kind, think, created_at) "
                                       "VALUES (:name, 'house', 0, :now)"), {"name": name, **now})
        connection.execute(sa.text(
            "INSERT INTO tournament (name, status, rated, seed, move_time, time_bank, spec, created_at) "
            "VALUES ('old', 'done', true, 7, 2, 30, '{}', :now)"), now)
        for match_id, rated in ((1, True), (2, False)):
            connection.execute(sa.text(
                "INSERT INTO match (id, tournament_id, game, options, seed, seating, rated, status, attempts, "
                "created_at) VALUES (:id, 1, 'crazy_eights', '{}', 9, '[1, 2]', :rated, 'done', 1, :now)"),
                {"id": match_id, "rated": rated, **now})
            connection.execute(sa.text(
                "INSERT INTO result (match_id, game, finished_at, duration_ms, decisions, capped) "
                "VALUES (:id, 'crazy_eights', :now, 1, 1, false)"), {"id": match_id, **now})
            for seat in (0, 1):
                connection.execute(sa.text(
                    "INSERT INTO match_seat (match_id, seat, bot_id, score, rank, strikes, forfeited) "
                    "VALUES (:id, :seat, :bot, 0, :rank, 0, false)"),
                    {"id": match_id, "seat": seat, "bot": seat + 1, "rank": seat + 1})
    db.upgrade(eng)
    with db.transaction(db_url) as connection:
        rounds = dict(connection.execute(sa.text("SELECT match_id, rating_round FROM result")).all())
        seqs = dict(connection.execute(sa.text("SELECT match_id, seq FROM result")).all())
        assert rounds == {1: seqs[1], 2: 0}
        assert connection.execute(sa.text("SELECT deal_key FROM tournament")).scalar_one() is None
        assert {key: s.matches for key, s in replay_ratings(connection).items()} == {
            (1, "crazy_eights"): 1, (2, "crazy_eights"): 1}
