"""The JSON API and the pages on the server side, over a store filled by real tournaments:
what they show, and that nothing of an unfinished deal leaks."""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import asdict

import pytest

from arena import games
from arena.referee import replay as referee_replay
from arena.store import db, ml_board
from arena.web import caches
from arena.web import queries as web_queries
from tests.helpers import wait_until

from .helpers import GAMES, frames


def test_games_and_openapi(client):
    listed = client.get("/api/v1/games").json()
    assert [g["name"] for g in listed] == games.names()
    assert all("house_bots" in g and "options" in g for g in listed)
    schema = client.get("/api/v1/openapi.json").json()
    paths = set(schema["paths"])
    for path in ["/api/v1/games/{game}/leaderboard", "/api/v1/bots/{name}", "/api/v1/tournaments/{tournament_id}",
                 "/api/v1/matches/{match_id}/replay", "/api/v1/status"]:
        assert path in paths
    assert all(p.startswith("/api/v1/") for p in paths)


@pytest.mark.parametrize("game", GAMES)
def test_leaderboard_rows_intervals_and_sorting(client, store, game):
    board = client.get(f"/api/v1/games/{game}/leaderboard").json()
    rows = board["rows"]
    house = {"heuristic", "random", "random-2"}
    assert {r["bot"] for r in rows} == house | ({"flaky"} if game == "crazy_eights" else set())
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r["low"] < r["elo"] < r["high"] and r["house"] == (r["bot"] in house) for r in rows)
    assert [r["elo"] for r in rows] == sorted((r["elo"] for r in rows), reverse=True)
    by_name = client.get(f"/api/v1/games/{game}/leaderboard", params={"sort": "bot"}).json()["rows"]
    assert [r["bot"] for r in by_name] == sorted(r["bot"] for r in rows)
    by_rate = client.get(f"/api/v1/games/{game}/leaderboard", params={"sort": "win_rate", "order": "asc"}).json()
    assert [r["win_rate"] for r in by_rate["rows"]] == sorted(r["win_rate"] for r in rows)
    assert client.get(f"/api/v1/games/{game}/leaderboard", params={"sort": "seed"}).status_code == 422
    page = client.get(f"/games/{game}/leaderboard", params={"sort": "matches"}).text
    assert page.count('class="interval"') == len(rows) and 'aria-sort="descending"' in page
    assert page.count('title="house bot"') == 3


def test_unknown_things_are_404_in_pages_and_api(client):
    for path in ["/api/v1/games/chess/leaderboard", "/api/v1/bots/nobody", "/api/v1/matches/999999",
                 "/api/v1/tournaments/999", "/games/chess", "/bots/nobody", "/matches/999999"]:
        response = client.get(path)
        assert response.status_code == 404, path
        assert ("application/json" in response.headers["content-type"]) == path.startswith("/api/")


def test_tournament_standings_and_crosstable_add_up(client, store):
    t = client.get(f"/api/v1/tournaments/{store.done_tournament}").json()
    assert t["status"] == "done" and t["done"] == t["total"] and "seed" not in t and "seed" not in t["spec"]
    assert set(t["games"]) == set(GAMES)
    for section in t["games"].values():
        cross = section["crosstable"]["results"]
        for a in cross:
            for b, (wins, draws, losses) in cross[a].items():
                assert cross[b][a] == [losses, draws, wins]
        played = {s["bot"]: s["played"] for s in section["standings"]}
        matches = section["progress"]["done"]
        assert sum(played.values()) == sum(len(m["seats"]) for d in section["deal_groups"] for m in d["matches"])
        assert matches == 9  # 3 pairs x 2 seatings + 1 trio x 3 seatings
        # Duplicate format: every deal is played once per seating, each bot in each seat.
        for deal in section["deal_groups"]:
            seatings = [tuple(s["bot"] for s in m["seats"]) for m in deal["matches"]]
            assert len(seatings) == len(seatings[0]) and len(set(seatings)) == len(seatings)
    page = client.get(f"/tournaments/{store.done_tournament}").text
    assert page.count('class="crosstable"') == len(GAMES) and "data-live" not in page.split("tournament-live")[1][:80]


