"""A scratch SQLite store filled by real tournaments through the arena's own code (the
tournament service, the embedded dispatcher, the referee and the recorder), and the web
app over it, in-process and behind a real uvicorn server.

The store holds: a finished rated round robin over three games (one with standard cards,
one with the Trekking map); a match where an external bot took strikes and forfeited; and
a tournament in progress with a match being played, a finished match whose deal is still
being played by another seating, and scheduled matches."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
import sqlalchemy as sa

from arena.referee import Clock, HousePlayer, play_match
from arena.store import bot_tokens, db, results
from arena.store.queries import match_t
from arena.tournaments import create_tournament
from arena.tournaments.play import claim_matches, play_and_record
from arena.web.app import create_app
from tests.support.platform import ScriptedPlayer

from .helpers import GAMES


@dataclass
class Store:
    url: str
    done_tournament: int
    live_tournament: int
    running_match: int
    withheld_match: int
    faulty_match: int

    def match_ids(self, **where) -> list[int]:
        with db.read(self.url) as c:
            query = sa.select(match_t.c.id).order_by(match_t.c.id)
            for column, value in where.items():
                query = query.where(match_t.c[column] == value)
            return list(c.execute(query).scalars())


def _play_with_a_flaky_bot(url: str) -> int:
    """A tournament match where the external bot ``flaky`` answers wrong three times."""
    with db.transaction(url) as c:
        bot_tokens.register(c, "flaky")
        # A fixed deal key: the deals are the same every run, each long enough for three wrong
        # answers (a fresh key could deal one in which the bot is asked only twice).
        tid = create_tournament(c, ["crazy_eights"], ["heuristic", "flaky"], [2], 1, seed=21, name="flaky",
                                deal_key=bytes(range(32)))
    with db.transaction(url) as c:
        ids = list(c.execute(sa.select(match_t.c.id).where(match_t.c.tournament_id == tid)).scalars())
        specs = claim_matches(c, ids, "test:1", 5)
    for spec in specs:
        players = [ScriptedPlayer(["illegal", "malformed", "illegal"]) if s["name"] == "flaky"
                   else HousePlayer(spec.game, s["strategy"], seat, spec.seed) for seat, s in enumerate(spec.bots)]
        result = play_match(spec.game, players, spec.seed, spec.options, Clock(move=1.0, bank=2.0), str(spec.id))
        with db.transaction(url) as c:
            results.record_result(c, spec.id, result)
    return specs[0].id


@pytest.fixture(scope="session")
def store(tmp_path_factory) -> Store:
    url = f"sqlite:///{tmp_path_factory.mktemp('web') / 'arena.db'}"
    saved = {k: os.environ.get(k) for k in ("ARENA_DATABASE_URL", "ARENA_REDIS_URL")}
    os.environ["ARENA_DATABASE_URL"] = url
    os.environ.pop("ARENA_REDIS_URL", None)
    try:
        from workers.follow import run_tournament

        with db.transaction(url) as c:
            done = create_tournament(c, GAMES, ["heuristic", "random", "random-2"], [2, 3], 1, seed=11,
                                     name="web test round robin")
        run_tournament(done, wait=True)
        faulty = _play_with_a_flaky_bot(url)
        with db.transaction(url) as c:
            live = create_tournament(c, ["durak"], ["heuristic", "random", "random-2"], [2], 1, seed=12,
                                     name="web test in progress")
        ids = Store(url, done, live, 0, 0, faulty).match_ids(tournament_id=live)
        # Two seatings of each deal: play the first of deal 1, start the first of deal 2.
        play_and_record([ids[0]], url)
        with db.transaction(url) as c:
            claim_matches(c, [ids[2]], "test:2", 5)
        yield Store(url, done, live, running_match=ids[2], withheld_match=ids[0], faulty_match=faulty)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        db.dispose_all()


@pytest.fixture(scope="session")
def app(store):
    """The app without a rate limit: the tests read as fast as they can (the limit has its own)."""
    return create_app(store.url, read_rate="")


@pytest.fixture(scope="session")
def client(app):
    from fastapi.testclient import TestClient

    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def server(app):
    """The app behind a real uvicorn server."""
    from arena.web import background

    running = background.start(app)
    yield running
    running.stop()


# The browser tests' fixtures (tests/web/browsing.py is imported only when a test asks for
# them: without selenium, that test is skipped and the others run).
@pytest.fixture(scope="module")
def browser():
    from .browsing import start_browser

    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, server, tmp_path):
    from .browsing import Page

    visited = Page(browser, server.url, tmp_path)
    yield visited
    visited.no_console_errors()
