"""Metrics: the exposition passes ``promtool check metrics``, in-process and from a real
prefork worker's ``/metrics`` (samples summed over its pool processes)."""

from __future__ import annotations

import shutil
import subprocess
import urllib.request

import pytest

from arena import metrics
from arena.referee import Clock, play_match
from arena.tournaments import play_and_record
from tests.helpers import wait_until
from tests.support.platform import ScriptedPlayer, cli, fast_games, make_tournament, small_tournament
from tests.support.services import free_port

PROMTOOL = shutil.which("promtool")
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None, reason="promtool not installed (Debian package 'prometheus')"
)


def promtool_check(text: bytes) -> None:
    done = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True, timeout=30)
    assert done.returncode == 0, (done.stdout + done.stderr).decode()


def sample(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            if all(f'{k}="{v}"' in line for k, v in labels.items()):
                total += float(line.rsplit(" ", 1)[1])
    return total


@needs_promtool
def test_in_process_exposition_passes_promtool(db_url):
    _, ids = small_tournament(db_url)
    play_and_record(ids)
    game = fast_games(1)[0]
    faulty = play_match(game, [ScriptedPlayer(["illegal"] * 3), ScriptedPlayer()], 1, clock=Clock(1, 1))
    metrics.observe_match(faulty, "done")
    text = metrics.exposition()
    assert sample(text.decode(), "arena_matches_total", game=game, status="done") >= len(ids)
    assert sample(text.decode(), "arena_forfeits_total", game=game) >= 1
    promtool_check(text)


@needs_promtool
def test_prefork_worker_serves_summed_metrics(pg_url, shared_redis, queue_name, monkeypatch, workers):
    from arena.store import db

    port = free_port()
    env = {"ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis, "ARENA_QUEUE": queue_name,
           "ARENA_BATCH_SIZE": "1"}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    db.engine(pg_url)
    worker = workers(env, concurrency=2, command="arena", metrics_port=port)
    tid, ids = make_tournament(pg_url, ["random", "random-2", "random-3"], games=fast_games(1))
    cli(env, "tournament", "run", str(tid))

    def scrape():
        try:
            return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
        except OSError:
            return None

    text = wait_until(scrape, timeout=30, what="/metrics")
    assert sample(text.decode(), "arena_matches_total", status="done") == len(ids)
    assert "arena_queue_depth" in text.decode()
    assert len(worker.children()) == 2
    promtool_check(text)