def test_finished_match_replays_every_view_exactly(client, store):
    durak = next(m for m in client.get("/api/v1/matches", params={"status": "done", "limit": 200}).json()
                 if m["game"] == "durak" and m["tournament_id"] == store.done_tournament and len(m["seats"]) == 2)
    detail = client.get(f"/api/v1/matches/{durak['id']}").json()
    assert detail["replay"] and detail["has_transcript"] and isinstance(detail["seed"], int)
    with db.read(store.url) as c:
        transcript = web_queries.transcript_if_allowed(c, durak["id"])
    state = games.get("durak").new_state(transcript["num_players"], transcript["seed"], transcript["options"])
    views = {v: frames(client.get(f"/api/v1/matches/{durak['id']}/replay", params={"view": v}).json())
             for v in ["all", "0", "1"]}
    for step, row in enumerate([None, *transcript["decisions"]]):
        if row is not None:
            state.apply(row[1], row[2])
        assert views["all"][step] == state.to_json()["state"]
        for seat in (0, 1):
            assert views[str(seat)][step] == state.observation(seat)
    assert referee_replay(transcript).outcome().scores == transcript["scores"]
    # A seat's view holds its own hand and never the other's.
    for step in range(len(views["0"])):
        assert views["0"][step]["hand"] == sorted(views["all"][step]["hands"][0], key=views["0"][step]["hand"].index)
        assert "hands" not in views["0"][step] and "stock" not in views["0"][step]
    assert client.get(f"/api/v1/matches/{durak['id']}/replay", params={"view": "2"}).status_code == 400


def test_a_running_match_shows_only_public_information(client, store):
    match_id = store.running_match
    detail = client.get(f"/api/v1/matches/{match_id}").json()
    assert detail["status"] == "running"
    assert not detail["replay"] and "seed" not in detail and "transcript" not in detail
    for view in ["all", "0", "1"]:
        assert client.get(f"/api/v1/matches/{match_id}/replay", params={"view": view}).status_code == 404
    page = client.get(f"/matches/{match_id}").text
    assert "only public information" in page and "seed" not in page and 'id="viewer"' not in page
    seed = _seed(store, match_id)
    for path in [f"/matches/{match_id}", f"/api/v1/matches/{match_id}", f"/tournaments/{store.live_tournament}",
                 f"/api/v1/tournaments/{store.live_tournament}", "/api/v1/matches?status=running", "/",
                 "/api/v1/tournaments", "/status", "/api/v1/status"]:
        assert str(seed) not in client.get(path).text, path


def test_a_finished_match_whose_deal_is_still_in_play_is_withheld(client, store):
    match_id = store.withheld_match
    detail = client.get(f"/api/v1/matches/{match_id}").json()
    assert detail["status"] == "done" and not detail["replay"] and "seed" not in detail
    assert client.get(f"/api/v1/matches/{match_id}/replay").status_code == 404
    page = client.get(f"/matches/{match_id}").text
    assert "withheld" in page and str(_seed(store, match_id)) not in page


def _seed(store, match_id: int) -> int:
    import sqlalchemy as sa

    from arena.store.queries import match_t

    with db.read(store.url) as c:
        return c.execute(sa.select(match_t.c.seed).where(match_t.c.id == match_id)).scalar_one()


