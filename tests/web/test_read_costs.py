"""What keeps anonymous reads cheap: replays of finished matches computed once and revalidated
with ETags (but never served once their deal is back in play), listings a bounded page at a
time, and live pages that every viewer shares."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa

from arena.settings import load
from arena.store import db
from arena.store.queries import match_t, tournament_t
from arena.web import background, caches
from arena.web.app import create_app
from arena.web.settings import WebSettings


def finished_twins(store) -> tuple[int, int]:
    """Two finished matches of the finished tournament that played one deal."""
    with db.read(store.url) as c:
        rows = c.execute(sa.select(match_t.c.id, match_t.c.game, match_t.c.seed)
                         .where(match_t.c.tournament_id == store.done_tournament).order_by(match_t.c.id)).all()
    by_deal: dict = {}
    for row in rows:
        by_deal.setdefault((row.game, row.seed), []).append(row.id)
    return next(tuple(ids[:2]) for ids in by_deal.values() if len(ids) >= 2)


def test_a_finished_replay_is_computed_once_and_revalidated_with_its_etag(server, store):
    match_id, _twin = finished_twins(store)
    url = f"{server.url}/api/v1/matches/{match_id}/replay"
    caches.replays.clear()
    first = httpx.get(url, timeout=30)
    assert first.status_code == 200 and first.headers["etag"].startswith('"')
    assert "no-cache" in first.headers["cache-control"]  # stored, but asked again before each use
    assert caches.replays.get((store.url, match_id, "all")) == (first.headers["etag"], first.text)
    again = httpx.get(url, headers={"If-None-Match": first.headers["etag"]}, timeout=30)
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == first.headers["etag"]
    weak = httpx.get(url, headers={"If-None-Match": f'"other", W/{first.headers["etag"]}'}, timeout=30)
    assert weak.status_code == 304
    other = httpx.get(url, headers={"If-None-Match": '"stale"'}, timeout=30)
    assert other.status_code == 200 and other.text == first.text
    seat = httpx.get(url, params={"view": "1"}, timeout=30)
    assert seat.status_code == 200 and seat.headers["etag"] != first.headers["etag"]


def test_a_cached_replay_is_sealed_again_when_its_deal_comes_back_into_play(server, store):
    match_id, twin = finished_twins(store)
    url = f"{server.url}/api/v1/matches/{match_id}/replay"
    first = httpx.get(url, timeout=30)
    assert first.status_code == 200 and caches.replays.get((store.url, match_id, "all")) is not None
    with db.transaction(store.url) as c:  # the deal is being played again (a rerun of its seed)
        c.execute(match_t.update().where(match_t.c.id == twin).values(status="running"))
    try:
        for headers in ({}, {"If-None-Match": first.headers["etag"]}):
            sealed = httpx.get(url, headers=headers, timeout=30)
            assert sealed.status_code == 404 and "frames" not in sealed.text and "etag" not in sealed.headers
        page = httpx.get(f"{server.url}/api/v1/matches/{match_id}", timeout=30).json()
        assert not page["replay"] and "seed" not in page
    finally:
        with db.transaction(store.url) as c:
            c.execute(match_t.update().where(match_t.c.id == twin).values(status="done"))
    assert httpx.get(url, timeout=30).status_code == 200


def test_match_listings_come_a_bounded_page_at_a_time(client):
    first = client.get("/api/v1/matches", params={"limit": 5}).json()
    second = client.get("/api/v1/matches", params={"limit": 5, "before": first[-1]["id"]}).json()
    ids = [m["id"] for m in first + second]
    assert len(ids) == 10 and ids == sorted(ids, reverse=True) and len(set(ids)) == 10
    done = client.get("/api/v1/matches", params={"status": "done", "limit": 3, "before": first[0]["id"]}).json()
    assert all(m["status"] == "done" and m["id"] < first[0]["id"] for m in done)
    assert client.get("/api/v1/matches", params={"limit": 201}).status_code == 422
    assert client.get("/api/v1/tournaments", params={"limit": 201}).status_code == 422
    newest = client.get("/api/v1/tournaments", params={"limit": 1}).json()
    older = client.get("/api/v1/tournaments", params={"before": newest[0]["id"]}).json()
    assert older and all(t["id"] < newest[0]["id"] for t in older)


def test_a_bots_matches_and_a_tournaments_deals_come_a_page_at_a_time(client, store):
    page = client.get("/api/v1/bots/heuristic").json()
    assert len(page["recent"]) == 20 and page["older"] == page["recent"][-1]["id"]
    rest = client.get("/api/v1/bots/heuristic", params={"before": page["older"]}).json()
    assert rest["recent"] and {m["id"] for m in rest["recent"]}.isdisjoint(m["id"] for m in page["recent"])
    assert all(m["id"] < page["older"] for m in rest["recent"])
    assert f'href="/bots/heuristic?before={page["older"]}"' in client.get("/bots/heuristic").text
    t = client.get(f"/api/v1/tournaments/{store.done_tournament}").json()
    assert t["page"] == 1 and t["pages"] == 1 and all(g["deal_groups"] for g in t["games"].values())
    beyond = client.get(f"/api/v1/tournaments/{store.done_tournament}", params={"page": 2}).json()
    assert beyond["page"] == 2 and all(not g["deal_groups"] for g in beyond["games"].values())
    assert [s["standings"] for s in beyond["games"].values()] == [s["standings"] for s in t["games"].values()]


@pytest.fixture
def patient(store):
    """The app behind a real server, sharing live pages for an hour; the caches are put back
    as the other tests' app made them."""
    hour = WebSettings.from_settings(load().but(live_snapshot_seconds=3600))
    running = background.start(create_app(store.url, read_rate="", settings=hour))
    yield running
    running.stop()
    settings = WebSettings.from_settings(load())
    caches.configure(settings.replay_cache_bytes, settings.live_snapshot_seconds)


def test_every_viewer_of_a_live_page_shares_one_read(patient, store):
    path = f"/tournaments/{store.live_tournament}/live"
    before = httpx.get(patient.url + path, timeout=30)
    assert before.status_code == 200 and 'data-live="' in before.text
    with db.read(store.url) as c:
        name = c.execute(sa.select(tournament_t.c.name).where(tournament_t.c.id == store.live_tournament)).scalar()
    with db.transaction(store.url) as c:
        c.execute(tournament_t.update().where(tournament_t.c.id == store.live_tournament).values(name="renamed"))
    try:
        for _ in range(3):  # other viewers, later refreshes: the snapshot, not another read
            with httpx.Client(base_url=patient.url, timeout=30) as viewer:
                assert viewer.get(path).text == before.text
                assert viewer.get(f"/api/v1/tournaments/{store.live_tournament}").json()["name"] == name
    finally:
        with db.transaction(store.url) as c:
            c.execute(tournament_t.update().where(tournament_t.c.id == store.live_tournament).values(name=name))
