"""A test started through the server outlives that server: `arena serve` stopped mid-test
(SIGTERM) hands it over, and the `arena serve` started next on the same store plays it on from
the groups its tournament holds to the end, with one report over every group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
import sqlalchemy as sa
from arena_bot.v1 import arena_pb2, arena_pb2_grpc

from arena.store import db
from arena.store.models import Match
from tests.helpers import ARENA
from tests.support.services import free_port

pytestmark = pytest.mark.timeout(180)
# A game whose random matches take tens of milliseconds: the first server, stopped after its
# first batch, cannot have played all of them whatever the load on the machine.
GAME = "trekking_the_world"
ADMIN = "a-restart-test-admin-token-0123456789abcdef"


@contextmanager
def serving(address: str, env: dict[str, str], log: Path) -> Iterator[subprocess.Popen[bytes]]:
    server = subprocess.Popen([ARENA, "serve", "--address", address], env=env, stdout=subprocess.DEVNULL,
                              stderr=log.open("a"))
    try:
        with grpc.insecure_channel(address) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
        yield server
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(30)


def test_a_test_is_played_on_by_the_server_that_starts_next(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env |= {"ARENA_DATABASE_URL": url, "ARENA_GATEWAY_METRICS_PORT": "0", "ARENA_ADMIN_TOKEN": ADMIN,
            "ARENA_LEASE_SECONDS": "2", "ARENA_SUPERVISOR_SECONDS": "1"}
    address = f"127.0.0.1:{free_port()}"
    admin = (("authorization", f"Bearer {ADMIN}"),)
    # The same house bot twice: no edge, so the test runs to its cap of 48 groups (6 batches,
    # and a server stopped after the first must have more to leave).
    request = arena_pb2.StartTestRequest(base="random", candidate="random", games=[GAME], max_groups=48, seed=11)
    with serving(address, env, tmp_path / "serve.log") as first:
        with grpc.insecure_channel(address) as channel:
            arena = arena_pb2_grpc.ArenaStub(channel)
            test_id = arena.StartTest(request, metadata=admin, timeout=30).test_id
            for progress in arena.FollowTest(arena_pb2.TestRef(test_id=test_id), timeout=120):
                if progress.groups:
                    break  # a batch is over: the server is stopped before the test is
        first.send_signal(signal.SIGTERM)
        assert first.wait(30) == 0
    with db.read(url) as connection:
        before = connection.execute(sa.select(sa.func.count()).select_from(Match.__table__)
                                    .where(Match.__table__.c.status == "done")).scalar_one()
    assert 0 < before < 96, "the first server finished the test: nothing was left to take over"
    with serving(address, env, tmp_path / "serve.log"):
        with grpc.insecure_channel(address) as channel:
            updates = list(arena_pb2_grpc.ArenaStub(channel).FollowTest(arena_pb2.TestRef(test_id=test_id),
                                                                        timeout=120))
    last = updates[-1]
    assert last.state == "done", (last, (tmp_path / "serve.log").read_text()[-3000:])
    report = json.loads(last.report_json)
    assert report["groups"] + report["dropped"] == 48 and report["verdict"] == "undecided"
    with db.read(url) as connection:
        matches = connection.execute(sa.select(Match.__table__.c.seed, Match.__table__.c.status)
                                     .where(Match.__table__.c.tournament_id == int(test_id))).all()
    # Every group written once (48 deals, each both ways), none lost with the first server.
    assert len(matches) == 96 and len({m.seed for m in matches}) == 48
    assert all(m.status == "done" for m in matches)