def test_bot_page_has_history_opponents_and_strikes(client, store):
    heuristic = client.get("/api/v1/bots/heuristic").json()
    assert {r["game"] for r in heuristic["ratings"]} >= set(GAMES)
    for game in GAMES:
        points = heuristic["history"][game]
        rating = next(r for r in heuristic["ratings"] if r["game"] == game)
        assert points[0]["elo"] == 1500 and points[-1]["elo"] == pytest.approx(rating["elo"])
    met = {(o["game"], o["opponent"]): o for o in heuristic["opponents"]}
    random_bot = {(o["game"], o["opponent"]): o for o in client.get("/api/v1/bots/random").json()["opponents"]}
    for (game, other), o in met.items():
        if other == "random":
            mirror = random_bot[(game, "heuristic")]
            assert (o["wins"], o["draws"], o["losses"]) == (mirror["losses"], mirror["draws"], mirror["wins"])
    flaky = client.get("/api/v1/bots/flaky").json()
    assert flaky["kind"] == "external" and len(flaky["faults"]) == 2
    for fault in flaky["faults"]:
        assert fault["strikes"] == 3 and fault["forfeited"] and fault["codes"] == {"illegal": 2, "malformed": 1}
    page = client.get("/bots/flaky").text
    assert "illegal ×2" in page and "malformed ×1" in page
    assert re.search(r'<svg class="chart"', client.get("/bots/heuristic").text)


def test_home_game_and_status_pages(client, store):
    from fastapi.testclient import TestClient

    from arena.settings import load
    from arena.web.app import create_app
    from arena.web.settings import WebSettings

    home = client.get("/").text
    for name in games.names():
        assert f'href="/games/{name}"' in home
    assert "web test in progress" in home and f'/matches/{store.running_match}"' in home
    game = client.get("/games/durak").text
    assert "<table>" in game and "Observation" in game and "<h2>" in game
    elsewhere = load().but(docs_dir="/nonexistent", grafana_url="http://grafana.example/d/arena")
    with TestClient(create_app(store.url, read_rate="", settings=WebSettings.from_settings(elsewhere))) as other:
        assert "ARENA_DOCS_DIR" in other.get("/games/durak").text
        assert 'href="http://grafana.example/d/arena"' in other.get("/status").text
    status = client.get("/api/v1/status").json()
    assert status["in_flight"] == 1 and status["queued"] >= 1 and status["redis"] == {"configured": False}
    # Processes are numbered for anonymous readers: their names are host:pid.
    assert status["processes"] and all(re.fullmatch(r"process \d+", p["process"]) for p in status["processes"])
    assert "test:2" not in client.get("/status").text


def test_the_api_behind_a_real_server(server, store):
    import httpx

    response = httpx.get(f"{server.url}/api/v1/games/durak/leaderboard", timeout=10)
    assert response.status_code == 200 and response.json()["rows"][0]["rank"] == 1
    assert httpx.get(f"{server.url}/api/v1/matches/{store.running_match}/replay", timeout=10).status_code == 404


@contextmanager
def tampered(store, match_id: int, changes: dict):
    """The stored transcript of ``match_id`` with ``changes`` while the block runs, its replay
    not cached."""
    import sqlalchemy as sa

    from arena.store.queries import transcript_t

    with db.read(store.url) as c:
        original = c.execute(sa.select(transcript_t.c.data).where(transcript_t.c.match_id == match_id)).scalar_one()
    caches.replays.clear()
    try:
        with db.transaction(store.url) as c:
            c.execute(transcript_t.update().where(transcript_t.c.match_id == match_id)
                      .values(data=original | changes))
        yield original
    finally:
        with db.transaction(store.url) as c:
            c.execute(transcript_t.update().where(transcript_t.c.match_id == match_id).values(data=original))
        caches.replays.clear()


def test_a_transcript_of_older_rules_is_refused_not_misplayed(client, store):
    with tampered(store, store.faulty_match, {"version": "0"}):
        response = client.get(f"/api/v1/matches/{store.faulty_match}/replay", params={"view": "1"})
        assert response.status_code == 409 and "version 0" in response.json()["detail"]


@pytest.mark.parametrize("key", ["scores", "game_ranks", "ranks"])
def test_a_transcript_whose_result_the_actions_do_not_give_is_refused(client, store, key):
    """Scores, the rules' ranks and the final standings (the flaky bot forfeited: last,
    whatever its cards) must all be what the actions give."""
    with db.read(store.url) as c:
        recorded = web_queries.transcript_if_allowed(c, store.faulty_match)
    assert recorded["forfeited"] == [False, True] and recorded["ranks"] == [1, 2]
    changed = {"scores": [s + 1 for s in recorded["scores"]], "game_ranks": recorded["game_ranks"][::-1],
               "ranks": recorded["ranks"][::-1]}[key]
    assert client.get(f"/api/v1/matches/{store.faulty_match}/replay").status_code == 200
    with tampered(store, store.faulty_match, {key: changed}):
        response = client.get(f"/api/v1/matches/{store.faulty_match}/replay")
        assert response.status_code == 409 and str(changed) in response.json()["detail"]
