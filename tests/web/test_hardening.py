"""The web face against a stranger's requests, through a real uvicorn server: ids that name
nothing, forged Host headers, framing and sniffing, what /status tells, and the per-peer
rate limit."""

from __future__ import annotations

import os
import re
import socket
import subprocess

import httpx
import pytest

from arena.web import api, background, pages
from arena.web.app import create_app
from tests.helpers import ARENA

BAD_IDS = [str(2**64), "-1", "0", "99999999999999999999", str(2**63), "abc", "1e3", "%20"]


def id_routes() -> list[str]:
    """Every GET route of the pages and the API with an id in its path."""
    return sorted(r.path for router in (api.router, pages.router) for r in router.routes
                  if "GET" in r.methods and re.search(r"\{\w+_id\}", r.path))


def test_every_route_with_an_id_answers_404_to_ids_that_name_nothing(server):
    routes = id_routes()
    assert len(routes) >= 7, routes
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for route in routes:
            for bad in BAD_IDS:
                path = re.sub(r"\{\w+_id\}", bad, route)
                response = client.get(path)
                assert response.status_code == 404, (path, response.status_code, response.text[:300])
                assert "Traceback" not in response.text and len(response.content) < 20_000, path
                assert ("application/json" in response.headers["content-type"]) == path.startswith("/api/")


@pytest.mark.parametrize("path", ["/api/v1/matches?before={}", "/api/v1/tournaments?before={}",
                                  "/api/v1/bots/heuristic?before={}", "/bots/heuristic?before={}",
                                  "/tournaments?before={}", "/api/v1/tournaments/1?page={}",
                                  "/api/v1/matches/1/replay?view={}", "/api/v1/matches?limit={}"])
def test_ids_in_queries_are_refused_with_a_short_error(server, path):
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for bad in BAD_IDS:
            if bad == "0" and "view=" in path:
                continue  # seat 0 is a view
            response = client.get(path.format(bad))
            assert response.status_code in (400, 404, 422), (path, bad, response.status_code, response.text[:300])
            assert "Traceback" not in response.text and len(response.content) < 20_000


@pytest.mark.parametrize("path", ["/", "/api/v1/games", "/matches/999999", "/static/arena.css", "/api/v1/nothing"])
def test_every_answer_forbids_framing_sniffing_and_foreign_scripts(server, path):
    headers = httpx.get(server.url + path, timeout=30).headers
    policy = headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy and "default-src 'self'" in policy
    assert headers["x-content-type-options"] == "nosniff" and headers["x-frame-options"] == "DENY"


def test_redirects_never_name_the_host_the_request_claimed(server):
    for path in ["/tournaments/", "/favicon.ico", "/api/v1/games/"]:
        response = httpx.get(server.url + path, headers={"Host": "evil.example"}, timeout=30, follow_redirects=False)
        assert response.status_code in (301, 302, 307, 308), path
        location = response.headers["location"]
        assert "evil" not in location and location.startswith("/") and not location.startswith("//"), location


def test_status_names_no_host_or_process_to_anonymous_readers(server, store, monkeypatch):
    # The store's matches were claimed as "test:1", "test:2" and by this host's pid (embedded).
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    monkeypatch.setenv("ARENA_REDIS_URL", f"redis://127.0.0.1:{closed}/0")  # Redis away: its error names it
    page = httpx.get(f"{server.url}/status", timeout=30).text
    api = httpx.get(f"{server.url}/api/v1/status", timeout=30).json()
    for text in (page, str(api)):
        assert "test:1" not in text and "test:2" not in text and socket.gethostname() not in text
        assert f"127.0.0.1:{closed}" not in text and str(closed) not in text
    assert api["redis"]["configured"] and api["redis"]["error"]
    assert api["processes"] and {p["process"] for p in api["processes"]} == {
        f"process {n}" for n in range(1, len(api["processes"]) + 1)}


@pytest.fixture
def limited(store):
    """The app behind a real server, 5 requests a minute per peer."""
    running = background.start(create_app(store.url, read_rate="5/minute"))
    yield running
    running.stop()


def test_a_reader_past_the_rate_waits_as_told_and_static_files_are_free(limited, store):
    with httpx.Client(base_url=limited.url, timeout=30) as client:
        for path in ["/", "/api/v1/games", f"/tournaments/{store.done_tournament}", "/status", "/api/v1/matches"]:
            assert client.get(path).status_code == 200, path
        for _ in range(10):
            assert client.get("/static/arena.css").status_code == 200
        refused = client.get("/api/v1/games")
        assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 60
        assert "try again in" in refused.json()["detail"]
        page = client.get("/")
        assert page.status_code == 429 and "try again in" in page.text and int(page.headers["retry-after"]) >= 1


@pytest.mark.parametrize("variable", ["ARENA_WEB_READ_RATE", "ARENA_READ_RATE"])
def test_a_rate_that_is_no_rate_is_one_line_naming_the_variable(variable):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")} | {variable: "lots"}
    done = subprocess.run([ARENA, "web"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert variable in done.stderr and "20/second;600/minute" in done.stderr and len(done.stderr.splitlines()) == 1
