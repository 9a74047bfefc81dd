"""The whole distributed arena with real processes: `arena serve` (gateway and services), a
Celery worker (`arena worker`), PostgreSQL, Redis, and three SDK bot processes that register
over gRPC and play a rated tournament across several games beside house bots; and a bot's two
versions tested against each other there (`Arena.StartTest`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import grpc
import pytest
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from tests.helpers import ARENA, ROOT, stop, wait_until
from tests.support.platform import fast_games
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(240)
ADMIN = (("authorization", "Bearer integration0admin0token0for0the0arena0tests"),)


@pytest.fixture
def arena_env(pg_url, shared_redis, queue_name):
    env = dict(os.environ) | {
        "PYTHONPATH": str(ROOT), "ARENA_DATABASE_URL": pg_url, "ARENA_REDIS_URL": shared_redis,
        "ARENA_QUEUE": queue_name, "ARENA_MAILBOX_PREFIX": f"test:{uuid.uuid4().hex}:",
        "ARENA_ADMIN_TOKEN": "integration0admin0token0for0the0arena0tests", "ARENA_GRPC_ADDRESS": f"127.0.0.1:{free_port()}",
        "ARENA_GATEWAY_METRICS_PORT": "0", "ARENA_METRICS_PORT": "0",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    return env


def spawn(env, *argv, log):
    return subprocess.Popen(list(argv), env=env, cwd=ROOT, stdout=log.open("ab"), stderr=subprocess.STDOUT)


def test_sdk_bots_play_a_rated_tournament_through_gateway_redis_and_a_celery_worker(arena_env, tmp_path):
    arena = ARENA
    processes = [spawn(arena_env, arena, "serve", log=tmp_path / "serve.log"),
                 spawn(arena_env, arena, "worker", "--concurrency", "2", log=tmp_path / "worker.log")]
    try:
        channel = grpc.insecure_channel(arena_env["ARENA_GRPC_ADDRESS"])
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = arena_pb2_grpc.ArenaStub(channel)
        bots = {"sdk-random": "arena_bot.examples.random_bot", "sdk-house": "bots.house_bot", "sdk-random-2": "arena_bot.examples.random_bot"}
        for name, module in bots.items():
            token = stub.RegisterBot(arena_pb2.RegisterBotRequest(name=name)).token
            processes.append(spawn(arena_env | {"ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": arena_env["ARENA_GRPC_ADDRESS"]},
                                   sys.executable, "-m", module, log=tmp_path / f"{name}.log"))
        wait_until(lambda: all("connected as" in (tmp_path / f"{n}.log").read_text() for n in bots),
                   timeout=60, what="the bots to connect")
        chosen = fast_games(2)
        ref = stub.CreateTournament(arena_pb2.CreateTournamentRequest(
            name="integration", games=[arena_pb2.TournamentGame(game=g, table_sizes=[2]) for g in chosen],
            bots=[*bots, "heuristic"], repetitions=1, rated=True, seed=21, move_deadline_ms=3000,
            time_bank_ms=10000), metadata=ADMIN)
        final = list(stub.FollowTournament(ref, timeout=200))[-1]
        assert final.status == "done", (tmp_path / "worker.log").read_text()[-3000:]
        for game in chosen:
            rows = {r.bot: r for r in stub.GetLeaderboard(arena_pb2.LeaderboardRequest(game=game)).rows}
            assert set(bots) <= set(rows), rows
            assert all(rows[b].matches == 6 for b in bots)  # three opponents, both seats each
        matches = stub.ListMatches(arena_pb2.ListMatchesRequest(tournament_id=ref.tournament_id, limit=500)).matches
        assert len(matches) == len(chosen) * 12 and {m.status for m in matches} == {"done"}
        for summary in matches[:6]:
            detail = stub.GetMatch(arena_pb2.MatchRef(match_id=summary.match_id))
            assert {d.code for d in detail.decisions} - {"forced"} == {"ok"}, "no bot timed out or was refused"
    finally:
        for process in processes:
            stop(process)


def test_a_bot_tests_its_versions_through_redis_and_a_celery_worker(arena_env, tmp_path):
    """`Arena.StartTest` distributed: the server writes each batch, the Celery worker plays it
    with the versions connected to the gateway through the Redis mailbox, and the verdict comes
    back over `FollowTest`, unrated."""
    processes = [spawn(arena_env, ARENA, "serve", log=tmp_path / "serve.log"),
                 spawn(arena_env, ARENA, "worker", "--concurrency", "2", log=tmp_path / "worker.log")]
    try:
        channel = grpc.insecure_channel(arena_env["ARENA_GRPC_ADDRESS"])
        grpc.channel_ready_future(channel).result(timeout=60)
        stub = arena_pb2_grpc.ArenaStub(channel)
        first = stub.RegisterBot(arena_pb2.RegisterBotRequest(name="sdk-walker")).token
        second = stub.RegisterVersion(arena_pb2.RegisterVersionRequest(),
                                      metadata=(("authorization", f"Bearer {first}"),)).token
        for name, token, module in (("v1", first, "arena_bot.examples.random_bot"), ("v2", second, "bots.house_bot")):
            processes.append(spawn(arena_env | {"ARENA_BOT_TOKEN": token, "ARENA_ADDRESS": arena_env["ARENA_GRPC_ADDRESS"]},
                                   sys.executable, "-m", module, log=tmp_path / f"{name}.log"))
        wait_until(lambda: all("connected as" in (tmp_path / f"{n}.log").read_text() for n in ("v1", "v2")),
                   timeout=60, what="the bots to connect")
        ref = stub.StartTest(arena_pb2.StartTestRequest(base="sdk-walker@1", candidate="sdk-walker@2", games=["durak"],
                                                        elo1=50, max_groups=200),
                             metadata=(("authorization", f"Bearer {second}"),))
        last = list(stub.FollowTest(ref, timeout=200))[-1]
        assert last.state == "done", (tmp_path / "serve.log").read_text()[-3000:]
        report = json.loads(last.report_json)
        assert report["verdict"] == "H1" and report["candidate"] == "sdk-walker-v2" and report["dropped"] == 0
        assert not stub.GetLeaderboard(arena_pb2.LeaderboardRequest(game="durak")).rows  # unrated
    finally:
        for process in processes:
            stop(process)
