"""``arena bot new-version``: a bot's own token registers its next version on the running
server; the old token cannot register another."""

from __future__ import annotations

import json
import os
import subprocess

from arena_bot.v1 import arena_pb2_grpc

from tests.helpers import ARENA, ROOT
from tests.support.grpc import register


def new_version(address: str, token: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARENA_BOT_TOKEN", "ARENA_ADDRESS")}
    return subprocess.run([ARENA, "bot", "new-version", "--address", address, "--token", token, *args],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_a_bot_registers_its_next_version_once(arena: arena_pb2_grpc.ArenaStub, server) -> None:
    token = register(arena, "walker")
    made = new_version(server.address, token, "--json")
    assert made.returncode == 0, made.stderr
    version = json.loads(made.stdout)
    assert version["name"] == "walker-v2" and len(version["token"]) > 20
    again = new_version(server.address, token)
    assert again.returncode != 0
    assert again.stderr.strip().count("\n") == 0 and "walker-v2" in again.stderr, again.stderr
    third = new_version(server.address, version["token"], "walker-three")
    assert third.returncode == 0 and "walker-three" in third.stdout, third.stderr
