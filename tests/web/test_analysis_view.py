"""The analysis on the web face, against a real Arena server (embedded, its own analysis
process) and a real uvicorn server: the JSON API reads the kept analysis and forwards a
request for a new one; sealed, unknown and bad requests are refused; the forwarder is
rate-limited and says when the service is away; in headless Chromium the button asks for the
analysis and the viewer draws the curve, the marks and each decision's bars."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.referee import external
from arena.server.embedded import BackgroundServer
from arena.server.settings import ServerSettings
from arena.settings import load
from arena.store import db
from arena.store.queries import match_t
from arena.store.statuses import MatchStatus
from arena.web import background
from arena.web.app import create_app
from arena.web.settings import WebSettings

from .browsing import NO_BROWSER, Page

pytestmark = pytest.mark.timeout(300)
ADMIN = (("authorization", "Bearer admin-secret"),)
WORLDS, DECISIONS = 4, 8


@dataclasses.dataclass
class Arena:
    grpc: BackgroundServer
    url: str
    matches: list[int]


@pytest.fixture(scope="module")
def arena(tmp_path_factory) -> Iterator[Arena]:
    """A running Arena server on a fresh SQLite store, with one finished duplicate pair of
    ``random`` against ``heuristic`` in Crazy Eights."""
    url = f"sqlite:///{tmp_path_factory.mktemp('analysis') / 'arena.db'}"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ARENA_DATABASE_URL", url)
        env.delenv("ARENA_REDIS_URL", raising=False)
        external.forget()
        server = BackgroundServer(ServerSettings(address="127.0.0.1:0", admin_token="admin-secret",
                                                 analysis_worlds=WORLDS, analysis_decisions=DECISIONS))
        try:
            with grpc.insecure_channel(server.address) as channel:
                stub = arena_pb2_grpc.ArenaStub(channel)
                ref = stub.CreateTournament(arena_pb2.CreateTournamentRequest(
                    name="analysed", games=[arena_pb2.TournamentGame(game="crazy_eights", table_sizes=[2])],
                    bots=["house:random", "house:heuristic"], repetitions=2, seed=3), metadata=ADMIN)
                assert list(stub.FollowTournament(ref, timeout=120))[-1].status == "done"
            with db.read(url) as connection:
                ids = list(connection.execute(sa.select(match_t.c.id).where(
                    match_t.c.tournament_id == int(ref.tournament_id)).order_by(match_t.c.id)).scalars())
            yield Arena(server, url, ids)
        finally:
            server.stop()
            db.dispose_all()


def web_settings(arena: Arena, **changes: Any) -> WebSettings:
    chosen: dict[str, Any] = {"read_rate": "", "arena_address": arena.grpc.address, "analysis_worlds": WORLDS,
                              "analysis_decisions": DECISIONS, "analysis_per_minute": 30}
    return dataclasses.replace(WebSettings.from_settings(load()), **(chosen | changes))


@pytest.fixture(scope="module")
def web(arena: Arena) -> Iterator[background.BackgroundServer]:
    running = background.start(create_app(arena.url, read_rate="", settings=web_settings(arena)))
    yield running
    running.stop()


def analysis_path(match_id: int) -> str:
    return f"/api/v1/matches/{match_id}/analysis"


def wait_kept(web: background.BackgroundServer, match_id: int, seat: int) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        body = httpx.get(web.url + analysis_path(match_id), params={"seat": seat}).json()
        if body["analysis"] is not None:
            return body
        time.sleep(0.5)
    raise AssertionError("the analysis was not kept in time")


def test_the_api_reads_the_kept_analysis_and_forwards_a_request(arena: Arena, web) -> None:
    match_id = arena.matches[0]
    before = httpx.get(web.url + analysis_path(match_id), params={"seat": 1})
    assert before.status_code == 200
    assert before.json() == {"match_id": match_id, "seat": 1, "key": f"w{WORLDS}-a10-d{DECISIONS}-pend-c{4 * WORLDS}-m1500000",
                             "analysis": None}
    asked = httpx.post(web.url + analysis_path(match_id), params={"seat": 1})
    assert asked.status_code == 202 and asked.json() == {"status": "queued", "analysis": None}
    kept = wait_kept(web, match_id, 1)["analysis"]
    assert kept["seat"] == 1 and kept["decisions"]
    again = httpx.post(web.url + analysis_path(match_id), params={"seat": 1})
    assert again.status_code == 200 and again.json() == {"status": "done", "analysis": kept}


def test_sealed_unknown_and_bad_requests_are_refused(arena: Arena, web) -> None:
    last = arena.matches[-1]
    for method in ("get", "post"):
        assert httpx.request(method, web.url + analysis_path(last + 50), params={"seat": 0}).status_code == 404
        assert httpx.request(method, web.url + analysis_path(last), params={"seat": 2}).status_code == 400
        assert httpx.request(method, web.url + analysis_path(last), params={"seat": -1}).status_code == 422
        assert httpx.request(method, web.url + analysis_path(last), params={"seat": "x"}).status_code == 422
    with db.transaction(arena.url) as connection:  # the deal is dealt again: sealed
        connection.execute(match_t.update().where(match_t.c.id == last).values(status=MatchStatus.SCHEDULED))
    try:
        shown = httpx.get(web.url + analysis_path(last - 1), params={"seat": 0})
        assert shown.status_code == 404 and "its deal is not over" in shown.json()["detail"]
        asked = httpx.post(web.url + analysis_path(last - 1), params={"seat": 0})
        assert asked.status_code == 409 and "its deal is still being played" in asked.json()["detail"]
    finally:
        with db.transaction(arena.url) as connection:
            connection.execute(match_t.update().where(match_t.c.id == last).values(status=MatchStatus.DONE))


def test_the_forwarder_is_rate_limited_and_says_when_the_service_is_away(arena: Arena) -> None:
    limited = background.start(create_app(arena.url, read_rate="",
                                          settings=web_settings(arena, analysis_per_minute=1)))
    away = background.start(create_app(arena.url, read_rate="",
                                       settings=web_settings(arena, arena_address="127.0.0.1:9")))
    try:
        path = analysis_path(arena.matches[-1])
        assert httpx.post(limited.url + path, params={"seat": 0}).status_code in (200, 202)
        refused = httpx.post(limited.url + path, params={"seat": 0})
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) >= 1
        gone = httpx.post(away.url + path, params={"seat": 0}, timeout=30)
        assert gone.status_code == 503 and "cannot be reached" in gone.json()["detail"]
    finally:
        limited.stop()
        away.stop()


@NO_BROWSER
def test_the_button_asks_and_the_viewer_draws_curve_marks_and_bars(arena: Arena, web, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    from .browsing import start_browser

    match_id = arena.matches[1]
    browser = start_browser()
    try:
        page = Page(browser, web.url, tmp_path)
        page.visit(f"/matches/{match_id}")
        page.wait(lambda d: page.find("#analysis-status").text == "not analysed yet")
        assert page.find("#analyse").is_displayed()
        page.find("#analyse").click()
        page.wait(lambda d: page.find("#analysis").get_attribute("data-ready") == "true", 120)
        kept = httpx.get(web.url + analysis_path(match_id), params={"seat": 0}).json()["analysis"]
        assert kept is not None and not page.find("#analyse").is_displayed()
        summary = page.find("#analysis-summary").text
        assert f"{kept['summary']['decisions']} decisions judged" in summary and "accuracy" in summary
        # The curve: one line per seat, a dot per mark; the list carries the marks.
        assert [c.get_attribute("data-seat") for c in page.all("#analysis-curve polyline.seat-curve")] == ["0", "1"]
        marked = [d for d in kept["decisions"] if d["mark"]]
        assert len(page.all("#analysis-curve circle.mark")) == len(marked)
        assert [li.get_attribute("id") for li in page.all("#decisions li[data-mark]")] == \
            [f"d{d['index'] + 1}" for d in marked]
        # Step to a judged decision: its bars, the chosen and the best action marked.
        judged = max(kept["decisions"], key=lambda d: (len(d["actions"]), d["loss"]))
        page.find("#jump").send_keys(Keys.CONTROL, "a")
        page.find("#jump").send_keys(str(judged["index"] + 1), Keys.ENTER)
        page.wait(lambda d: page.find("#analysis-bars").get_attribute("data-index") == str(judged["index"]))
        rows = page.all("#analysis-bars .bar-row")
        assert sorted(r.get_attribute("data-action") for r in rows) == sorted(a["action"] for a in judged["actions"])
        assert page.find("#analysis-bars .bar-row.chosen").get_attribute("data-action") == judged["chosen"]
        assert page.find("#analysis-bars .bar-row.best").get_attribute("data-action") == judged["best"]
        values = [float(r.find_element("css selector", ".bar-value").text.rstrip(" %")) for r in rows]
        assert values == sorted(values, reverse=True)
        browser.execute_script("document.getElementById('analysis').scrollIntoView()")
        page.shot("analysis")
        # Another step that is not the seat's: the panel says so.
        other = next(i for i in range(1, 40) if i - 1 not in {d["index"] for d in kept["decisions"]})
        page.find("#jump").send_keys(Keys.CONTROL, "a")
        page.find("#jump").send_keys(str(other), Keys.ENTER)
        page.wait(lambda d: "is not judged" in page.find("#analysis-bars").text)
        page.no_console_errors()
    finally:
        browser.quit()
