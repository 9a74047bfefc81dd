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


def test_a_servers_test_whose_player_is_gone_is_taken_over_once(db_url):
    """A test a server plays is not stopped when its player goes: it keeps its bots, is found
    as an orphan (released at once, or unrenewed for ``STALE``) and claimed by one server."""
    with db.transaction(db_url) as connection:
        mine = queries.ensure_house_bot(connection, "random")
        queries.ensure_house_bot(connection, "heuristic")
        lineup = paired.Lineup("random", "heuristic", (), 2)
        run = paired.open_test(connection, lineup, ["durak"], 1, {"elo0": 0.0, "elo1": 5.0, "server": True})
        cli = open_one(connection, "random", "heuristic")  # a test played by a command: never taken over
        assert paired.orphans(connection) == []
        later = time.time() + paired.STALE + 5
        assert paired.orphans(connection, now=later) == [run.tournament_id]
        assert run.tournament_id in paired.running_tests(connection, [mine], now=later)  # still holds its bots
        assert paired.test_state(connection, run.tournament_id)["state"] == paired.RUNNING
        assert paired.claim(connection, run.tournament_id, now=later) is not None
        assert paired.claim(connection, run.tournament_id) is None  # renewed: nobody else takes it
        assert paired.claim(connection, cli.tournament_id, now=later) is None
        # Released by a server that stops: an orphan at once.
        paired.record_progress(connection, run.tournament_id, alive_at=0.0)
        assert paired.orphans(connection) == [run.tournament_id]
