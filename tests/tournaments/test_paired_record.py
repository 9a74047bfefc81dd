"""A paired test's record in the store: which tests hold a bot, and a test whose server
stopped playing it (no renewal for ``STALE`` seconds) releasing its bots."""

from __future__ import annotations

import time

from arena.store import db, queries
from arena.tournaments import paired


def open_one(connection, base: str, candidate: str) -> paired.TestRun:
    lineup = paired.Lineup(base, candidate, (), 2)
    return paired.open_test(connection, lineup, ["durak"], 1, {"elo0": 0.0, "elo1": 5.0})


def test_a_test_holds_its_bots_until_it_ends_or_goes_stale(db_url):
    with db.transaction(db_url) as connection:
        mine, other = (queries.ensure_house_bot(connection, n) for n in ("random", "heuristic"))
        run = open_one(connection, "random", "heuristic")
        assert paired.running_tests(connection, [mine]) == [run.tournament_id]
        assert paired.running_tests(connection, [other, 12345]) == [run.tournament_id]
        assert paired.running_tests(connection, [12345]) == [] and paired.running_tests(connection, []) == []
        # Renewed a moment ago: still running a little before STALE, stale after it.
        soon = time.time() + paired.STALE - 5
        assert paired.running_tests(connection, [mine], now=soon) == [run.tournament_id]
        assert paired.running_tests(connection, [mine], now=time.time() + paired.STALE + 5) == []
        record = paired.test_state(connection, run.tournament_id)
        assert record is not None and record["state"] == paired.STOPPED
        assert record["stopped"] == "its server stopped playing it"
        # A test that ended holds nobody.
        again = open_one(connection, "random", "heuristic")
        paired.record_progress(connection, again.tournament_id, state=paired.DONE)
        assert paired.running_tests(connection, [mine]) == []
        assert paired.test_state(connection, 999) is None