def test_a_twins_results_are_sealed_on_every_page_and_endpoint(client, store):
    """While the second rotation of a deal waits, the finished first rotation's
    ranks, scores, strikes, decision count and duration were on its JSON, the tournament page
    (deal groups and standings), the bot pages (recent matches, opponents) and the status
    figures. Every reader now asks the disclosure rule."""
    import sqlalchemy as sa

    from arena.store.queries import bot_t, match_t

    twin = store.withheld_match
    detail = client.get(f"/api/v1/matches/{twin}").json()
    assert detail["status"] == "done" and detail["sealed"]
    assert all("rank" not in s and "score" not in s for s in detail["seats"])
    assert detail["decisions"] is None and detail["duration_ms"] is None and detail["finished_at"] is None
    assert 'class="rank"' not in client.get(f"/matches/{twin}").text
    listed = {m["id"]: m for m in client.get("/api/v1/matches", params={"status": "done", "limit": 200}).json()}
    assert listed[twin]["decisions"] is None and all("rank" not in s for s in listed[twin]["seats"])

    live = client.get(f"/api/v1/tournaments/{store.live_tournament}").json()["games"]["durak"]
    assert live["progress"]["done"] == 1 and live["standings"] == []
    assert all(w == [0, 0, 0] for row in live["crosstable"]["results"].values() for w in row.values())
    assert all("rank" not in s for d in live["deal_groups"] for m in d["matches"] for s in m["seats"])
    assert 'class="rank"' not in client.get(f"/tournaments/{store.live_tournament}").text

    with db.read(store.url) as c:
        seating = c.execute(sa.select(match_t.c.seating).where(match_t.c.id == twin)).scalar_one()
        names = dict(c.execute(sa.select(bot_t.c.id, bot_t.c.name)).all())
        others = [m for m in c.execute(sa.select(match_t.c.id, match_t.c.seating).where(
            match_t.c.game == "durak", match_t.c.status == "done", match_t.c.id != twin)).all()]
    first, second = (names[b] for b in seating)
    bot = client.get(f"/api/v1/bots/{first}").json()
    recent = {m["id"]: m for m in bot["recent"]}
    assert twin in recent and recent[twin]["decisions"] is None and all("rank" not in s for s in recent[twin]["seats"])
    met = {(o["game"], o["opponent"]): o["met"] for o in bot["opponents"]}
    both = [m for m in others if set(seating) <= set(m.seating)]
    assert met[("durak", second)] == len(both)  # the twin is not counted yet
    # Nor rated: a duplicate group moves the leaderboard once it is over.
    assert twin not in [point["match_id"] for point in bot["history"]["durak"]]
    rating = next(r for r in bot["ratings"] if r["game"] == "durak")
    assert rating["matches"] == len([m for m in others if seating[0] in m.seating])

    durak = next(g for g in client.get("/api/v1/status").json()["games"] if g["game"] == "durak")
    assert durak["matches"] == len(others)


def test_the_ladder_page_and_a_bots_ladder_state_without_a_ladder(client, store):
    """A store no ladder has run on: empty listings, and an external bot nobody saw is away."""
    ladder = client.get("/api/v1/ladder").json()
    assert ladder["online"] == {} and ladder["boards"] == [] and ladder["groups"] == [] and ladder["updated"] is None
    assert "No bot is connected." in client.get("/ladder").text
    flaky = client.get("/api/v1/bots/flaky").json()["ladder"]
    assert flaky == {"state": "away", "entry": None, "versions": []}
    assert "not connected" in client.get("/bots/flaky").text


