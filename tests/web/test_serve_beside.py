"""`arena serve --web`: the web face beside the gRPC services, in one real process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import grpc

from arena.v1 import arena_pb2, arena_pb2_grpc


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_serve_runs_the_web_face_beside_grpc(tmp_path: Path) -> None:
    grpc_port, web_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env["ARENA_DATABASE_URL"] = f"sqlite:///{tmp_path / 'arena.db'}"
    server = subprocess.Popen([str(Path(sys.executable).with_name("arena")), "serve", "--address",
                               f"127.0.0.1:{grpc_port}", "--metrics-port", "0", "--web", f"127.0.0.1:{web_port}"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 60
        games = None
        while games is None and time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/api/v1/games", timeout=5) as reply:
                    games = json.load(reply)
            except OSError:
                time.sleep(0.2)
        assert games, "the web face never answered"
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            listed = arena_pb2_grpc.ArenaStub(channel).ListGames(arena_pb2.ListGamesRequest(), timeout=30).games
        names = {g["name"] for g in (games if isinstance(games, list) else games.get("games", []))}
        assert names == {g.name for g in listed}
    finally:
        server.terminate()
        output = server.communicate(timeout=30)[0]
    assert "Traceback" not in output, output[-3000:]