def forget_fits(url: str) -> None:
    """As in a web process that starts on a store that never kept a maximum-likelihood list."""
    caches.fits.clear()
    with db.transaction(url) as c:
        c.execute(ml_board.fit_t.delete())


def fitted_board(client, game: str) -> dict:
    """The game's leaderboard once its maximum-likelihood fit has ended."""
    found = {}

    def read() -> bool:
        found.update(client.get(f"/api/v1/games/{game}/leaderboard").json())
        return found["ml"]["state"] == "fitted"

    wait_until(read, timeout=30, what="the ML fit")
    return found


@pytest.mark.parametrize("game", GAMES)
def test_leaderboard_ml_block_beside_elo(client, store, game):
    """The maximum-likelihood list of the same rated results: every bot Elo rates is on it,
    anchored at a mean of 1500, each with an interval and its LOS over the next; the page
    shows the same numbers beside Elo."""
    forget_fits(store.url)
    board = fitted_board(client, game)
    fitted = board["ml"]
    assert fitted["anchor"] == 1500 and fitted["replicas"] > 0
    rows = fitted["rows"]
    assert {r["bot"] for r in rows} == {r["bot"] for r in board["rows"]}
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert [r["rating"] for r in rows] == sorted((r["rating"] for r in rows), reverse=True)
    assert abs(sum(r["rating"] for r in rows) / len(rows) - 1500) < 1e-6
    assert all(r["low"] <= r["rating"] <= r["high"] for r in rows)
    assert all(0.5 <= r["los_next"] <= 1 for r in rows[:-1]) and rows[-1]["los_next"] is None
    with db.read(store.url) as c:  # the store's own fit of the same results
        assert [asdict(r) for r in ml_board.leaderboard(c, game)] == rows
    assert client.get(f"/api/v1/games/{game}/leaderboard").json()["ml"] == fitted  # kept, not refitted
    page = client.get(f"/games/{game}/leaderboard").text
    assert "ML fit in progress" not in page
    for r in rows:
        assert f'{r["rating"]:.0f} <span class="meta">#{r["rank"]}</span>' in page
        assert f'{r["low"]:.0f}–{r["high"]:.0f}' in page
        if r["los_next"] is not None:
            assert f'{100 * r["los_next"]:.1f} %' in page


def test_the_first_read_of_a_game_never_waits_for_its_ml_fit(server, store):
    """A web process that has fitted nothing yet (just started, at a million results its fit
    takes seconds) serves the leaderboard at once, with Elo and the fit shown in progress;
    the list appears once the fit, on a thread of its own, ends. The fit is held back here
    by holding the lock every fit takes, so the reads below cannot have waited for it."""
    import httpx

    forget_fits(store.url)
    game = GAMES[0]
    with caches.fitting:
        board = httpx.get(f"{server.url}/api/v1/games/{game}/leaderboard", timeout=10).json()
        assert board["ml"]["state"] == "fitting" and board["ml"]["rows"] == []
        assert board["rows"]  # Elo is served meanwhile
        page = httpx.get(f"{server.url}/games/{game}/leaderboard", timeout=10).text
        assert "ML fit in progress" in page and f'>{board["rows"][0]["elo"]:.0f}' in page
    def fitted() -> bool:
        return httpx.get(f"{server.url}/api/v1/games/{game}/leaderboard", timeout=10).json()["ml"]["state"] == "fitted"
    wait_until(fitted, timeout=30, what="the ML fit")
    rows = httpx.get(f"{server.url}/api/v1/games/{game}/leaderboard", timeout=10).json()["ml"]["rows"]
    with db.read(store.url) as c:
        assert [asdict(r) for r in ml_board.leaderboard(c, game)] == rows


def test_ml_list_is_fitted_again_only_when_rated_results_arrive(store, monkeypatch):
    from arena.web import views

    forget_fits(store.url)
    fits = []
    original = ml_board.leaderboard
    monkeypatch.setattr(ml_board, "leaderboard", lambda *a, **k: fits.append(a[1]) or original(*a, **k))
    monkeypatch.setattr(caches, "ML_CHECK_SECONDS", 0.0)  # ask the store on every read
    assert views.ml_leaderboard(store.url, GAMES[0]) is None  # the first fit runs apart
    wait_until(lambda: views.ml_leaderboard(store.url, GAMES[0]) is not None, timeout=30, what="the fit")
    first = views.ml_leaderboard(store.url, GAMES[0])
    assert views.ml_leaderboard(store.url, GAMES[0]) is first and fits == [GAMES[0]]  # same version: kept
    # As if fitted on fewer results: the stale list is served while a new fit runs apart.
    caches.fits.put((store.url, GAMES[0]), ((0, 0, 0), 0.0, []))
    assert views.ml_leaderboard(store.url, GAMES[0]) == []
    wait_until(lambda: caches.fits.get((store.url, GAMES[0]))[2], timeout=30, what="the refit")
    assert views.ml_leaderboard(store.url, GAMES[0]) == first and fits == [GAMES[0], GAMES[0]]


def test_a_slow_ml_refit_is_never_queued_twice(store, monkeypatch):
    """A fit longer than the check interval (a million results) must not have another thread
    started behind it at every read."""
    import threading

    from arena.web import views

    forget_fits(store.url)
    monkeypatch.setattr(caches, "ML_CHECK_SECONDS", 0.0)
    views.ml_leaderboard(store.url, GAMES[0])
    wait_until(lambda: views.ml_leaderboard(store.url, GAMES[0]) is not None, timeout=30, what="the fit")
    first = views.ml_leaderboard(store.url, GAMES[0])
    caches.fits.put((store.url, GAMES[0]), ((0, 0, 0), 0.0, []))  # as if fitted on fewer results
    name = f"ml fit {GAMES[0]}"
    with caches.fitting:  # the fit under way: every refit waits behind it
        for _ in range(5):
            assert views.ml_leaderboard(store.url, GAMES[0]) == []
        assert sum(t.name == name for t in threading.enumerate()) == 1
    wait_until(lambda: caches.fits.get((store.url, GAMES[0]))[2], timeout=30, what="the refit")
    assert views.ml_leaderboard(store.url, GAMES[0]) == first


def test_a_web_process_that_starts_serves_the_kept_ml_list_at_once(store, monkeypatch):
    """The last list fitted is kept in the store: a process that starts (its caches empty)
    serves it from its first read, fitting nothing while the rated results stay as they
    were; a kept list fitted on fewer results is served while the new fit runs apart, and
    the new one is kept in its place."""
    from arena.web import views

    forget_fits(store.url)
    game = GAMES[0]
    views.ml_leaderboard(store.url, game)
    wait_until(lambda: views.ml_leaderboard(store.url, game) is not None, timeout=30, what="the first fit")
    first = views.ml_leaderboard(store.url, game)
    with db.read(store.url) as c:
        assert ml_board.kept(c, game) == (ml_board.version(c, game), first)
    fits = []
    original = ml_board.leaderboard
    monkeypatch.setattr(ml_board, "leaderboard", lambda *a, **k: fits.append(a[1]) or original(*a, **k))
    caches.fits.clear()  # a process that starts
    with caches.fitting:  # no fit could end meanwhile: what is served was kept
        assert views.ml_leaderboard(store.url, game) == first
        assert leaderboard_ml_state(store.url, game) == "fitted"
    assert fits == []
    # Kept when the results stood elsewhere: served as it is while the list is fitted again.
    with db.transaction(store.url) as c:
        ml_board.keep(c, game, (0, 0, 0), first[:1])
    caches.fits.clear()
    assert views.ml_leaderboard(store.url, game) == first[:1]
    wait_until(lambda: views.ml_leaderboard(store.url, game) == first, timeout=30, what="the refit")
    assert fits == [game]
    with db.read(store.url) as c:
        assert ml_board.kept(c, game) == (ml_board.version(c, game), first)


def leaderboard_ml_state(url: str, game: str) -> str:
    from arena.web import views

    return views.leaderboard(url, game)["ml"]["state"]
